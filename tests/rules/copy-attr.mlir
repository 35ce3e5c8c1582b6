// copy_attr(node, "name") copies an optional attribute where it is present
// and leaves it out where it is absent.
// RUN: kiln-opt %s --rules=%S/Inputs/copy-attr.yaml | FileCheck %s
// CHECK-LABEL: func.func @with
// CHECK-NEXT: lax.dot_general %arg0, %arg1 contracting = [0] x [0] batch = [] x [] {preferred_element_type = f32}
// CHECK-LABEL: func.func @without
// CHECK-NEXT: lax.dot_general %arg0, %arg1 contracting = [0] x [0] batch = [] x [] :
func.func @with(%x: tensor<5x4xf32>, %y: tensor<5x6xf32>) -> tensor<4x6xf32> {
  %t = lax.transpose %x permutation = [1, 0] : tensor<5x4xf32> -> tensor<4x5xf32>
  %d = lax.dot_general %t, %y contracting = [1] x [0] batch = [] x [] {preferred_element_type = f32}
      : (tensor<4x5xf32>, tensor<5x6xf32>) -> tensor<4x6xf32>
  return %d : tensor<4x6xf32>
}
func.func @without(%x: tensor<5x4xf32>, %y: tensor<5x6xf32>) -> tensor<4x6xf32> {
  %t = lax.transpose %x permutation = [1, 0] : tensor<5x4xf32> -> tensor<4x5xf32>
  %d = lax.dot_general %t, %y contracting = [1] x [0] batch = [] x []
      : (tensor<4x5xf32>, tensor<5x6xf32>) -> tensor<4x6xf32>
  return %d : tensor<4x6xf32>
}
// RUN: kiln-verify-rules --rules=%S/Inputs/copy-attr.yaml %s | FileCheck %s --check-prefix=VERIFY
// VERIFY: rule 'transpose-into-dot-lhs-any': 2 instance(s), max abs 0, {{.*}}: ok
