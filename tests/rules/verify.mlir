// A rule that puts a value of another type in place of what it matched is
// stopped at its first application, with an error naming it and its file
// (without --rule-verify too: the mismatch had surfaced as a return's type
// error far from the rule):
// RUN: not kiln-opt %s --rules=%S/Inputs/breaks-ir-value.yaml --rule-verify 2>&1 | FileCheck %s
// RUN: not kiln-opt %s --rules=%S/Inputs/breaks-ir-value.yaml 2>&1 | FileCheck %s
// CHECK: verify.mlir:{{[0-9]+}}:8: error: rule 'transpose-to-operand' ({{.*}}breaks-ir-value.yaml:1:3) replaces result 0 of 'lax.transpose' of type 'tensor<{{.x.}}xf32>' with a value of type 'tensor<{{.x.}}xf32>': a rewrite must keep the types of what it replaces
// CHECK-NOT: error:
//
// A rule whose `-> T` contradicts inference (neg keeps its operand's type) is
// not applied, with a warning naming it, instead of breaking the IR:
// RUN: kiln-opt %s --rules=%S/Inputs/breaks-ir.yaml 2>&1 | FileCheck %s --check-prefix=TYPED
// TYPED: warning: rule 'transpose-to-neg' is not applied: the result type given to 'lax.neg' (tensor<{{.*}}>) differs from the inferred one (tensor<{{.*}}>)
// TYPED-NOT: error
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
