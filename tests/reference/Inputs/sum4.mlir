// Sums every element of its four inputs (for scan-interpret.mlir).
func.func @sum(%a: tensor<2xf32>, %b: tensor<f32>, %c: tensor<2x3xf32>, %d: tensor<3xf32>) -> tensor<f32> {
  %sa = lax.reduce_sum %a axes = [0] : tensor<2xf32> -> tensor<f32>
  %sc = lax.reduce_sum %c axes = [0, 1] : tensor<2x3xf32> -> tensor<f32>
  %sd = lax.reduce_sum %d axes = [0] : tensor<3xf32> -> tensor<f32>
  %t0 = lax.add %sa, %b : tensor<f32>
  %t1 = lax.add %t0, %sc : tensor<f32>
  %t2 = lax.add %t1, %sd : tensor<f32>
  return %t2 : tensor<f32>
}
