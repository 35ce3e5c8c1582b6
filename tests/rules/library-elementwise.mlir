// RUN: kiln-opt %s --rules=%kiln_src/rules/library/elementwise.yaml | FileCheck %s

// CHECK-LABEL: func.func @neg_neg
// CHECK-NEXT: return %arg0
func.func @neg_neg(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = lax.neg %x : tensor<4xf32>
  %1 = lax.neg %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// One on either side (any_order).
// CHECK-LABEL: func.func @mul_one
// CHECK-NEXT: %[[A:.*]] = lax.add %arg0, %arg0
// CHECK-NEXT: return %[[A]]
func.func @mul_one(%x: tensor<4xf32>) -> tensor<4xf32> {
  %one = lax.constant dense<1.0> : tensor<4xf32>
  %0 = lax.mul %one, %x : tensor<4xf32>
  %1 = lax.mul %x, %one : tensor<4xf32>
  %2 = lax.add %0, %1 : tensor<4xf32>
  return %2 : tensor<4xf32>
}

// CHECK-LABEL: func.func @mul_two
// CHECK: lax.mul
func.func @mul_two(%x: tensor<4xf32>) -> tensor<4xf32> {
  %two = lax.constant dense<2.0> : tensor<4xf32>
  %0 = lax.mul %two, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func @abs_neg
// CHECK-NEXT: %[[A:.*]] = lax.abs %arg0 : tensor<4xf32>
// CHECK-NEXT: return %[[A]]
func.func @abs_neg(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = lax.neg %x : tensor<4xf32>
  %1 = lax.abs %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// CHECK-LABEL: func.func @max_min_self
// CHECK-NEXT: %[[A:.*]] = lax.sub %arg0, %arg1
// CHECK-NEXT: return %[[A]]
func.func @max_min_self(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = lax.max %x, %x : tensor<4xf32>
  %1 = lax.min %y, %y : tensor<4xf32>
  %2 = lax.sub %0, %1 : tensor<4xf32>
  return %2 : tensor<4xf32>
}

// CHECK-LABEL: func.func @max_other
// CHECK: lax.max %arg0, %arg1
func.func @max_other(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = lax.max %x, %y : tensor<4xf32>
  return %0 : tensor<4xf32>
}
