// RUN: kiln-opt %s --rules=%S/Inputs/any-order.yaml | FileCheck %s
// RUN: kiln-opt %s --rules=%S/Inputs/any-order.yaml --dump-pdl -o /dev/null 2>&1 | FileCheck %s --check-prefix=PDL
// RUN: kiln-opt %s --rules=%S/Inputs/any-order.yaml --rule-stats -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS

// Both operand orders match: any_order expands into two PDL patterns.
// PDL: pdl.pattern @"max-of-neg-is-abs" : benefit(1)
// PDL: pdl.pattern @"max-of-neg-is-abs#1" : benefit(1)
// STATS: max-of-neg-is-abs: 2

// CHECK-LABEL: func.func @f
// CHECK-NEXT: %[[A:.*]] = lax.abs %arg0
// CHECK-NEXT: %[[B:.*]] = lax.abs %arg1
// CHECK-NEXT: lax.add %[[A]], %[[B]]
func.func @f(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %nx = lax.neg %x : tensor<4xf32>
  %a = lax.max %x, %nx : tensor<4xf32>
  %ny = lax.neg %y : tensor<4xf32>
  %b = lax.max %ny, %y : tensor<4xf32>
  %c = lax.add %a, %b : tensor<4xf32>
  return %c : tensor<4xf32>
}
