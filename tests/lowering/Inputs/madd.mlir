// a * b + c, elementwise: what --fp-contract may compute as one FMA.
func.func @madd(%a: tensor<8xf64>, %b: tensor<8xf64>, %c: tensor<8xf64>) -> tensor<8xf64> {
  %p = lax.mul %a, %b : tensor<8xf64>
  %s = lax.add %p, %c : tensor<8xf64>
  return %s : tensor<8xf64>
}
