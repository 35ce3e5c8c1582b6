// Two modules in one file, each checked on random inputs.
func.func @main(%x: tensor<3x4xf32>, %y: tensor<4x2xf32>) -> tensor<3x2xf32> {
  %0 = lax.dot_general %x, %y contracting = [1] x [0] batch = [] x [] : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
// -----
func.func @main(%x: tensor<5xi32>) -> (tensor<i32>, tensor<5xi32>) {
  %0 = lax.reduce_sum %x axes = [0] : tensor<5xi32> -> tensor<i32>
  %1 = lax.abs %x : tensor<5xi32>
  return %0, %1 : tensor<i32>, tensor<5xi32>
}
