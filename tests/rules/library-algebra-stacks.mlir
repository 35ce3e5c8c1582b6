// The algebra library's reductions over stacks and concatenations
// (rules/library/algebra/stacks.yaml) and per-row loops stacked into one op
// (rows.yaml).
// RUN: kiln-opt %s --rules=%kiln_src/rules/library/algebra/stacks.yaml \
// RUN:   --rules=%kiln_src/rules/library/algebra/rows.yaml --rule-tags=reassociates-float,assumes-finite,assumes-no-overflow | FileCheck %s
// RUN: kiln-opt %s --rules=%kiln_src/rules/library/algebra/stacks.yaml \
// RUN:   --rules=%kiln_src/rules/library/algebra/rows.yaml | FileCheck %s --check-prefix=EXACT

// jnp.sum(jnp.stack([a, b, a]), 0): two adds (float: reassociates-float).
// CHECK-LABEL: func.func @sum_of_stack
// CHECK-NEXT: %[[S:.*]] = lax.add %arg0, %arg1
// CHECK-NEXT: %[[T:.*]] = lax.add %[[S]], %arg0
// CHECK-NEXT: return %[[T]]
// EXACT-LABEL: func.func @sum_of_stack
// EXACT: lax.reduce_sum
func.func @sum_of_stack(%a: tensor<6xf32>, %b: tensor<6xf32>) -> tensor<6xf32> {
  %0 = lax.expand_dims %a dims = [0] : tensor<6xf32> -> tensor<1x6xf32>
  %1 = lax.expand_dims %b dims = [0] : tensor<6xf32> -> tensor<1x6xf32>
  %2 = lax.expand_dims %a dims = [0] : tensor<6xf32> -> tensor<1x6xf32>
  %3 = lax.concatenate %0, %1, %2 dim = 0 : (tensor<1x6xf32>, tensor<1x6xf32>, tensor<1x6xf32>) -> tensor<3x6xf32>
  %4 = lax.reduce_sum %3 axes = [0] : tensor<3x6xf32> -> tensor<6xf32>
  return %4 : tensor<6xf32>
}

// Integer sums are exact in any order; stacked along axis 1.
// CHECK-LABEL: func.func @integer_sum_of_stack
// CHECK-NEXT: %[[S:.*]] = lax.add %arg0, %arg1
// CHECK-NEXT: return %[[S]]
// EXACT-LABEL: func.func @integer_sum_of_stack
// EXACT-NEXT: %[[S:.*]] = lax.add %arg0, %arg1
func.func @integer_sum_of_stack(%a: tensor<2x3xi32>, %b: tensor<2x3xi32>) -> tensor<2x3xi32> {
  %0 = lax.expand_dims %a dims = [1] : tensor<2x3xi32> -> tensor<2x1x3xi32>
  %1 = lax.expand_dims %b dims = [1] : tensor<2x3xi32> -> tensor<2x1x3xi32>
  %3 = lax.concatenate %0, %1 dim = 1 : (tensor<2x1x3xi32>, tensor<2x1x3xi32>) -> tensor<2x2x3xi32>
  %4 = lax.reduce_sum %3 axes = [1] : tensor<2x2x3xi32> -> tensor<2x3xi32>
  return %4 : tensor<2x3xi32>
}

// A stack reduced over another axis than the stacked one stays.
// CHECK-LABEL: func.func @sum_of_stack_other_axis
// CHECK: lax.concatenate
// CHECK: lax.reduce_sum
func.func @sum_of_stack_other_axis(%a: tensor<6xf32>, %b: tensor<6xf32>) -> tensor<2xf32> {
  %0 = lax.expand_dims %a dims = [0] : tensor<6xf32> -> tensor<1x6xf32>
  %1 = lax.expand_dims %b dims = [0] : tensor<6xf32> -> tensor<1x6xf32>
  %3 = lax.concatenate %0, %1 dim = 0 : (tensor<1x6xf32>, tensor<1x6xf32>) -> tensor<2x6xf32>
  %4 = lax.reduce_sum %3 axes = [1] : tensor<2x6xf32> -> tensor<2xf32>
  return %4 : tensor<2xf32>
}

