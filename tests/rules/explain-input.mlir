// --rule-explain explains the input (it looked at the IR after rewriting,
// where the op it was asked about may be gone), names a nested op by where it
// is, and says so when no op of the root's kind exists.
// RUN: kiln-opt %s --rules=%S/Inputs/explain-nested.yaml --rule-explain=exp-of-log -o /dev/null 2>&1 | FileCheck %s
// RUN: kiln-opt %S/Inputs/empty.mlir --rules=%S/Inputs/explain-nested.yaml --rule-explain=exp-of-log -o /dev/null 2>&1 | FileCheck %s --check-prefix=NONE

func.func @f(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %l = lax.log %x : tensor<4xf32>
  // CHECK: explain-input.mlir:[[@LINE+1]]:8: remark: rule 'exp-of-log' matches
  %e = lax.exp %l : tensor<4xf32>
  %n = lax.neg %x : tensor<4xf32>
  // CHECK: explain-input.mlir:[[@LINE+1]]:8: remark: rule 'exp-of-log' does not match: operand #0 of node 'root' expects 'lax.log' but found 'lax.neg'
  %m = lax.exp %n : tensor<4xf32>
  return %e, %m : tensor<4xf32>, tensor<4xf32>
}
// NONE: remark: rule 'exp-of-log' does not match: no 'lax.exp' op (its root) in the input
