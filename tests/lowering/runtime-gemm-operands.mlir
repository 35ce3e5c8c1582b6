// A dot_general through the runtime GEMM (f64, 8 x 64 x 64 = 32768
// multiply-adds, the cost model's threshold) whose operands both need a
// transpose, to the same shape: contracting [0, 2] x [2, 0]. The two
// transposes' destinations (one tensor.empty after CSE) became one buffer,
// B's transpose overwrote A's before the call read it, and the JIT computed
// B times itself (found by kiln-difftest's jit-min-thresholds, generated
// program 1782). Checked against the reference interpreter, with the
// default thresholds and with every threshold at its minimum.
// RUN: kiln-run %s --random-inputs --check | FileCheck %s
// RUN: kiln-run %s --random-inputs --check --min-thresholds | FileCheck %s
// CHECK: output 0: matches
// RUN: kiln-opt %s --kiln-lax-to-linalg | FileCheck %s --check-prefix=IR
// IR: linalg.transpose
// IR: linalg.transpose
// IR: bufferization.to_buffer
// IR: bufferization.to_buffer
// IR-NEXT: memref.cast
// IR: call @kiln_rt_dgemm
func.func @main(%a: tensor<64x8x64xf64>, %b: tensor<64x8x64xf64>) -> tensor<8xf64> {
  %r = lax.dot_general %a, %b contracting = [0, 2] x [2, 0] batch = [1] x [1] : (tensor<64x8x64xf64>, tensor<64x8x64xf64>) -> tensor<8xf64>
  return %r : tensor<8xf64>
}
