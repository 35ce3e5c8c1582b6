// Phase 0 runs to a fixpoint before phase 1 starts.
// RUN: kiln-opt %s --rules=%S/Inputs/phases.yaml --rule-stats 2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.err

// CHECK-LABEL: func.func @two
// CHECK-NEXT: return %arg0
func.func @two(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = lax.neg %x : tensor<4xf32>
  %1 = lax.neg %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// CHECK-LABEL: func.func @three
// CHECK-NEXT: lax.constant dense<-1.0
// CHECK-NEXT: lax.mul %arg0
func.func @three(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = lax.neg %x : tensor<4xf32>
  %1 = lax.neg %0 : tensor<4xf32>
  %2 = lax.neg %1 : tensor<4xf32>
  return %2 : tensor<4xf32>
}

// STATS: neg-neg: 2
// STATS: neg-to-mul: 1
