func.func @twice(%a: tensor<5xbf16>) -> (tensor<5xbf16>, tensor<5xf32>) {
  %0 = lax.add %a, %a : tensor<5xbf16>
  %1 = lax.convert_element_type %0 : tensor<5xbf16> -> tensor<5xf32>
  return %0, %1 : tensor<5xbf16>, tensor<5xf32>
}