// max and min are exact; four and five operands.
// CHECK-LABEL: func.func @max_min_of_stack
// CHECK-NEXT: %[[M1:.*]] = lax.max %arg0, %arg1
// CHECK-NEXT: %[[M2:.*]] = lax.max %[[M1]], %arg2
// CHECK-NEXT: %[[M3:.*]] = lax.max %[[M2]], %arg3
// CHECK-NEXT: %[[N1:.*]] = lax.min %arg0, %arg1
// CHECK-NEXT: %[[N2:.*]] = lax.min %[[N1]], %arg2
// CHECK-NEXT: %[[N3:.*]] = lax.min %[[N2]], %arg3
// CHECK-NEXT: %[[N4:.*]] = lax.min %[[N3]], %arg0
// CHECK-NEXT: %[[R:.*]] = lax.sub %[[M3]], %[[N4]]
// CHECK-NEXT: return %[[R]]
// EXACT-LABEL: func.func @max_min_of_stack
// EXACT-NEXT: lax.max %arg0, %arg1
func.func @max_min_of_stack(%a: tensor<6xf32>, %b: tensor<6xf32>, %c: tensor<6xf32>, %d: tensor<6xf32>) -> tensor<6xf32> {
  %0 = lax.expand_dims %a dims = [0] : tensor<6xf32> -> tensor<1x6xf32>
  %1 = lax.expand_dims %b dims = [0] : tensor<6xf32> -> tensor<1x6xf32>
  %2 = lax.expand_dims %c dims = [0] : tensor<6xf32> -> tensor<1x6xf32>
  %3 = lax.expand_dims %d dims = [0] : tensor<6xf32> -> tensor<1x6xf32>
  %4 = lax.concatenate %0, %1, %2, %3 dim = 0 : (tensor<1x6xf32>, tensor<1x6xf32>, tensor<1x6xf32>, tensor<1x6xf32>) -> tensor<4x6xf32>
  %5 = lax.reduce_max %4 axes = [0] : tensor<4x6xf32> -> tensor<6xf32>
  %e0 = lax.expand_dims %a dims = [0] : tensor<6xf32> -> tensor<1x6xf32>
  %e1 = lax.expand_dims %b dims = [0] : tensor<6xf32> -> tensor<1x6xf32>
  %e2 = lax.expand_dims %c dims = [0] : tensor<6xf32> -> tensor<1x6xf32>
  %e3 = lax.expand_dims %d dims = [0] : tensor<6xf32> -> tensor<1x6xf32>
  %e4 = lax.expand_dims %a dims = [0] : tensor<6xf32> -> tensor<1x6xf32>
  %6 = lax.concatenate %e0, %e1, %e2, %e3, %e4 dim = 0 : (tensor<1x6xf32>, tensor<1x6xf32>, tensor<1x6xf32>, tensor<1x6xf32>, tensor<1x6xf32>) -> tensor<5x6xf32>
  %7 = lax.reduce_min %6 axes = [0] : tensor<5x6xf32> -> tensor<6xf32>
  %8 = lax.sub %5, %7 : tensor<6xf32>
  return %8 : tensor<6xf32>
}

// Products: float (reassociates) and integer (exact); six and eight.
// CHECK-LABEL: func.func @prod_of_stack
// CHECK-COUNT-5: lax.mul
// CHECK-NOT: lax.reduce_prod
// CHECK-LABEL: func.func @integer_prod_of_stack
// CHECK-COUNT-7: lax.mul
// CHECK-NOT: lax.reduce_prod
func.func @prod_of_stack(%a: tensor<6xf32>, %b: tensor<6xf32>) -> tensor<6xf32> {
  %0 = lax.expand_dims %a dims = [0] : tensor<6xf32> -> tensor<1x6xf32>
  %1 = lax.expand_dims %b dims = [0] : tensor<6xf32> -> tensor<1x6xf32>
  %2 = lax.concatenate %0, %1, %0, %1, %0, %1 dim = 0 : (tensor<1x6xf32>, tensor<1x6xf32>, tensor<1x6xf32>, tensor<1x6xf32>, tensor<1x6xf32>, tensor<1x6xf32>) -> tensor<6x6xf32>
  %3 = lax.reduce_prod %2 axes = [0] : tensor<6x6xf32> -> tensor<6xf32>
  return %3 : tensor<6xf32>
}
func.func @integer_prod_of_stack(%a: tensor<6xi32>, %b: tensor<6xi32>) -> tensor<6xi32> {
  %0 = lax.expand_dims %a dims = [0] : tensor<6xi32> -> tensor<1x6xi32>
  %1 = lax.expand_dims %b dims = [0] : tensor<6xi32> -> tensor<1x6xi32>
  %2 = lax.concatenate %0, %1, %0, %1, %0, %1, %0, %1 dim = 0 : (tensor<1x6xi32>, tensor<1x6xi32>, tensor<1x6xi32>, tensor<1x6xi32>, tensor<1x6xi32>, tensor<1x6xi32>, tensor<1x6xi32>, tensor<1x6xi32>) -> tensor<8x6xi32>
  %3 = lax.reduce_prod %2 axes = [0] : tensor<8x6xi32> -> tensor<6xi32>
  return %3 : tensor<6xi32>
}

