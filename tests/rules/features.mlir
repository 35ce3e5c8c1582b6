// RUN: kiln-opt %s --rules=%S/Inputs/features.yaml --rules=%S/Inputs/multi-result.yaml | FileCheck %s

// CHECK-LABEL: func.func @sum_rows
// CHECK-NEXT: %[[T:.*]] = lax.transpose %arg0 permutation = [1, 0] : tensor<3x4xf32> -> tensor<4x3xf32>
// CHECK-NEXT: lax.reduce_sum %[[T]] axes = [1] : tensor<4x3xf32> -> tensor<4xf32>
func.func @sum_rows(%x: tensor<3x4xf32>) -> tensor<4xf32> {
  %0 = lax.reduce_sum %x axes = [0] : tensor<3x4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// f64, rank 3, or a size-5 last dimension: no match.
// CHECK-LABEL: func.func @sum_rows_no
// CHECK-NEXT: lax.reduce_sum %arg0 axes = [0] : tensor<3x4xf64>
// CHECK-NEXT: lax.reduce_sum %arg1 axes = [0] : tensor<3x4x4xf32>
// CHECK-NEXT: lax.reduce_sum %arg2 axes = [0] : tensor<3x5xf32>
func.func @sum_rows_no(%x: tensor<3x4xf64>, %y: tensor<3x4x4xf32>, %z: tensor<3x5xf32>)
    -> (tensor<4xf64>, tensor<4x4xf32>, tensor<5xf32>) {
  %0 = lax.reduce_sum %x axes = [0] : tensor<3x4xf64> -> tensor<4xf64>
  %1 = lax.reduce_sum %y axes = [0] : tensor<3x4x4xf32> -> tensor<4x4xf32>
  %2 = lax.reduce_sum %z axes = [0] : tensor<3x5xf32> -> tensor<5xf32>
  return %0, %1, %2 : tensor<4xf64>, tensor<4x4xf32>, tensor<5xf32>
}

// CHECK-LABEL: func.func @double_swap
// CHECK-NEXT: return %arg0
func.func @double_swap(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = lax.transpose %x permutation = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  %1 = lax.transpose %0 permutation = [1, 0] : tensor<3x2xf32> -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @neg
// CHECK-NEXT: %[[C:.*]] = lax.constant dense<-1.000000e+00> : tensor<4xf32>
// CHECK-NEXT: %[[M:.*]] = lax.mul %arg0, %[[C]]
// CHECK-NEXT: return %[[M]]
func.func @neg(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = lax.neg %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// Rules work on any registered dialect, and replace several results.
// CHECK-LABEL: func.func @addui
// CHECK-NEXT: %[[S:.*]] = arith.addi %arg0, %arg1 : i32
// CHECK-NEXT: %[[O:.*]] = arith.cmpi ult, %[[S]], %arg0 : i32
// CHECK-NEXT: return %[[S]], %[[O]]
func.func @addui(%x: i32, %y: i32) -> (i32, i1) {
  %s, %o = arith.addui_extended %x, %y : i32, i1
  return %s, %o : i32, i1
}
