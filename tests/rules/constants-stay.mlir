// The rules pass leaves IR that no rule touches alone: a constant in a scan
// body stays there (the greedy driver's constant CSE moved it to the top of
// the function even when no rule fired).
// RUN: kiln-opt %s --rules=%S/Inputs/neg-neg.yaml | FileCheck %s
// CHECK-LABEL: func.func @f
// CHECK-NEXT: lax.scan
// CHECK-NEXT: ^bb0
// CHECK-NEXT: lax.constant dense<2.000000e+00> : tensor<4xf32>
func.func @f(%c0: tensor<4xf32>, %xs: tensor<6x4xf32>) -> tensor<4xf32> {
  %c = lax.scan length = 6 carry(%c0) xs(%xs) : (tensor<4xf32>, tensor<6x4xf32>) -> tensor<4xf32> {
  ^bb0(%carry: tensor<4xf32>, %x: tensor<4xf32>):
    %k = lax.constant dense<2.0> : tensor<4xf32>
    %m = lax.mul %x, %k : tensor<4xf32>
    %s = lax.add %carry, %m : tensor<4xf32>
    lax.yield %s : tensor<4xf32>
  }
  return %c : tensor<4xf32>
}
