// Found by tests/differential (generated programs 101165, 105307, 112547,
// 120364; 120364 reduced): the JIT failed to lower a lax.scan of length 1 whose xs
// has another unit dimension beside the scanned axis ("slice along dimension
// 2 runs out-of-bounds: 1 >= 1"). The scan's loop reads xs slice %i with a
// rank-reducing tensor.extract_slice; the canonicalizer inlines the one-trip
// scf.for (%i = 0), and upstream's folding of that constant offset into a
// rank-reducing slice (MLIR 22) permutes its sizes: [0, 0, %i] [1, 2, 1] of a
// tensor<1x2x1xf32> became [0, 0, 0] [1, 1, 2]. A scan of length 1 now reads
// its xs at the static index 0 (lowering/ScanToLoops.cpp), which upstream
// leaves alone. The JIT agrees with the reference interpreter.
// RUN: split-file %s %t
// RUN: kiln-run %t/axis2.mlir --random-inputs --check --no-cache | FileCheck %s
// RUN: kiln-run %t/reverse.mlir --random-inputs --check --no-cache | FileCheck %s
// CHECK-NOT: DIFFERS
// CHECK: worst error: 0 x bound

//--- axis2.mlir
// generated program 120364, reduced: xs tensor<1x2x1xf32> scanned on axis 2.
func.func @main(%xs: tensor<1x2x1xf32>) -> (tensor<f32>, tensor<1x2x1xf32>) {
  %init = lax.constant dense<0x7EFFFFFF> : tensor<f32>
  %c, %ys = lax.scan length = 1 carry(%init) xs(%xs) {xs_axes = array<i64: 2>, ys_axes = array<i64: 2>} : (tensor<f32>, tensor<1x2x1xf32>) -> (tensor<f32>, tensor<1x2x1xf32>) {
  ^bb0(%a: tensor<f32>, %x: tensor<1x2xf32>):
    %sq = lax.square %x : tensor<1x2xf32>
    %t = lax.atan2 %x, %sq : tensor<1x2xf32>
    %m = lax.reduce_max %t axes = [0, 1] : tensor<1x2xf32> -> tensor<f32>
    %n = lax.max %a, %m : tensor<f32>
    lax.yield %n, %sq : tensor<f32>, tensor<1x2xf32>
  }
  return %c, %ys : tensor<f32>, tensor<1x2x1xf32>
}

//--- reverse.mlir
// With reverse (the index is length - 1 - i) and two xs.
func.func @main(%xs: tensor<1x3x1xf32>, %zs: tensor<2x1x1xf32>) -> tensor<3x1x1x2xf32> {
  %ys = lax.scan length = 1 carry() xs(%xs, %zs) {reverse = true, xs_axes = array<i64: 2, 1>, ys_axes = array<i64: 2>} : (tensor<1x3x1xf32>, tensor<2x1x1xf32>) -> tensor<3x1x1x2xf32> {
  ^bb0(%x: tensor<1x3xf32>, %z: tensor<2x1xf32>):
    %xt = lax.transpose %x permutation = [1, 0] : tensor<1x3xf32> -> tensor<3x1xf32>
    %zt = lax.transpose %z permutation = [1, 0] : tensor<2x1xf32> -> tensor<1x2xf32>
    %p = lax.dot_general %xt, %zt contracting = [1] x [0] batch = [] x [] : (tensor<3x1xf32>, tensor<1x2xf32>) -> tensor<3x2xf32>
    %r = lax.reshape %p : tensor<3x2xf32> -> tensor<3x1x2xf32>
    lax.yield %r : tensor<3x1x2xf32>
  }
  return %ys : tensor<3x1x1x2xf32>
}
