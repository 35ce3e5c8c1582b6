// Grouped runtime GEMMs through the JIT against the interpreter on the
// original program: an RNN scan whose step has an input and a recurrent
// product (64x96x256 and 64x256x256: 11.5 MFLOP, past the parallel
// threshold, so the group runs as one loop over blocks of both), and three
// independent products of a backward step beside a fourth that reads one
// of their results (a group of three, then a single call). On 2 threads,
// on 1, and with every threshold at its minimum.
// RUN: kiln-opt %s --kiln-lower-cpu | FileCheck %s --check-prefix=IR
// RUN: kiln-run %s --random-inputs --check --runtime-threads 2 | FileCheck %s
// RUN: kiln-run %s --random-inputs --check --runtime-threads 1 | FileCheck %s
// RUN: kiln-run %s --random-inputs --check --min-thresholds | FileCheck %s
// IR-DAG: llvm.call @_mlir_ciface_kiln_rt_sgemm_group2(
// IR-DAG: llvm.call @_mlir_ciface_kiln_rt_sgemm_group3(
// IR-DAG: llvm.call @_mlir_ciface_kiln_rt_sgemm(
// CHECK: output 0: matches
// CHECK: output 1: matches
// CHECK: output 2: matches
// CHECK: output 3: matches
// CHECK: output 4: matches
func.func @main(%xs: tensor<3x64x96xf32>, %wx: tensor<96x256xf32>, %wh: tensor<256x256xf32>,
                %g: tensor<64x256xf32>, %x: tensor<64x96xf32>)
    -> (tensor<3x64x256xf32>, tensor<96x256xf32>, tensor<256x256xf32>, tensor<64x256xf32>,
        tensor<64x96xf32>) {
  %h0 = lax.constant dense<0.0> : tensor<64x256xf32>
  %h, %hs = lax.scan length = 3 consts(%wx, %wh) carry(%h0) xs(%xs)
      : (tensor<96x256xf32>, tensor<256x256xf32>, tensor<64x256xf32>, tensor<3x64x96xf32>)
        -> (tensor<64x256xf32>, tensor<3x64x256xf32>) {
  ^bb0(%a: tensor<96x256xf32>, %b: tensor<256x256xf32>, %hc: tensor<64x256xf32>, %xt: tensor<64x96xf32>):
    %gx = lax.dot_general %xt, %a contracting = [1] x [0] batch = [] x [] : (tensor<64x96xf32>, tensor<96x256xf32>) -> tensor<64x256xf32>
    %gh = lax.dot_general %hc, %b contracting = [1] x [0] batch = [] x [] : (tensor<64x256xf32>, tensor<256x256xf32>) -> tensor<64x256xf32>
    %s = lax.add %gx, %gh : tensor<64x256xf32>
    %n = lax.tanh %s : tensor<64x256xf32>
    lax.yield %n, %n : tensor<64x256xf32>, tensor<64x256xf32>
  }
  // The backward step: dWx = x^T g, dWh = h^T g, dh = g Wh^T; then dx =
  // dh Wx^T reads dh and runs after the group.
  %dwx = lax.dot_general %x, %g contracting = [0] x [0] batch = [] x [] : (tensor<64x96xf32>, tensor<64x256xf32>) -> tensor<96x256xf32>
  %dwh = lax.dot_general %h, %g contracting = [0] x [0] batch = [] x [] : (tensor<64x256xf32>, tensor<64x256xf32>) -> tensor<256x256xf32>
  %dh = lax.dot_general %g, %wh contracting = [1] x [1] batch = [] x [] : (tensor<64x256xf32>, tensor<256x256xf32>) -> tensor<64x256xf32>
  %dx = lax.dot_general %dh, %wx contracting = [1] x [1] batch = [] x [] : (tensor<64x256xf32>, tensor<96x256xf32>) -> tensor<64x96xf32>
  return %hs, %dwx, %dwh, %dh, %dx : tensor<3x64x256xf32>, tensor<96x256xf32>, tensor<256x256xf32>, tensor<64x256xf32>, tensor<64x96xf32>
}
