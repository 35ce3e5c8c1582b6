// exp marked exact on purpose (a known-wrong marker): difftest-exact-outputs.test
// jit-exact-outputs: 0,1
func.func @main(%x: tensor<48xf32>, %y: tensor<48xf32>) -> (tensor<48xf32>, tensor<48xf32>, tensor<48xf32>) {
  %a = lax.mul %x, %y : tensor<48xf32>
  %b = lax.add %a, %x : tensor<48xf32>
  %c = lax.exp %b : tensor<48xf32>
  %d = lax.neg %c : tensor<48xf32>
  %e = lax.sub %x, %y : tensor<48xf32>
  %f = lax.tanh %e : tensor<48xf32>
  return %d, %e, %f : tensor<48xf32>, tensor<48xf32>, tensor<48xf32>
}
