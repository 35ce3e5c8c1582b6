// jit-unstable-outputs: 0
func.func @main(%x: tensor<4xf32>) -> (tensor<4xi32>, tensor<4xf32>) {
  %0 = lax.exp %x : tensor<4xf32>
  %1 = lax.convert_element_type %0 : tensor<4xf32> -> tensor<4xi32>
  return %1, %0 : tensor<4xi32>, tensor<4xf32>
}
// -----
// jit-unstable-outputs: 0
func.func @main(%x: tensor<4xf32>) -> tensor<4xi32> {
  %0 = lax.exp %x : tensor<4xf32>
  %1 = lax.convert_element_type %0 : tensor<4xf32> -> tensor<4xi32>
  return %1 : tensor<4xi32>
}
