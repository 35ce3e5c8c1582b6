func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = lax.neg %x : tensor<4xf32>
  %1 = lax.integer_pow %0 y = 2 : tensor<4xf32>
  %2 = lax.rev %1 dims = [0] : tensor<4xf32>
  %3 = lax.rev %2 dims = [0] : tensor<4xf32>
  return %3 : tensor<4xf32>
}
