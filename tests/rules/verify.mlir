// RUN: not kiln-opt %s --rules=%S/Inputs/breaks-ir.yaml --rule-verify 2>&1 | FileCheck %s
// CHECK: error: 'lax.neg' op
// CHECK: error: rule 'transpose-to-neg' produced invalid IR
// CHECK-NOT: LLVM ERROR
// After the first broken rewrite nothing more matches (regression: the
// second transpose below used to abort with "Native PDL Rewrite failed";
// found by kiln-fuzz-rules).
func.func @f(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = lax.transpose %x permutation = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
func.func @g(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = lax.transpose %x permutation = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  %1 = lax.transpose %0 permutation = [1, 0] : tensor<3x2xf32> -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}
