func.func @c() -> tensor<2xf32> {
  %c = lax.constant dense<[1.5, -2.0]> : tensor<2xf32>
  return %c : tensor<2xf32>
}
