// RUN: not kiln-opt %s --rules=%S/Inputs/ping-pong.yaml --rule-max-rewrites=50 2>&1 | FileCheck %s
// CHECK: error: rewrite rules did not converge after 10 iterations; rules that kept firing: 'cos-to-sin' ({{[0-9]+}}x) 'sin-to-cos' ({{[0-9]+}}x)
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = lax.sin %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
