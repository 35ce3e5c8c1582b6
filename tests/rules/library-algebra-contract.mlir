// The algebra library's contraction rules (rules/library/algebra/
// contractions.yaml) and the calls and constant conds they open
// (calls.yaml), on the IR that jnp.trace and jnp.diag import as, and on
// their opened forms (the instances kiln-verify-rules checks each rule on).
// RUN: kiln-opt %s --rules=%kiln_src/rules/library/algebra --rule-tags=reassociates-float | FileCheck %s
// Exact only: the calls are opened, nothing else changes.
// RUN: kiln-opt %s --rules=%kiln_src/rules/library/algebra | FileCheck %s --check-prefix=EXACT

func.func private @_where(%arg0: tensor<4x4xi1>, %arg1: tensor<4x4xf32>, %arg2: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = lax.select_n %arg0, %arg2, %arg1 : tensor<4x4xi1>, tensor<4x4xf32>, tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
func.func private @trace(%arg0: tensor<4x4xf32>) -> tensor<f32> {
  %0 = lax.iota dimension = 0 : tensor<4x4xi32>
  %1 = lax.iota dimension = 1 : tensor<4x4xi32>
  %2 = lax.constant dense<0> : tensor<4x4xi32>
  %3 = lax.add %0, %2 : tensor<4x4xi32>
  %4 = lax.compare EQ, %3, %1 : tensor<4x4xi32>
  %5 = lax.constant dense<0.000000e+00> : tensor<f32>
  %6 = lax.broadcast_in_dim %5 shape = [4, 4] dims = [] : tensor<f32> -> tensor<4x4xf32>
  %7 = call @_where(%4, %arg0, %6) : (tensor<4x4xi1>, tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %8 = lax.reduce_sum %7 axes = [0, 1] : tensor<4x4xf32> -> tensor<f32>
  return %8 : tensor<f32>
}
func.func private @diagonal(%arg0: tensor<4x4xf32>) -> tensor<4xf32> {
  %0 = lax.iota dimension = 0 : tensor<4x4xi32>
  %1 = lax.iota dimension = 1 : tensor<4x4xi32>
  %2 = lax.constant dense<0> : tensor<4x4xi32>
  %3 = lax.add %0, %2 : tensor<4x4xi32>
  %4 = lax.compare EQ, %3, %1 : tensor<4x4xi32>
  %5 = lax.convert_element_type %4 : tensor<4x4xi1> -> tensor<4x4xf32>
  %6 = lax.constant dense<1> : tensor<i32>
  %7 = lax.cond %6 (%5, %arg0) : (tensor<i32>, tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4xf32>
  branch 0 {
  ^bb0(%arg1: tensor<4x4xf32>, %arg2: tensor<4x4xf32>):
    %8 = lax.mul %arg1, %arg2 : tensor<4x4xf32>
    %9 = lax.reduce_sum %8 axes = [0] : tensor<4x4xf32> -> tensor<4xf32>
    lax.yield %9 : tensor<4xf32>
  } branch 1 {
  ^bb0(%arg1: tensor<4x4xf32>, %arg2: tensor<4x4xf32>):
    %8 = lax.iota dimension = 0 : tensor<4xi32>
    %9 = lax.iota dimension = 0 : tensor<4xi32>
    %10 = lax.constant dense<0> : tensor<4xi32>
    %11 = lax.compare LT, %8, %10 : tensor<4xi32>
    %12 = lax.constant dense<4> : tensor<4xi32>
    %13 = lax.add %8, %12 : tensor<4xi32>
    %14 = lax.select_n %11, %8, %13 : tensor<4xi1>, tensor<4xi32>, tensor<4xi32>
    %15 = lax.constant dense<0> : tensor<4xi32>
    %16 = lax.compare LT, %9, %15 : tensor<4xi32>
    %17 = lax.constant dense<4> : tensor<4xi32>
    %18 = lax.add %9, %17 : tensor<4xi32>
    %19 = lax.select_n %16, %9, %18 : tensor<4xi1>, tensor<4xi32>, tensor<4xi32>
    %20 = lax.broadcast_in_dim %14 shape = [4, 1] dims = [0] : tensor<4xi32> -> tensor<4x1xi32>
    %21 = lax.broadcast_in_dim %19 shape = [4, 1] dims = [0] : tensor<4xi32> -> tensor<4x1xi32>
    %22 = lax.concatenate %20, %21 dim = 1 : (tensor<4x1xi32>, tensor<4x1xi32>) -> tensor<4x2xi32>
    %23 = lax.gather %arg2[%22] offset_dims = [] collapsed_slice_dims = [0, 1] start_index_map = [0, 1] slice_sizes = [1, 1] mode = promise_in_bounds : (tensor<4x4xf32>, tensor<4x2xi32>) -> tensor<4xf32>
    lax.yield %23 : tensor<4xf32>
  }
  return %7 : tensor<4xf32>
}
func.func private @_diag(%arg0: tensor<4x4xf32>) -> tensor<4xf32> {
  %0 = call @diagonal(%arg0) : (tensor<4x4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// trace(A @ B.T) as JAX writes it: a call of @trace, which calls @_where.
// CHECK-LABEL: func.func @trace_jnp
// CHECK-NEXT: %[[M:.*]] = lax.mul %arg0, %arg1 : tensor<4x8xf32>
// CHECK-NEXT: %[[S:.*]] = lax.reduce_sum %[[M]] axes = [0, 1]
// CHECK-NEXT: return %[[S]]
// EXACT-LABEL: func.func @trace_jnp
// EXACT-NOT: call
// EXACT: lax.select_n
func.func @trace_jnp(%arg0: tensor<4x8xf32>, %arg1: tensor<4x8xf32>) -> tensor<f32> {
  %0 = lax.transpose %arg1 permutation = [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  %1 = lax.dot_general %arg0, %0 contracting = [1] x [0] batch = [] x [] {preferred_element_type = f32} : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %2 = call @trace(%1) : (tensor<4x4xf32>) -> tensor<f32>
  return %2 : tensor<f32>
}

// diag(A @ B): @_diag calls @diagonal, a cond on the constant 1.
// CHECK-LABEL: func.func @diag_jnp
// CHECK-NEXT: %[[T:.*]] = lax.transpose %arg1 permutation = [1, 0]
// CHECK-NEXT: %[[M:.*]] = lax.mul %arg0, %[[T]] : tensor<4x8xf32>
// CHECK-NEXT: %[[S:.*]] = lax.reduce_sum %[[M]] axes = [1]
// CHECK-NEXT: return %[[S]]
// EXACT-LABEL: func.func @diag_jnp
// EXACT-NOT: lax.cond
// EXACT: lax.gather
func.func @diag_jnp(%arg0: tensor<4x8xf32>, %arg1: tensor<8x4xf32>) -> tensor<4xf32> {
  %0 = lax.dot_general %arg0, %arg1 contracting = [1] x [0] batch = [] x [] {preferred_element_type = f32} : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %1 = call @_diag(%0) : (tensor<4x4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// sum(diag(A @ B)) is trace(A @ B): one dot_general over both axes.
// CHECK-LABEL: func.func @sum_diag_jnp
// CHECK-NEXT: %[[T:.*]] = lax.transpose %arg1 permutation = [1, 0]
// CHECK-NEXT: %[[M:.*]] = lax.mul %arg0, %[[T]]
// CHECK-NEXT: %[[S:.*]] = lax.reduce_sum %[[M]] axes = [0, 1]
// CHECK-NEXT: return %[[S]]
func.func @sum_diag_jnp(%arg0: tensor<4x8xf32>, %arg1: tensor<8x4xf32>) -> tensor<f32> {
  %0 = lax.dot_general %arg0, %arg1 contracting = [1] x [0] batch = [] x [] {preferred_element_type = f32} : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %1 = call @_diag(%0) : (tensor<4x4xf32>) -> tensor<4xf32>
  %2 = lax.reduce_sum %1 axes = [0] : tensor<4xf32> -> tensor<f32>
  return %2 : tensor<f32>
}

// The opened forms. trace(A @ B.T) (contracting [1] x [1]):
// CHECK-LABEL: func.func @trace_nt
// CHECK-NEXT: %[[M:.*]] = lax.mul %arg0, %arg1
// CHECK-NEXT: %[[S:.*]] = lax.reduce_sum %[[M]] axes = [0, 1]
// CHECK-NEXT: return %[[S]]
func.func @trace_nt(%arg0: tensor<4x8xf32>, %arg1: tensor<4x8xf32>) -> tensor<f32> {
  %0 = lax.dot_general %arg0, %arg1 contracting = [1] x [1] batch = [] x [] : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x4xf32>
  %1 = lax.iota dimension = 0 : tensor<4x4xi32>
  %2 = lax.iota dimension = 1 : tensor<4x4xi32>
  %3 = lax.compare EQ, %1, %2 : tensor<4x4xi32>
  %4 = lax.constant dense<0.000000e+00> : tensor<4x4xf32>
  %5 = lax.select_n %3, %4, %0 : tensor<4x4xi1>, tensor<4x4xf32>, tensor<4x4xf32>
  %6 = lax.reduce_sum %5 axes = [0, 1] : tensor<4x4xf32> -> tensor<f32>
  return %6 : tensor<f32>
}

// trace(A @ B) (contracting [1] x [0]): A's rows with B's columns.
// CHECK-LABEL: func.func @trace_nn
// CHECK-NEXT: %[[D:.*]] = lax.dot_general %arg0, %arg1 contracting = [0, 1] x [1, 0] batch = [] x []
// CHECK-NEXT: return %[[D]]
func.func @trace_nn(%arg0: tensor<4x8xf32>, %arg1: tensor<8x4xf32>) -> tensor<f32> {
  %0 = lax.dot_general %arg0, %arg1 contracting = [1] x [0] batch = [] x [] : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %1 = lax.iota dimension = 0 : tensor<4x4xi32>
  %2 = lax.iota dimension = 1 : tensor<4x4xi32>
  %3 = lax.compare EQ, %1, %2 : tensor<4x4xi32>
  %4 = lax.constant dense<0.000000e+00> : tensor<4x4xf32>
  %5 = lax.select_n %3, %4, %0 : tensor<4x4xi1>, tensor<4x4xf32>, tensor<4x4xf32>
  %6 = lax.reduce_sum %5 axes = [0, 1] : tensor<4x4xf32> -> tensor<f32>
  return %6 : tensor<f32>
}

// A mask other than i == j (here i < j) is no trace: left alone.
// CHECK-LABEL: func.func @not_a_trace
// CHECK: lax.dot_general
// CHECK: lax.select_n
func.func @not_a_trace(%arg0: tensor<4x8xf32>, %arg1: tensor<4x8xf32>) -> tensor<f32> {
  %0 = lax.dot_general %arg0, %arg1 contracting = [1] x [1] batch = [] x [] : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x4xf32>
  %1 = lax.iota dimension = 0 : tensor<4x4xi32>
  %2 = lax.iota dimension = 1 : tensor<4x4xi32>
  %3 = lax.compare LT, %1, %2 : tensor<4x4xi32>
  %4 = lax.constant dense<0.000000e+00> : tensor<4x4xf32>
  %5 = lax.select_n %3, %4, %0 : tensor<4x4xi1>, tensor<4x4xf32>, tensor<4x4xf32>
  %6 = lax.reduce_sum %5 axes = [0, 1] : tensor<4x4xf32> -> tensor<f32>
  return %6 : tensor<f32>
}

// diag(A @ B.T) opened (indices already simplified): rowwise dots.
// CHECK-LABEL: func.func @diag_nt
// CHECK-NEXT: %[[M:.*]] = lax.mul %arg0, %arg1
// CHECK-NEXT: %[[S:.*]] = lax.reduce_sum %[[M]] axes = [1]
// CHECK-NEXT: return %[[S]]
func.func @diag_nt(%arg0: tensor<4x8xf32>, %arg1: tensor<4x8xf32>) -> tensor<4xf32> {
  %0 = lax.dot_general %arg0, %arg1 contracting = [1] x [1] batch = [] x [] : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x4xf32>
  %1 = lax.iota dimension = 0 : tensor<4xi32>
  %2 = lax.iota dimension = 0 : tensor<4xi32>
  %3 = lax.broadcast_in_dim %1 shape = [4, 1] dims = [0] : tensor<4xi32> -> tensor<4x1xi32>
  %4 = lax.broadcast_in_dim %2 shape = [4, 1] dims = [0] : tensor<4xi32> -> tensor<4x1xi32>
  %5 = lax.concatenate %3, %4 dim = 1 : (tensor<4x1xi32>, tensor<4x1xi32>) -> tensor<4x2xi32>
  %6 = lax.gather %0[%5] offset_dims = [] collapsed_slice_dims = [0, 1] start_index_map = [0, 1] slice_sizes = [1, 1] mode = promise_in_bounds : (tensor<4x4xf32>, tensor<4x2xi32>) -> tensor<4xf32>
  return %6 : tensor<4xf32>
}

// diag(A @ B) opened.
// CHECK-LABEL: func.func @diag_nn
// CHECK-NEXT: %[[T:.*]] = lax.transpose %arg1 permutation = [1, 0]
// CHECK-NEXT: %[[M:.*]] = lax.mul %arg0, %[[T]]
// CHECK-NEXT: %[[S:.*]] = lax.reduce_sum %[[M]] axes = [1]
// CHECK-NEXT: return %[[S]]
func.func @diag_nn(%arg0: tensor<4x8xf32>, %arg1: tensor<8x4xf32>) -> tensor<4xf32> {
  %0 = lax.dot_general %arg0, %arg1 contracting = [1] x [0] batch = [] x [] : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %1 = lax.iota dimension = 0 : tensor<4xi32>
  %2 = lax.iota dimension = 0 : tensor<4xi32>
  %3 = lax.broadcast_in_dim %1 shape = [4, 1] dims = [0] : tensor<4xi32> -> tensor<4x1xi32>
  %4 = lax.broadcast_in_dim %2 shape = [4, 1] dims = [0] : tensor<4xi32> -> tensor<4x1xi32>
  %5 = lax.concatenate %3, %4 dim = 1 : (tensor<4x1xi32>, tensor<4x1xi32>) -> tensor<4x2xi32>
  %6 = lax.gather %0[%5] offset_dims = [] collapsed_slice_dims = [0, 1] start_index_map = [0, 1] slice_sizes = [1, 1] mode = promise_in_bounds : (tensor<4x4xf32>, tensor<4x2xi32>) -> tensor<4xf32>
  return %6 : tensor<4xf32>
}

// jnp.diagonal's index: where(i < 0, i + n, i) of an iota is the iota.
// CHECK-LABEL: func.func @iota_index
// CHECK-NEXT: %[[I:.*]] = lax.iota dimension = 0 : tensor<4xi32>
// CHECK-NEXT: return %[[I]]
func.func @iota_index() -> tensor<4xi32> {
  %0 = lax.iota dimension = 0 : tensor<4xi32>
  %1 = lax.constant dense<0> : tensor<4xi32>
  %2 = lax.compare LT, %0, %1 : tensor<4xi32>
  %3 = lax.constant dense<4> : tensor<4xi32>
  %4 = lax.add %0, %3 : tensor<4xi32>
  %5 = lax.select_n %2, %0, %4 : tensor<4xi1>, tensor<4xi32>, tensor<4xi32>
  return %5 : tensor<4xi32>
}

// sum(A[:, :, None] * B[None, :, :], 1) is A @ B.
// CHECK-LABEL: func.func @outer_product_sum
// CHECK-NEXT: %[[D:.*]] = lax.dot_general %arg0, %arg1 contracting = [1] x [0] batch = [] x []
// CHECK-NEXT: return %[[D]]
func.func @outer_product_sum(%arg0: tensor<4x8xf32>, %arg1: tensor<8x3xf32>) -> tensor<4x3xf32> {
  %0 = lax.broadcast_in_dim %arg0 shape = [4, 8, 3] dims = [0, 1] : tensor<4x8xf32> -> tensor<4x8x3xf32>
  %1 = lax.broadcast_in_dim %arg1 shape = [4, 8, 3] dims = [1, 2] : tensor<8x3xf32> -> tensor<4x8x3xf32>
  %2 = lax.mul %0, %1 : tensor<4x8x3xf32>
  %3 = lax.reduce_sum %2 axes = [1] : tensor<4x8x3xf32> -> tensor<4x3xf32>
  return %3 : tensor<4x3xf32>
}

// The same as jnp writes it: two broadcasts each, B[None]'s a leading unit
// axis, which rows.yaml leaves alone here (no concatenate reads it).
// CHECK-LABEL: func.func @outer_product_jnp
// CHECK-NEXT: %[[D:.*]] = lax.dot_general %arg0, %arg1 contracting = [1] x [0] batch = [] x []
// CHECK-NEXT: return %[[D]]
func.func @outer_product_jnp(%arg0: tensor<4x8xf32>, %arg1: tensor<8x3xf32>) -> tensor<4x3xf32> {
  %a = lax.broadcast_in_dim %arg0 shape = [4, 8, 1] dims = [0, 1] : tensor<4x8xf32> -> tensor<4x8x1xf32>
  %0 = lax.broadcast_in_dim %a shape = [4, 8, 3] dims = [0, 1, 2] : tensor<4x8x1xf32> -> tensor<4x8x3xf32>
  %b = lax.broadcast_in_dim %arg1 shape = [1, 8, 3] dims = [1, 2] : tensor<8x3xf32> -> tensor<1x8x3xf32>
  %1 = lax.broadcast_in_dim %b shape = [4, 8, 3] dims = [0, 1, 2] : tensor<1x8x3xf32> -> tensor<4x8x3xf32>
  %2 = lax.mul %0, %1 : tensor<4x8x3xf32>
  %3 = lax.reduce_sum %2 axes = [1] : tensor<4x8x3xf32> -> tensor<4x3xf32>
  return %3 : tensor<4x3xf32>
}

// A cond on a constant index is its branch (an index past the end runs the
// last one).
// CHECK-LABEL: func.func @cond_constant
// CHECK-NEXT: %[[N:.*]] = lax.neg %arg0
// CHECK-NEXT: return %[[N]]
func.func @cond_constant(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %i = lax.constant dense<7> : tensor<i32>
  %0 = lax.cond %i (%arg0) : (tensor<i32>, tensor<4xf32>) -> tensor<4xf32>
  branch 0 {
  ^bb0(%a: tensor<4xf32>):
    %1 = lax.abs %a : tensor<4xf32>
    lax.yield %1 : tensor<4xf32>
  } branch 1 {
  ^bb0(%a: tensor<4xf32>):
    %1 = lax.neg %a : tensor<4xf32>
    lax.yield %1 : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}
