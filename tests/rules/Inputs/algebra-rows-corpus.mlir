// Instances of rows.yaml's rules one at a time (kiln-verify-rules applies
// each rule alone).
func.func @expand_of_squeeze(%a: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %0 = lax.squeeze %a dims = [0] : tensor<1x4xf32> -> tensor<4xf32>
  %1 = lax.expand_dims %0 dims = [0] : tensor<4xf32> -> tensor<1x4xf32>
  return %1 : tensor<1x4xf32>
}
func.func @adjacent_slices(%a: tensor<5x3xf32>) -> tensor<3x3xf32> {
  %0 = lax.slice %a start = [1, 0] limit = [2, 3] strides = [1, 1] : tensor<5x3xf32> -> tensor<1x3xf32>
  %1 = lax.slice %a start = [2, 0] limit = [4, 3] strides = [1, 1] : tensor<5x3xf32> -> tensor<2x3xf32>
  %2 = lax.concatenate %0, %1 dim = 0 : (tensor<1x3xf32>, tensor<2x3xf32>) -> tensor<3x3xf32>
  return %2 : tensor<3x3xf32>
}
func.func @all_slices(%a: tensor<2x3xi32>) -> tensor<2x3xi32> {
  %0 = lax.slice %a start = [0, 0] limit = [2, 1] strides = [1, 1] : tensor<2x3xi32> -> tensor<2x1xi32>
  %1 = lax.slice %a start = [0, 1] limit = [2, 3] strides = [1, 1] : tensor<2x3xi32> -> tensor<2x2xi32>
  %2 = lax.concatenate %0, %1 dim = 1 : (tensor<2x1xi32>, tensor<2x2xi32>) -> tensor<2x3xi32>
  return %2 : tensor<2x3xi32>
}
func.func @concat_of_binary(%a: tensor<2x3xf32>, %b: tensor<1x3xf32>, %c: tensor<2x3xf32>, %d: tensor<1x3xf32>) -> tensor<3x3xf32> {
  %k0 = lax.constant dense<2.0> : tensor<2x3xf32>
  %k1 = lax.constant dense<2.0> : tensor<1x3xf32>
  %0 = lax.atan2 %a, %c : tensor<2x3xf32>
  %1 = lax.atan2 %b, %d : tensor<1x3xf32>
  %2 = lax.mul %0, %k0 : tensor<2x3xf32>
  %3 = lax.mul %1, %k1 : tensor<1x3xf32>
  %4 = lax.concatenate %2, %3 dim = 0 : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<3x3xf32>
  return %4 : tensor<3x3xf32>
}
func.func @expand_of_binary(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4x1xf32> {
  %k = lax.constant dense<-1.5> : tensor<4xf32>
  %0 = lax.sub %a, %b : tensor<4xf32>
  %1 = lax.mul %0, %k : tensor<4xf32>
  %2 = lax.expand_dims %1 dims = [1] : tensor<4xf32> -> tensor<4x1xf32>
  return %2 : tensor<4x1xf32>
}
func.func @row_broadcast(%a: tensor<2x3xf32>) -> tensor<1x2x3xf32> {
  %0 = lax.broadcast_in_dim %a shape = [1, 2, 3] dims = [1, 2] : tensor<2x3xf32> -> tensor<1x2x3xf32>
  return %0 : tensor<1x2x3xf32>
}
