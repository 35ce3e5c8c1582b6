// kiln-scan-to-reduction: a scan whose carries only accumulate full
// reductions of elementwise functions of its xs becomes one reduction over
// the stacked xs. Float sums need reassociate=true; max is exact.
// RUN: kiln-opt --kiln-scan-to-reduction=reassociate=true -split-input-file %s | FileCheck %s
// RUN: kiln-opt --kiln-scan-to-reduction -split-input-file %s | FileCheck %s --check-prefix=EXACT

// CHECK-LABEL: func.func @sum
// CHECK-NOT: lax.scan
// CHECK: %[[C:.*]] = lax.constant dense<2.000000e+00> : tensor<8x4x3xf32>
// CHECK: %[[M:.*]] = lax.mul %arg1, %[[C]] : tensor<8x4x3xf32>
// CHECK: %[[D:.*]] = lax.sub %[[M]], %arg2 : tensor<8x4x3xf32>
// CHECK: %[[T:.*]] = lax.reduce_sum %[[D]] axes = [0, 1, 2] : tensor<8x4x3xf32> -> tensor<f32>
// CHECK: %[[R:.*]] = lax.add %arg0, %[[T]] : tensor<f32>
// CHECK: return %[[R]]
// Without reassociation the float sum stays a scan.
// EXACT-LABEL: func.func @sum
// EXACT: lax.scan
func.func @sum(%init: tensor<f32>, %xs: tensor<8x4x3xf32>, %ys: tensor<8x4x3xf32>) -> tensor<f32> {
  %acc = lax.scan length = 8 carry(%init) xs(%xs, %ys)
      : (tensor<f32>, tensor<8x4x3xf32>, tensor<8x4x3xf32>) -> tensor<f32> {
  ^bb0(%c: tensor<f32>, %x: tensor<4x3xf32>, %y: tensor<4x3xf32>):
    %two = lax.constant dense<2.0> : tensor<4x3xf32>
    %m = lax.mul %x, %two : tensor<4x3xf32>
    %d = lax.sub %m, %y : tensor<4x3xf32>
    %s = lax.reduce_sum %d axes = [0, 1] : tensor<4x3xf32> -> tensor<f32>
    %n = lax.add %c, %s : tensor<f32>
    lax.yield %n : tensor<f32>
  }
  return %acc : tensor<f32>
}

// -----

// max regroups exactly: rewritten without reassociation too.
// EXACT-LABEL: func.func @max
// EXACT-NOT: lax.scan
// EXACT: %[[A:.*]] = lax.abs %arg1 : tensor<5x6xf32>
// EXACT: %[[T:.*]] = lax.reduce_max %[[A]] axes = [0, 1] : tensor<5x6xf32> -> tensor<f32>
// EXACT: lax.max %arg0, %[[T]] : tensor<f32>
func.func @max(%init: tensor<f32>, %xs: tensor<5x6xf32>) -> tensor<f32> {
  %acc = lax.scan length = 5 carry(%init) xs(%xs) : (tensor<f32>, tensor<5x6xf32>) -> tensor<f32> {
  ^bb0(%c: tensor<f32>, %x: tensor<6xf32>):
    %a = lax.abs %x : tensor<6xf32>
    %m = lax.reduce_max %a axes = [0] : tensor<6xf32> -> tensor<f32>
    %n = lax.max %m, %c : tensor<f32>
    lax.yield %n : tensor<f32>
  }
  return %acc : tensor<f32>
}

// -----

// Not an accumulation of the xs alone (the reduced value reads the carry):
// left alone.
// CHECK-LABEL: func.func @reads_carry
// CHECK: lax.scan
func.func @reads_carry(%init: tensor<f32>, %xs: tensor<5x6xf32>) -> tensor<f32> {
  %acc = lax.scan length = 5 carry(%init) xs(%xs) : (tensor<f32>, tensor<5x6xf32>) -> tensor<f32> {
  ^bb0(%c: tensor<f32>, %x: tensor<6xf32>):
    %b = lax.broadcast_in_dim %c shape = [6] dims = [] : tensor<f32> -> tensor<6xf32>
    %p = lax.mul %x, %b : tensor<6xf32>
    %s = lax.reduce_sum %p axes = [0] : tensor<6xf32> -> tensor<f32>
    %n = lax.add %c, %s : tensor<f32>
    lax.yield %n : tensor<f32>
  }
  return %acc : tensor<f32>
}

// -----

// Its ys are used: left alone.
// CHECK-LABEL: func.func @ys_used
// CHECK: lax.scan
func.func @ys_used(%init: tensor<f32>, %xs: tensor<5x6xf32>) -> (tensor<f32>, tensor<5x6xf32>) {
  %acc, %ys = lax.scan length = 5 carry(%init) xs(%xs) : (tensor<f32>, tensor<5x6xf32>) -> (tensor<f32>, tensor<5x6xf32>) {
  ^bb0(%c: tensor<f32>, %x: tensor<6xf32>):
    %s = lax.reduce_sum %x axes = [0] : tensor<6xf32> -> tensor<f32>
    %n = lax.add %c, %s : tensor<f32>
    lax.yield %n, %x : tensor<f32>, tensor<6xf32>
  }
  return %acc, %ys : tensor<f32>, tensor<5x6xf32>
}
