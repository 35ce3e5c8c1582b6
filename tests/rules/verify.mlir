// RUN: not kiln-opt %s --rules=%S/Inputs/breaks-ir.yaml --rule-verify 2>&1 | FileCheck %s
// CHECK: error: 'lax.neg' op
// CHECK: error: rule 'transpose-to-neg' produced invalid IR
func.func @f(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = lax.transpose %x permutation = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
