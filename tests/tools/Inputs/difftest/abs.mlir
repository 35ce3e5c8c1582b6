func.func @main(%x: tensor<6xf32>) -> tensor<6xf32> {
  %0 = lax.abs %x : tensor<6xf32>
  return %0 : tensor<6xf32>
}
