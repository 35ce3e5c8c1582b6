// RUN: kiln-opt --kiln-fold-scan-layout -split-input-file %s | FileCheck %s

// Seed 003's TDMA, as written with transposes and [::-1]: nothing of either
// is left; the scans walk axis 1 of the inputs and the output directly.
// RUN: kiln-opt --kiln-fold-scan-layout %examples/seeds/seed003_tdma.mlir | FileCheck %s --check-prefix=TDMA
// TDMA-NOT: lax.transpose
// TDMA-NOT: lax.rev
// TDMA: lax.scan length = 100 carry({{.*}}) xs(%arg0, %arg1, %arg2, %arg3) {xs_axes = array<i64: 1, 1, 1, 1>}
// TDMA: lax.scan length = 100 carry({{.*}}) xs({{.*}}) {reverse = true, ys_axes = array<i64: 1>}
// TDMA-NOT: lax.transpose
// TDMA-NOT: lax.rev

// A reverse along the scan axis and another axis: the other reverse stays.
// CHECK-LABEL: func.func @rev_two_axes
// CHECK: %[[R:.*]] = lax.rev %arg1 dims = [1] : tensor<4x3xf32>
// CHECK: lax.scan length = 4 carry(%arg0) xs(%[[R]]) {reverse = true}
func.func @rev_two_axes(%c: tensor<3xf32>, %xs: tensor<4x3xf32>) -> tensor<3xf32> {
  %r = lax.rev %xs dims = [0, 1] : tensor<4x3xf32>
  %0 = lax.scan length = 4 carry(%c) xs(%r) : (tensor<3xf32>, tensor<4x3xf32>) -> tensor<3xf32> {
  ^bb0(%a: tensor<3xf32>, %x: tensor<3xf32>):
    %s = lax.add %a, %x : tensor<3xf32>
    lax.yield %s : tensor<3xf32>
  }
  return %0 : tensor<3xf32>
}

// -----

// A ys read both reversed and directly: the scan keeps its direction.
// CHECK-LABEL: func.func @ys_read_directly
// CHECK: lax.rev %arg1
// CHECK: lax.scan length = 4 carry
// CHECK-NOT: reverse = true
func.func @ys_read_directly(%c: tensor<3xf32>, %xs: tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>) {
  %r = lax.rev %xs dims = [0] : tensor<4x3xf32>
  %0:2 = lax.scan length = 4 carry(%c) xs(%r) : (tensor<3xf32>, tensor<4x3xf32>) -> (tensor<3xf32>, tensor<4x3xf32>) {
  ^bb0(%a: tensor<3xf32>, %x: tensor<3xf32>):
    %s = lax.add %a, %x : tensor<3xf32>
    lax.yield %s, %s : tensor<3xf32>, tensor<3xf32>
  }
  %back = lax.rev %0#1 dims = [0] : tensor<4x3xf32>
  return %back, %0#1 : tensor<4x3xf32>, tensor<4x3xf32>
}

// -----

// A transpose that would reorder the slice's dims is not folded.
// CHECK-LABEL: func.func @slice_layout_changes
// CHECK: lax.transpose
// CHECK: lax.scan length = 2 carry(%arg0) xs(%{{.*}}) :
func.func @slice_layout_changes(%c: tensor<4x3xf32>, %xs: tensor<3x2x4xf32>) -> tensor<4x3xf32> {
  %t = lax.transpose %xs permutation = [1, 2, 0] : tensor<3x2x4xf32> -> tensor<2x4x3xf32>
  %0 = lax.scan length = 2 carry(%c) xs(%t) : (tensor<4x3xf32>, tensor<2x4x3xf32>) -> tensor<4x3xf32> {
  ^bb0(%a: tensor<4x3xf32>, %x: tensor<4x3xf32>):
    %s = lax.add %a, %x : tensor<4x3xf32>
    lax.yield %s : tensor<4x3xf32>
  }
  return %0 : tensor<4x3xf32>
}

// -----

// A transposed xs of rank 3 whose slice layout is kept: axis 2 is scanned.
// CHECK-LABEL: func.func @rank3_xs
// CHECK: lax.scan length = 5 carry(%arg0) xs(%arg1) {xs_axes = array<i64: 2>}
func.func @rank3_xs(%c: tensor<2x3xf32>, %xs: tensor<2x3x5xf32>) -> tensor<2x3xf32> {
  %t = lax.transpose %xs permutation = [2, 0, 1] : tensor<2x3x5xf32> -> tensor<5x2x3xf32>
  %0 = lax.scan length = 5 carry(%c) xs(%t) : (tensor<2x3xf32>, tensor<5x2x3xf32>) -> tensor<2x3xf32> {
  ^bb0(%a: tensor<2x3xf32>, %x: tensor<2x3xf32>):
    %s = lax.add %a, %x : tensor<2x3xf32>
    lax.yield %s : tensor<2x3xf32>
  }
  return %0 : tensor<2x3xf32>
}
