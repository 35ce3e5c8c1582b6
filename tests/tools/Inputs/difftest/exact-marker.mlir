// Output 0 is lax.exp, which the JIT approximates (a few ulp from libm):
// marked exact on purpose, so the JIT comparison must report it.
// jit-exact-outputs: 0
func.func @main(%x: tensor<48xf32>) -> tensor<48xf32> {
  %0 = lax.exp %x : tensor<48xf32>
  return %0 : tensor<48xf32>
}
// -----
// The same program without the marker: within the error model.
func.func @main(%x: tensor<48xf32>) -> tensor<48xf32> {
  %0 = lax.exp %x : tensor<48xf32>
  return %0 : tensor<48xf32>
}
// -----
// IEEE basic operations only, f32 and bf16: bit for bit in the JIT.
// jit-exact-outputs: 0,1
func.func @main(%x: tensor<48xf32>, %y: tensor<48xbf16>) -> (tensor<48xf32>, tensor<48xbf16>) {
  %0 = lax.div %x, %x : tensor<48xf32>
  %1 = lax.mul %y, %y : tensor<48xbf16>
  %2 = lax.max %0, %x : tensor<48xf32>
  %3 = lax.sqrt %1 : tensor<48xbf16>
  return %2, %3 : tensor<48xf32>, tensor<48xbf16>
}
