// The rules run as a pass, usable inside --pass-pipeline; a directory loads
// every *.yaml in it.
// RUN: kiln-opt %s --pass-pipeline='builtin.module(kiln-apply-rules{rules=%kiln_src/rules/library})' | FileCheck %s
// RUN: kiln-opt %s --rules=%kiln_src/rules/library --canonicalize | FileCheck %s
// RUN: kiln-opt %s --pass-pipeline='builtin.module(kiln-apply-rules{rules=%kiln_src/rules/library/broadcast-reduce.yaml tags=+reassociates-float})' | FileCheck %s --check-prefix=TAGS

// CHECK-LABEL: func.func @f
// CHECK-NEXT: return %arg0
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = lax.neg %x : tensor<4xf32>
  %1 = lax.neg %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// TAGS-LABEL: func.func @g
// TAGS-NEXT: lax.reduce_sum %arg0 axes = [0, 1]
func.func @g(%x: tensor<2x3x4xf32>) -> tensor<4xf32> {
  %0 = lax.reduce_sum %x axes = [0] : tensor<2x3x4xf32> -> tensor<3x4xf32>
  %1 = lax.reduce_sum %0 axes = [0] : tensor<3x4xf32> -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
