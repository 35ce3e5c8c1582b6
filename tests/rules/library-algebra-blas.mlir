// The dot_general forms of reductions of products (rules/library/algebra/
// blas/), for backends where a dot beats a fused multiply-and-sum; not
// loaded with --rules=rules/library/algebra.
// RUN: kiln-opt %s --rules=%kiln_src/rules/library/algebra/blas --rule-tags=reassociates-float | FileCheck %s
// RUN: kiln-opt %s --rules=%kiln_src/rules/library/algebra --rule-tags=reassociates-float | FileCheck %s --check-prefix=FUSED

// sum(a * b) is a dot; sum(A * B, 1) rowwise dots (batch dimension 0).
// CHECK-LABEL: func.func @sum_of_product
// CHECK-NEXT: %[[D:.*]] = lax.dot_general %arg0, %arg1 contracting = [0, 1] x [0, 1] batch = [] x []
// CHECK-NEXT: %[[R:.*]] = lax.dot_general %arg0, %arg1 contracting = [1] x [1] batch = [0] x [0]
// FUSED-LABEL: func.func @sum_of_product
// FUSED-NEXT: lax.mul
// FUSED-NEXT: lax.reduce_sum
func.func @sum_of_product(%a: tensor<4x6xf32>, %b: tensor<4x6xf32>) -> (tensor<f32>, tensor<4xf32>) {
  %0 = lax.mul %a, %b : tensor<4x6xf32>
  %1 = lax.reduce_sum %0 axes = [0, 1] : tensor<4x6xf32> -> tensor<f32>
  %2 = lax.mul %a, %b : tensor<4x6xf32>
  %3 = lax.reduce_sum %2 axes = [1] : tensor<4x6xf32> -> tensor<4xf32>
  return %1, %3 : tensor<f32>, tensor<4xf32>
}

// sum(A ** 2) and sum(square(A)) are dot(A, A).
// CHECK-LABEL: func.func @sum_of_squares
// CHECK-NEXT: lax.dot_general %arg0, %arg0 contracting = [0, 1] x [0, 1] batch = [] x []
// CHECK-NEXT: lax.dot_general %arg0, %arg0 contracting = [1] x [1] batch = [0] x [0]
func.func @sum_of_squares(%a: tensor<4x6xf32>) -> (tensor<f32>, tensor<4xf32>) {
  %0 = lax.integer_pow %a y = 2 : tensor<4x6xf32>
  %1 = lax.reduce_sum %0 axes = [0, 1] : tensor<4x6xf32> -> tensor<f32>
  %2 = lax.square %a : tensor<4x6xf32>
  %3 = lax.reduce_sum %2 axes = [1] : tensor<4x6xf32> -> tensor<4xf32>
  return %1, %3 : tensor<f32>, tensor<4xf32>
}

// sum(A * x[None, :], 1) is A @ x (jnp's two broadcasts merged first).
// CHECK-LABEL: func.func @matvec
// CHECK-NEXT: %[[D:.*]] = lax.dot_general %arg0, %arg1 contracting = [1] x [0] batch = [] x []
// CHECK-NEXT: return %[[D]]
func.func @matvec(%A: tensor<4x6xf32>, %x: tensor<6xf32>) -> tensor<4xf32> {
  %0 = lax.broadcast_in_dim %x shape = [1, 6] dims = [1] : tensor<6xf32> -> tensor<1x6xf32>
  %1 = lax.broadcast_in_dim %0 shape = [4, 6] dims = [0, 1] : tensor<1x6xf32> -> tensor<4x6xf32>
  %2 = lax.mul %A, %1 : tensor<4x6xf32>
  %3 = lax.reduce_sum %2 axes = [1] : tensor<4x6xf32> -> tensor<4xf32>
  return %3 : tensor<4xf32>
}

// CHECK-LABEL: func.func @matvec_one_broadcast
// CHECK-NEXT: %[[D:.*]] = lax.dot_general %arg0, %arg1 contracting = [1] x [0] batch = [] x []
// CHECK-NEXT: return %[[D]]
func.func @matvec_one_broadcast(%A: tensor<4x6xf32>, %x: tensor<6xf32>) -> tensor<4xf32> {
  %1 = lax.broadcast_in_dim %x shape = [4, 6] dims = [1] : tensor<6xf32> -> tensor<4x6xf32>
  %2 = lax.mul %1, %A : tensor<4x6xf32>
  %3 = lax.reduce_sum %2 axes = [1] : tensor<4x6xf32> -> tensor<4xf32>
  return %3 : tensor<4xf32>
}

// The sum of a batched dot with no free dimensions contracts everything.
// CHECK-LABEL: func.func @sum_of_batched_dot
// CHECK-NEXT: %[[D:.*]] = lax.dot_general %arg0, %arg1 contracting = [0, 1] x [1, 0] batch = [] x []
// CHECK-NEXT: return %[[D]]
func.func @sum_of_batched_dot(%A: tensor<4x6xf32>, %B: tensor<6x4xf32>) -> tensor<f32> {
  %0 = lax.dot_general %A, %B contracting = [1] x [0] batch = [0] x [1] : (tensor<4x6xf32>, tensor<6x4xf32>) -> tensor<4xf32>
  %1 = lax.reduce_sum %0 axes = [0] : tensor<4xf32> -> tensor<f32>
  return %1 : tensor<f32>
}