// jnp.array([a, b, c]) (broadcast_in_dim to a leading unit axis), summed.
// CHECK-LABEL: func.func @sum_of_array
// CHECK-NEXT: %[[S:.*]] = lax.add %arg0, %arg1
// CHECK-NEXT: %[[T:.*]] = lax.add %[[S]], %arg2
// CHECK-NEXT: return %[[T]]
func.func @sum_of_array(%a: tensor<6xf32>, %b: tensor<6xf32>, %c: tensor<6xf32>) -> tensor<6xf32> {
  %0 = lax.broadcast_in_dim %a shape = [1, 6] dims = [1] : tensor<6xf32> -> tensor<1x6xf32>
  %1 = lax.broadcast_in_dim %b shape = [1, 6] dims = [1] : tensor<6xf32> -> tensor<1x6xf32>
  %2 = lax.broadcast_in_dim %c shape = [1, 6] dims = [1] : tensor<6xf32> -> tensor<1x6xf32>
  %3 = lax.concatenate %0, %1, %2 dim = 0 : (tensor<1x6xf32>, tensor<1x6xf32>, tensor<1x6xf32>) -> tensor<3x6xf32>
  %4 = lax.reduce_sum %3 axes = [0] : tensor<3x6xf32> -> tensor<6xf32>
  return %4 : tensor<6xf32>
}

// A concatenate reduced over (at least) the joined axis: one reduction
// per operand.
// CHECK-LABEL: func.func @sum_of_concatenate
// CHECK-NEXT: %[[A:.*]] = lax.reduce_sum %arg0 axes = [0, 1] : tensor<4x6xf32>
// CHECK-NEXT: %[[B:.*]] = lax.reduce_sum %arg1 axes = [0, 1] : tensor<2x6xf32>
// CHECK-NEXT: %[[S:.*]] = lax.add %[[A]], %[[B]]
// CHECK-NEXT: return %[[S]]
func.func @sum_of_concatenate(%a: tensor<4x6xf32>, %b: tensor<2x6xf32>) -> tensor<f32> {
  %0 = lax.concatenate %a, %b dim = 0 : (tensor<4x6xf32>, tensor<2x6xf32>) -> tensor<6x6xf32>
  %1 = lax.reduce_sum %0 axes = [0, 1] : tensor<6x6xf32> -> tensor<f32>
  return %1 : tensor<f32>
}

// CHECK-LABEL: func.func @max_of_concatenate
// CHECK-NEXT: %[[A:.*]] = lax.reduce_max %arg0 axes = [1] : tensor<6x2xf32>
// CHECK-NEXT: %[[B:.*]] = lax.reduce_max %arg1 axes = [1] : tensor<6x3xf32>
// CHECK-NEXT: %[[M:.*]] = lax.max %[[A]], %[[B]]
// CHECK-NEXT: %[[C:.*]] = lax.reduce_max %arg0 axes = [1] : tensor<6x2xf32>
// CHECK-NEXT: %[[N:.*]] = lax.max %[[M]], %[[C]]
// CHECK-NEXT: return %[[N]]
func.func @max_of_concatenate(%a: tensor<6x2xf32>, %b: tensor<6x3xf32>) -> tensor<6xf32> {
  %0 = lax.concatenate %a, %b, %a dim = 1 : (tensor<6x2xf32>, tensor<6x3xf32>, tensor<6x2xf32>) -> tensor<6x7xf32>
  %1 = lax.reduce_max %0 axes = [1] : tensor<6x7xf32> -> tensor<6xf32>
  return %1 : tensor<6xf32>
}

