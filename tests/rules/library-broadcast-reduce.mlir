// RUN: kiln-opt %s --rules=%kiln_src/rules/library/broadcast-reduce.yaml | FileCheck %s --check-prefixes=CHECK,EXACT
// RUN: kiln-opt %s --rules=%kiln_src/rules/library/broadcast-reduce.yaml --rule-tags=+reassociates-float | FileCheck %s --check-prefixes=CHECK,REASSOC

// CHECK-LABEL: func.func @bcast_bcast
// CHECK-NEXT: %[[B:.*]] = lax.broadcast_in_dim %arg0 shape = [2, 3, 4] dims = [2] : tensor<4xf32> -> tensor<2x3x4xf32>
// CHECK-NEXT: return %[[B]]
func.func @bcast_bcast(%x: tensor<4xf32>) -> tensor<2x3x4xf32> {
  %0 = lax.broadcast_in_dim %x shape = [3, 4] dims = [1] : tensor<4xf32> -> tensor<3x4xf32>
  %1 = lax.broadcast_in_dim %0 shape = [2, 3, 4] dims = [1, 2] : tensor<3x4xf32> -> tensor<2x3x4xf32>
  return %1 : tensor<2x3x4xf32>
}

// Axis 0 of the inner result is axis 1 of %x.
// CHECK-LABEL: func.func @max_max
// CHECK-NEXT: %[[R:.*]] = lax.reduce_max %arg0 axes = [0, 1] : tensor<2x3x4xf32> -> tensor<4xf32>
// CHECK-NEXT: return %[[R]]
func.func @max_max(%x: tensor<2x3x4xf32>) -> tensor<4xf32> {
  %0 = lax.reduce_max %x axes = [0] : tensor<2x3x4xf32> -> tensor<3x4xf32>
  %1 = lax.reduce_max %0 axes = [0] : tensor<3x4xf32> -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// CHECK-LABEL: func.func @min_min
// CHECK-NEXT: lax.reduce_min %arg0 axes = [0, 2] : tensor<2x3x4xf32> -> tensor<3xf32>
func.func @min_min(%x: tensor<2x3x4xf32>) -> tensor<3xf32> {
  %0 = lax.reduce_min %x axes = [2] : tensor<2x3x4xf32> -> tensor<2x3xf32>
  %1 = lax.reduce_min %0 axes = [0] : tensor<2x3xf32> -> tensor<3xf32>
  return %1 : tensor<3xf32>
}

// Float sums are regrouped only when reassociates-float is enabled.
// CHECK-LABEL: func.func @sum_sum
// EXACT-NEXT: lax.reduce_sum %arg0 axes = [0]
// EXACT-NEXT: lax.reduce_sum %{{.*}} axes = [0]
// REASSOC-NEXT: lax.reduce_sum %arg0 axes = [0, 1] : tensor<2x3x4xf32> -> tensor<4xf32>
func.func @sum_sum(%x: tensor<2x3x4xf32>) -> tensor<4xf32> {
  %0 = lax.reduce_sum %x axes = [0] : tensor<2x3x4xf32> -> tensor<3x4xf32>
  %1 = lax.reduce_sum %0 axes = [0] : tensor<3x4xf32> -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// CHECK-LABEL: func.func @sum_unit
// CHECK-NEXT: %[[R:.*]] = lax.reshape %arg0 : tensor<3x1x4xf32> -> tensor<3x4xf32>
// CHECK-NEXT: return %[[R]]
func.func @sum_unit(%x: tensor<3x1x4xf32>) -> tensor<3x4xf32> {
  %0 = lax.reduce_sum %x axes = [1] : tensor<3x1x4xf32> -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
