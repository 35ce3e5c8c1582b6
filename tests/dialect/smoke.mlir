// RUN: kiln-opt %s | kiln-opt | FileCheck %s
// CHECK-LABEL: func.func @transpose
// CHECK: lax.transpose %{{.*}} permutation = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
func.func @transpose(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %t = lax.transpose %a permutation = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  return %t : tensor<3x2xf32>
}
