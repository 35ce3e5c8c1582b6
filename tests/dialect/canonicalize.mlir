// Folders and canonicalization patterns of the lax dialect.
// RUN: kiln-opt %s -canonicalize -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @identity_transpose
// CHECK-NEXT: return %arg0
func.func @identity_transpose(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = lax.transpose %a permutation = [0, 1] : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// transpose [1,2,0] of transpose [2,0,1] is the identity.
// CHECK-LABEL: func.func @transpose_of_transpose_identity
// CHECK-NEXT: return %arg0
func.func @transpose_of_transpose_identity(%a: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = lax.transpose %a permutation = [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  %1 = lax.transpose %0 permutation = [1, 2, 0] : tensor<4x2x3xf32> -> tensor<2x3x4xf32>
  return %1 : tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func.func @transpose_of_transpose
// CHECK-NEXT: %[[T:.*]] = lax.transpose %arg0 permutation = [2, 1, 0] : tensor<2x3x4xf32> -> tensor<4x3x2xf32>
// CHECK-NEXT: return %[[T]]
func.func @transpose_of_transpose(%a: tensor<2x3x4xf32>) -> tensor<4x3x2xf32> {
  %0 = lax.transpose %a permutation = [1, 0, 2] : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
  %1 = lax.transpose %0 permutation = [2, 0, 1] : tensor<3x2x4xf32> -> tensor<4x3x2xf32>
  return %1 : tensor<4x3x2xf32>
}

// -----

// max(-inf, x) = x for every x (a float reduce_sum over no axes is 0 + x,
// which is +0 for x = -0: see fold-signed-zero.mlir).
// CHECK-LABEL: func.func @reduce_no_axes
// CHECK-NEXT: return %arg0
func.func @reduce_no_axes(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = lax.reduce_max %a axes = [] : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @broadcast_same_shape
// CHECK-NEXT: return %arg0
func.func @broadcast_same_shape(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = lax.broadcast_in_dim %a shape = [2, 3] dims = [0, 1] : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @broadcast_splat
// CHECK-NEXT: %[[C:.*]] = lax.constant dense<2.000000e+00> : tensor<4x3xf32>
// CHECK-NEXT: return %[[C]]
func.func @broadcast_splat() -> tensor<4x3xf32> {
  %c = lax.constant dense<2.0> : tensor<f32>
  %0 = lax.broadcast_in_dim %c shape = [4, 3] dims = [] : tensor<f32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_of_reshape
// CHECK-NEXT: %[[R:.*]] = lax.reshape %arg0 : tensor<2x3xf32> -> tensor<3x2xf32>
// CHECK-NEXT: return %[[R]]
func.func @reshape_of_reshape(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = lax.reshape %a : tensor<2x3xf32> -> tensor<6xf32>
  %1 = lax.reshape %0 : tensor<6xf32> -> tensor<3x2xf32>
  return %1 : tensor<3x2xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_same
// CHECK-NEXT: return %arg0
func.func @reshape_same(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = lax.reshape %a : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @convert_same
// CHECK-NEXT: return %arg0
func.func @convert_same(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = lax.convert_element_type %a : tensor<2xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Splat constants fold through elementwise arithmetic.
// CHECK-LABEL: func.func @splat_arith
// CHECK-NEXT: %[[C:.*]] = lax.constant dense<1.800000e+01> : tensor<4xf32>
// CHECK-NEXT: return %[[C]]
func.func @splat_arith() -> tensor<4xf32> {
  %a = lax.constant dense<3.0> : tensor<4xf32>
  %b = lax.constant dense<2.0> : tensor<4xf32>
  %0 = lax.mul %a, %b : tensor<4xf32>
  %1 = lax.add %0, %0 : tensor<4xf32>
  %2 = lax.sub %1, %b : tensor<4xf32>
  %3 = lax.div %2, %a : tensor<4xf32>
  %4 = lax.max %3, %b : tensor<4xf32>
  %5 = lax.mul %4, %a : tensor<4xf32>
  %6 = lax.min %5, %1 : tensor<4xf32>
  %7 = lax.add %6, %6 : tensor<4xf32>
  %8 = lax.sub %7, %b : tensor<4xf32>
  return %8 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @splat_int
// CHECK-NEXT: %[[C:.*]] = lax.constant dense<-2> : tensor<3xi32>
func.func @splat_int() -> tensor<3xi32> {
  %a = lax.constant dense<7> : tensor<3xi32>
  %b = lax.constant dense<-3> : tensor<3xi32>
  %0 = lax.div %a, %b : tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

// Exact identities: x * 1, x / 1, x - (+0) fold; x + (+0) does not
// (-0 + +0 = +0). fold-signed-zero.mlir has the others.
// CHECK-LABEL: func.func @identities
// CHECK: %[[Z:.*]] = lax.constant dense<0.000000e+00>
// CHECK-NEXT: %[[A:.*]] = lax.add %arg0, %[[Z]]
// CHECK-NEXT: return %[[A]]
func.func @identities(%x: tensor<4xf32>) -> tensor<4xf32> {
  %one = lax.constant dense<1.0> : tensor<4xf32>
  %zero = lax.constant dense<0.0> : tensor<4xf32>
  %0 = lax.mul %x, %one : tensor<4xf32>
  %1 = lax.div %0, %one : tensor<4xf32>
  %2 = lax.sub %1, %zero : tensor<4xf32>
  %3 = lax.add %2, %zero : tensor<4xf32>
  return %3 : tensor<4xf32>
}

// -----

// Integer division by a zero constant is not folded (fold-trap.mlir has more).
// CHECK-LABEL: func.func @int_div_zero
// CHECK: lax.div
func.func @int_div_zero(%x: tensor<4xi32>) -> tensor<4xi32> {
  %zero = lax.constant dense<0> : tensor<4xi32>
  %a = lax.constant dense<5> : tensor<4xi32>
  %0 = lax.div %a, %zero : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @misc_identities
// CHECK-NEXT: return %arg0, %arg0, %arg0, %arg0, %arg1
func.func @misc_identities(%x: tensor<4xf32>, %y: tensor<1x4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<1x4xf32>) {
  %0 = lax.integer_pow %x y = 1 : tensor<4xf32>
  %1 = lax.max %x, %x : tensor<4xf32>
  %2 = lax.slice %x start = [0] limit = [4] strides = [1] : tensor<4xf32> -> tensor<4xf32>
  %3 = lax.concatenate %x dim = 0 : (tensor<4xf32>) -> tensor<4xf32>
  %4 = lax.rev %y dims = [0] : tensor<1x4xf32>
  return %0, %1, %2, %3, %4 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<1x4xf32>
}

// -----

// Large dense constants are not folded (IR size).
// CHECK-LABEL: func.func @no_fold_large_dense
// CHECK: lax.add
func.func @no_fold_large_dense() -> tensor<65xi32> {
  %a = lax.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64]> : tensor<65xi32>
  %0 = lax.add %a, %a : tensor<65xi32>
  return %0 : tensor<65xi32>
}

// -----

// A scan whose results are unused disappears (its body is pure).
// CHECK-LABEL: func.func @dead_scan
// CHECK-NOT: lax.scan
func.func @dead_scan(%c: tensor<3xf32>) {
  %0 = lax.scan length = 4 carry(%c) xs() : (tensor<3xf32>) -> tensor<3xf32> {
  ^bb0(%a: tensor<3xf32>):
    %s = lax.sin %a : tensor<3xf32>
    lax.yield %s : tensor<3xf32>
  }
  return
}

// -----

// Seed 002's carry is dropped (`_`): its final value is unused and it only
// feeds itself, so the scan stops computing it. The ys stays.
// CHECK-LABEL: func.func @dead_carry
// CHECK: %[[YS:.*]] = lax.scan length = 30 carry() xs(%arg1) : (tensor<30x15x12xf32>) -> tensor<30x15x12xf32>
// CHECK-NOT: lax.sin
// CHECK: lax.cos
// CHECK: return %[[YS]]
func.func @dead_carry(%c0: tensor<10x5x8xf32>, %xs: tensor<30x15x12xf32>) -> tensor<30x15x12xf32> {
  %c, %ys = lax.scan length = 30 carry(%c0) xs(%xs) : (tensor<10x5x8xf32>, tensor<30x15x12xf32>) -> (tensor<10x5x8xf32>, tensor<30x15x12xf32>) {
  ^bb0(%carry: tensor<10x5x8xf32>, %x: tensor<15x12xf32>):
    %s = lax.sin %carry : tensor<10x5x8xf32>
    %cs = lax.cos %x : tensor<15x12xf32>
    lax.yield %s, %cs : tensor<10x5x8xf32>, tensor<15x12xf32>
  }
  return %ys : tensor<30x15x12xf32>
}

// -----

// A carry that feeds a ys is live even if its final value is unused; so is
// one read by another carry.
// CHECK-LABEL: func.func @live_carries
// CHECK: lax.scan length = 4 carry(%arg0, %arg0) xs()
func.func @live_carries(%c0: tensor<3xf32>) -> (tensor<3xf32>, tensor<4x3xf32>) {
  %c:3 = lax.scan length = 4 carry(%c0, %c0) xs() : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<4x3xf32>) {
  ^bb0(%a: tensor<3xf32>, %b: tensor<3xf32>):
    %s = lax.sin %a : tensor<3xf32>
    %t = lax.add %b, %a : tensor<3xf32>
    lax.yield %s, %t, %s : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  }
  return %c#1, %c#2 : tensor<3xf32>, tensor<4x3xf32>
}

// -----

// An xs whose slice is never read is not sliced; an unused ys is not stacked.
// CHECK-LABEL: func.func @unused_xs_ys
// CHECK: lax.scan length = 4 carry(%arg0) xs(%arg2) : (tensor<3xf32>, tensor<4x3xf32>) -> tensor<3xf32>
func.func @unused_xs_ys(%c0: tensor<3xf32>, %xs1: tensor<4x3xf32>, %xs2: tensor<4x3xf32>) -> tensor<3xf32> {
  %c:2 = lax.scan length = 4 carry(%c0) xs(%xs1, %xs2) : (tensor<3xf32>, tensor<4x3xf32>, tensor<4x3xf32>) -> (tensor<3xf32>, tensor<4x3xf32>) {
  ^bb0(%a: tensor<3xf32>, %x1: tensor<3xf32>, %x2: tensor<3xf32>):
    %s = lax.add %a, %x2 : tensor<3xf32>
    lax.yield %s, %s : tensor<3xf32>, tensor<3xf32>
  }
  return %c#0 : tensor<3xf32>
}
