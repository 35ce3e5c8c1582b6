// A region rewrite that does not apply, or an attribute that cannot be
// computed, leaves the IR untouched (PDL rewrites may not fail under the
// greedy driver: computed attributes are checked while matching, and region
// rules plan their whole rewrite before touching the IR).
// RUN: kiln-opt %s --rules=%examples/rules/scan_pushup.yaml --rules=%S/Inputs/cannot-compute.yaml --rule-stats 2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.err
// RUN: kiln-opt %s --rules=%examples/rules/scan_pushup.yaml --dump-pdl -o /dev/null 2>&1 | FileCheck %s --check-prefix=PDL

// The ys has two users, so sink refuses both.
// CHECK-LABEL: func.func @f
// CHECK: %[[S:[0-9]+]]:2 = lax.scan
// CHECK: lax.neg %[[S]]#1 :
// CHECK: lax.abs %[[S]]#1 :
// CHECK: lax.rev %arg2 dims = [0]
func.func @f(%c0: tensor<4xf32>, %xs: tensor<3x4xf32>, %r: tensor<4xf32>)
    -> (tensor<3x4xf32>, tensor<3x4xf32>, tensor<4xf32>) {
  %c, %ys = lax.scan length = 3 carry(%c0) xs(%xs)
      : (tensor<4xf32>, tensor<3x4xf32>) -> (tensor<4xf32>, tensor<3x4xf32>) {
  ^bb0(%carry: tensor<4xf32>, %x: tensor<4xf32>):
    %s = lax.sin %carry : tensor<4xf32>
    lax.yield %s, %x : tensor<4xf32>, tensor<4xf32>
  }
  %e = lax.neg %ys : tensor<3x4xf32>
  %f = lax.abs %ys : tensor<3x4xf32>
  %g = lax.rev %r dims = [0] : tensor<4xf32>
  return %e, %f, %g : tensor<3x4xf32>, tensor<3x4xf32>, tensor<4xf32>
}

// STATS: rev-out-of-range: 0
// STATS: sign-to-transpose: 1
// STATS: sink-elementwise-into-scan: 0
// PDL: // rule 'sink-elementwise-into-scan' is a region rule: a C++ pattern with Kiln's matcher and region rewriter

// The transpose can be typed on the 2-D input only.
// CHECK-LABEL: func.func @g
// CHECK-NEXT: lax.sign %arg0 : tensor<4xf32>
// CHECK-NEXT: lax.transpose %arg1 permutation = [1, 0] : tensor<3x3xf32> -> tensor<3x3xf32>
func.func @g(%x: tensor<4xf32>, %y: tensor<3x3xf32>) -> (tensor<4xf32>, tensor<3x3xf32>) {
  %0 = lax.sign %x : tensor<4xf32>
  %1 = lax.sign %y : tensor<3x3xf32>
  return %0, %1 : tensor<4xf32>, tensor<3x3xf32>
}
