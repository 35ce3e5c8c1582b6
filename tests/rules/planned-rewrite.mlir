// A new op reading another new op can only be typed while rewriting: such a
// rule aborted kiln-opt ("LLVM ERROR: Native PDL Rewrite failed") where the
// types did not work out. It now runs through the planned rewriter: nothing
// changes where it cannot be typed. A type given with `->` that inference
// contradicts is not applied, with a warning naming the rule.
// RUN: kiln-opt %s --rules=%S/Inputs/chained-new-ops.yaml 2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=WARN < %t.err
// RUN: kiln-opt %s --rules=%S/Inputs/chained-new-ops.yaml --dump-pdl -o /dev/null 2>&1 | FileCheck %s --check-prefix=PDL

// CHECK-LABEL: func.func @f
// CHECK-NEXT: %[[A:.*]] = lax.neg %arg0 : tensor<4x4xf32>
// CHECK-NEXT: %[[B:.*]] = lax.neg %arg0 : tensor<4x4xf32>
// CHECK-NEXT: %[[C:.*]] = lax.neg %[[B]] : tensor<4x4xf32>
// CHECK-NEXT: %[[D:.*]] = lax.sin %arg1 : tensor<4xf32>
// CHECK-NEXT: return %[[A]], %[[C]], %[[D]]
// WARN: planned-rewrite.mlir:[[@LINE+6]]:8: warning: rule 'wrong-type' is not applied: the result type given to 'lax.cos' (tensor<4xf64>) differs from the inferred one (tensor<4xf32>)
// WARN-NOT: LLVM ERROR
// PDL: // rule 'chained-transposes' creates ops whose types are known only while rewriting
func.func @f(%x: tensor<4x4xf32>, %y: tensor<4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4xf32>) {
  %0 = lax.neg %x : tensor<4x4xf32>
  %1 = lax.abs %x : tensor<4x4xf32>
  %2 = lax.sin %y : tensor<4xf32>
  return %0, %1, %2 : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4xf32>
}
