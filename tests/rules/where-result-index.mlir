// Inside `where`, `s#1` means result 1 of node s (it silently meant result 0).
// RUN: kiln-opt %s --rules=%S/Inputs/result-index.yaml | FileCheck %s
// CHECK-LABEL: func.func @f
// CHECK: %[[S:.*]]:2 = lax.scan
// CHECK: lax.abs %[[S]]#1 : tensor<6x4xf32>
// CHECK-NOT: lax.neg
func.func @f(%c0: tensor<4xf32>, %xs: tensor<6x4xf32>) -> tensor<6x4xf32> {
  %c, %ys = lax.scan length = 6 carry(%c0) xs(%xs)
      : (tensor<4xf32>, tensor<6x4xf32>) -> (tensor<4xf32>, tensor<6x4xf32>) {
  ^bb0(%carry: tensor<4xf32>, %x: tensor<4xf32>):
    %s = lax.add %carry, %x : tensor<4xf32>
    lax.yield %s, %s : tensor<4xf32>, tensor<4xf32>
  }
  %n = lax.neg %ys : tensor<6x4xf32>
  return %n : tensor<6x4xf32>
}
