// RUN: kiln-opt --kiln-canonicalize-dot-general -split-input-file %s | FileCheck %s

// An operand transpose that keeps the free dims in order folds into the
// dimension numbers.
// CHECK-LABEL: func.func @lhs_transpose
// CHECK-NEXT: %[[D:.*]] = lax.dot_general %arg0, %arg1 contracting = [0] x [0] batch = [] x [] : (tensor<3x2xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT: return %[[D]]
func.func @lhs_transpose(%a: tensor<3x2xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %t = lax.transpose %a permutation = [1, 0] : tensor<3x2xf32> -> tensor<2x3xf32>
  %d = lax.dot_general %t, %b contracting = [1] x [0] batch = [] x [] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %d : tensor<2x4xf32>
}

// -----

// Batch dims are renamed too.
// CHECK-LABEL: func.func @rhs_transpose_batch
// CHECK-NEXT: lax.dot_general %arg0, %arg1 contracting = [2] x [2] batch = [0] x [1] : (tensor<5x2x3xf32>, tensor<4x5x3xf32>) -> tensor<5x2x4xf32>
func.func @rhs_transpose_batch(%a: tensor<5x2x3xf32>, %b: tensor<4x5x3xf32>) -> tensor<5x2x4xf32> {
  %t = lax.transpose %b permutation = [1, 2, 0] : tensor<4x5x3xf32> -> tensor<5x3x4xf32>
  %d = lax.dot_general %a, %t contracting = [2] x [1] batch = [0] x [0] : (tensor<5x2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x2x4xf32>
  return %d : tensor<5x2x4xf32>
}

// -----

// A transpose that reorders the free dims stays: folding it would change the
// result's dimension order.
// CHECK-LABEL: func.func @free_order_changes
// CHECK: lax.transpose
// CHECK: lax.dot_general
func.func @free_order_changes(%a: tensor<2x4x3xf32>, %b: tensor<3xf32>) -> tensor<4x2xf32> {
  %t = lax.transpose %a permutation = [1, 0, 2] : tensor<2x4x3xf32> -> tensor<4x2x3xf32>
  %d = lax.dot_general %t, %b contracting = [2] x [0] batch = [] x [] : (tensor<4x2x3xf32>, tensor<3xf32>) -> tensor<4x2xf32>
  return %d : tensor<4x2xf32>
}

// -----

// A result transpose to (batch, rhs free, lhs free) becomes an operand swap.
// CHECK-LABEL: func.func @result_transpose_batched
// CHECK-NEXT: %[[D:.*]] = lax.dot_general %arg1, %arg0 contracting = [1] x [2] batch = [0] x [0] : (tensor<5x3x4xf32>, tensor<5x2x3xf32>) -> tensor<5x4x2xf32>
// CHECK-NEXT: return %[[D]]
func.func @result_transpose_batched(%a: tensor<5x2x3xf32>, %b: tensor<5x3x4xf32>) -> tensor<5x4x2xf32> {
  %d = lax.dot_general %a, %b contracting = [2] x [1] batch = [0] x [0] : (tensor<5x2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x2x4xf32>
  %t = lax.transpose %d permutation = [0, 2, 1] : tensor<5x2x4xf32> -> tensor<5x4x2xf32>
  return %t : tensor<5x4x2xf32>
}

// -----

// A dot_general with other users is not swapped: that would compute it twice.
// CHECK-LABEL: func.func @result_transpose_multi_use
// CHECK: lax.dot_general
// CHECK: lax.transpose
func.func @result_transpose_multi_use(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> (tensor<4x2xf32>, tensor<2x4xf32>) {
  %d = lax.dot_general %a, %b contracting = [1] x [0] batch = [] x [] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %t = lax.transpose %d permutation = [1, 0] : tensor<2x4xf32> -> tensor<4x2xf32>
  return %t, %d : tensor<4x2xf32>, tensor<2x4xf32>
}

// -----

// Contracting pairs are sorted by lhs dimension; preferred_element_type stays.
// CHECK-LABEL: func.func @sorted_pairs
// CHECK: lax.dot_general %arg0, %arg1 contracting = [0, 1] x [1, 0] batch = [] x [] {preferred_element_type = f32}
func.func @sorted_pairs(%a: tensor<2x3x4xbf16>, %b: tensor<3x2x5xbf16>) -> tensor<4x5xf32> {
  %d = lax.dot_general %a, %b contracting = [1, 0] x [0, 1] batch = [] x [] {preferred_element_type = f32}
      : (tensor<2x3x4xbf16>, tensor<3x2x5xbf16>) -> tensor<4x5xf32>
  return %d : tensor<4x5xf32>
}
