// RUN: kiln-opt %s --rules=%S/Inputs/neg-neg.yaml | FileCheck %s
// RUN: kiln-opt %s --rules=%S/Inputs/neg-neg.yaml --rule-trace --rule-stats -o /dev/null 2>&1 | FileCheck %s --check-prefix=TRACE

// CHECK-LABEL: func.func @f
// CHECK-NEXT: return %arg0
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = lax.neg %a : tensor<4xf32>
  %1 = lax.neg %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// TRACE: rule-trace: 'neg-neg' at {{.*}}first-rule.mlir:8:8
// TRACE-NEXT: before: %1 = lax.neg %0 : tensor<4xf32>
// TRACE: rule-stats:
// TRACE-NEXT: neg-neg: 1
