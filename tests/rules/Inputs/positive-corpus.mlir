func.func @explog(%x: tensor<8xf32>) -> tensor<8xf32> {
  %l = lax.log %x : tensor<8xf32>
  %e = lax.exp %l : tensor<8xf32>
  return %e : tensor<8xf32>
}
func.func @sum3(%a: tensor<64xf32>, %b: tensor<64xf32>, %c: tensor<64xf32>) -> tensor<64xf32> {
  %0 = lax.add %a, %b : tensor<64xf32>
  %1 = lax.add %0, %c : tensor<64xf32>
  return %1 : tensor<64xf32>
}
