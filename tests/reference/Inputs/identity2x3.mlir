func.func @id(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = lax.neg %a : tensor<2x3xf32>
  %1 = lax.neg %0 : tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}