// jnp.stack([jnp.tanh(A[i] * 2.0) for i in range(3)]) is jnp.tanh(A * 2.0)
// (exact: the rows' ops on the whole array).
// CHECK-LABEL: func.func @rowwise_loop
// CHECK-NEXT: %[[C:.*]] = lax.constant dense<2.000000e+00> : tensor<3x4xf32>
// CHECK-NEXT: %[[M:.*]] = lax.mul %arg0, %[[C]] : tensor<3x4xf32>
// CHECK-NEXT: %[[T:.*]] = lax.tanh %[[M]] : tensor<3x4xf32>
// CHECK-NEXT: return %[[T]]
// EXACT-LABEL: func.func @rowwise_loop
// EXACT: lax.tanh %{{.*}} : tensor<3x4xf32>
// EXACT-NEXT: return
func.func @rowwise_loop(%A: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %c = lax.constant dense<2.0> : tensor<4xf32>
  %s0 = lax.slice %A start = [0, 0] limit = [1, 4] strides = [1, 1] : tensor<3x4xf32> -> tensor<1x4xf32>
  %r0 = lax.squeeze %s0 dims = [0] : tensor<1x4xf32> -> tensor<4xf32>
  %m0 = lax.mul %r0, %c : tensor<4xf32>
  %t0 = lax.tanh %m0 : tensor<4xf32>
  %s1 = lax.slice %A start = [1, 0] limit = [2, 4] strides = [1, 1] : tensor<3x4xf32> -> tensor<1x4xf32>
  %r1 = lax.squeeze %s1 dims = [0] : tensor<1x4xf32> -> tensor<4xf32>
  %m1 = lax.mul %r1, %c : tensor<4xf32>
  %t1 = lax.tanh %m1 : tensor<4xf32>
  %s2 = lax.slice %A start = [2, 0] limit = [3, 4] strides = [1, 1] : tensor<3x4xf32> -> tensor<1x4xf32>
  %r2 = lax.squeeze %s2 dims = [0] : tensor<1x4xf32> -> tensor<4xf32>
  %m2 = lax.mul %r2, %c : tensor<4xf32>
  %t2 = lax.tanh %m2 : tensor<4xf32>
  %e0 = lax.expand_dims %t0 dims = [0] : tensor<4xf32> -> tensor<1x4xf32>
  %e1 = lax.expand_dims %t1 dims = [0] : tensor<4xf32> -> tensor<1x4xf32>
  %e2 = lax.expand_dims %t2 dims = [0] : tensor<4xf32> -> tensor<1x4xf32>
  %st = lax.concatenate %e0, %e1, %e2 dim = 0 : (tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<3x4xf32>
  return %st : tensor<3x4xf32>
}

// Rows 1..2 of 4, as jnp.array: one op on a slice of the rows.
// CHECK-LABEL: func.func @rowwise_part
// CHECK-NEXT: %[[S:.*]] = lax.slice %arg0 start = [1, 0] limit = [3, 4] strides = [1, 1]
// CHECK-NEXT: %[[E:.*]] = lax.exp %[[S]] : tensor<2x4xf32>
// CHECK-NEXT: return %[[E]]
func.func @rowwise_part(%A: tensor<4x4xf32>) -> tensor<2x4xf32> {
  %s1 = lax.slice %A start = [1, 0] limit = [2, 4] strides = [1, 1] : tensor<4x4xf32> -> tensor<1x4xf32>
  %r1 = lax.squeeze %s1 dims = [0] : tensor<1x4xf32> -> tensor<4xf32>
  %t1 = lax.exp %r1 : tensor<4xf32>
  %s2 = lax.slice %A start = [2, 0] limit = [3, 4] strides = [1, 1] : tensor<4x4xf32> -> tensor<1x4xf32>
  %r2 = lax.squeeze %s2 dims = [0] : tensor<1x4xf32> -> tensor<4xf32>
  %t2 = lax.exp %r2 : tensor<4xf32>
  %e1 = lax.broadcast_in_dim %t1 shape = [1, 4] dims = [1] : tensor<4xf32> -> tensor<1x4xf32>
  %e2 = lax.broadcast_in_dim %t2 shape = [1, 4] dims = [1] : tensor<4xf32> -> tensor<1x4xf32>
  %st = lax.concatenate %e1, %e2 dim = 0 : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<2x4xf32>
  return %st : tensor<2x4xf32>
}

// Rows taken out of order are no slice: the ops are joined, the rows stay.
// CHECK-LABEL: func.func @rows_reversed
// CHECK: lax.concatenate
// CHECK-NEXT: lax.neg %{{.*}} : tensor<2x4xf32>
func.func @rows_reversed(%A: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %s1 = lax.slice %A start = [1, 0] limit = [2, 4] strides = [1, 1] : tensor<2x4xf32> -> tensor<1x4xf32>
  %n1 = lax.neg %s1 : tensor<1x4xf32>
  %s0 = lax.slice %A start = [0, 0] limit = [1, 4] strides = [1, 1] : tensor<2x4xf32> -> tensor<1x4xf32>
  %n0 = lax.neg %s0 : tensor<1x4xf32>
  %st = lax.concatenate %n1, %n0 dim = 0 : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<2x4xf32>
  return %st : tensor<2x4xf32>
}
