// RUN: kiln-opt %s --rules=%kiln_src/rules/library/transpose.yaml --rule-stats 2>%t.stats | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.stats

// CHECK-LABEL: func.func @tt
// CHECK-NEXT: %[[T:.*]] = lax.transpose %arg0 permutation = [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
// CHECK-NEXT: return %[[T]]
func.func @tt(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = lax.transpose %x permutation = [1, 2, 0] : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %1 = lax.transpose %0 permutation = [1, 2, 0] : tensor<3x4x2xf32> -> tensor<4x2x3xf32>
  return %1 : tensor<4x2x3xf32>
}

// Inverse permutations compose to the identity, which the folder removes.
// CHECK-LABEL: func.func @tt_identity
// CHECK-NEXT: return %arg0
func.func @tt_identity(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = lax.transpose %x permutation = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  %1 = lax.transpose %0 permutation = [1, 0] : tensor<3x2xf32> -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// Contracting dimension 1 of the transposed lhs is dimension 0 of %x.
// CHECK-LABEL: func.func @dot_lhs
// CHECK-NEXT: %[[D:.*]] = lax.dot_general %arg0, %arg1 contracting = [0] x [0] batch = [] x []
// CHECK-NEXT: return %[[D]]
func.func @dot_lhs(%x: tensor<5x4xf32>, %y: tensor<5x6xf32>) -> tensor<4x6xf32> {
  %t = lax.transpose %x permutation = [1, 0] : tensor<5x4xf32> -> tensor<4x5xf32>
  %d = lax.dot_general %t, %y contracting = [1] x [0] batch = [] x []
      : (tensor<4x5xf32>, tensor<5x6xf32>) -> tensor<4x6xf32>
  return %d : tensor<4x6xf32>
}

// CHECK-LABEL: func.func @dot_rhs
// CHECK-NEXT: %[[D:.*]] = lax.dot_general %arg0, %arg1 contracting = [1] x [1] batch = [] x []
func.func @dot_rhs(%x: tensor<4x5xf32>, %y: tensor<6x5xf32>) -> tensor<4x6xf32> {
  %t = lax.transpose %y permutation = [1, 0] : tensor<6x5xf32> -> tensor<5x6xf32>
  %d = lax.dot_general %x, %t contracting = [1] x [0] batch = [] x []
      : (tensor<4x5xf32>, tensor<5x6xf32>) -> tensor<4x6xf32>
  return %d : tensor<4x6xf32>
}

// Swapping the two free dimensions of the lhs would reorder the result: kept.
// CHECK-LABEL: func.func @dot_reorders
// CHECK: lax.transpose
// CHECK: lax.dot_general
func.func @dot_reorders(%x: tensor<3x4x5xf32>, %y: tensor<5x6xf32>) -> tensor<4x3x6xf32> {
  %t = lax.transpose %x permutation = [1, 0, 2] : tensor<3x4x5xf32> -> tensor<4x3x5xf32>
  %d = lax.dot_general %t, %y contracting = [2] x [0] batch = [] x []
      : (tensor<4x3x5xf32>, tensor<5x6xf32>) -> tensor<4x3x6xf32>
  return %d : tensor<4x3x6xf32>
}

// STATS: rule-stats:
// STATS-NEXT: transpose-into-dot-lhs: 1
// STATS-NEXT: transpose-into-dot-lhs-typed: 1
// STATS-NEXT: transpose-into-dot-rhs: 1
// STATS-NEXT: transpose-into-dot-rhs-typed: 1
// STATS-NEXT: transpose-of-transpose: 2

// As current JAX prints it: preferred_element_type = f32 on f32 operands (and
// i32 on i8 operands, which is kept as it is). Before the -typed rules these
// dot_generals were left alone.
// CHECK-LABEL: func.func @dot_lhs_preferred
// CHECK-NEXT: %[[D:.*]] = lax.dot_general %arg0, %arg1 contracting = [0] x [0] batch = [] x [] {preferred_element_type = f32}
// CHECK-NEXT: return %[[D]]
func.func @dot_lhs_preferred(%x: tensor<5x4xf32>, %y: tensor<5x6xf32>) -> tensor<4x6xf32> {
  %t = lax.transpose %x permutation = [1, 0] : tensor<5x4xf32> -> tensor<4x5xf32>
  %d = lax.dot_general %t, %y contracting = [1] x [0] batch = [] x [] {preferred_element_type = f32}
      : (tensor<4x5xf32>, tensor<5x6xf32>) -> tensor<4x6xf32>
  return %d : tensor<4x6xf32>
}
// CHECK-LABEL: func.func @dot_rhs_preferred_i32
// CHECK-NEXT: %[[D:.*]] = lax.dot_general %arg0, %arg1 contracting = [1] x [1] batch = [] x [] {preferred_element_type = i32}
// CHECK-NEXT: return %[[D]]
func.func @dot_rhs_preferred_i32(%x: tensor<4x5xi8>, %y: tensor<6x5xi8>) -> tensor<4x6xi32> {
  %t = lax.transpose %y permutation = [1, 0] : tensor<6x5xi8> -> tensor<5x6xi8>
  %d = lax.dot_general %x, %t contracting = [1] x [0] batch = [] x [] {preferred_element_type = i32}
      : (tensor<4x5xi8>, tensor<5x6xi8>) -> tensor<4x6xi32>
  return %d : tensor<4x6xi32>
}
