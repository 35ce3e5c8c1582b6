// A corpus for kiln-verify-rules: a subtraction, an addition and a transpose.
func.func @sub(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = lax.sub %x, %y : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @add(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = lax.add %x, %y : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @transpose(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = lax.transpose %x permutation = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
