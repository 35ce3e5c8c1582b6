// madd.mlir's inputs: a = 1 + 2^-30, b = 1 - 2^-30, c = -1. a * b = 1 - 2^-60
// rounds to 1 in f64, so a * b + c is 0 op by op and -2^-60 with an FMA.
func.func @inputs() -> (tensor<8xf64>, tensor<8xf64>, tensor<8xf64>) {
  %a = lax.constant dense<1.000000000931322574615478515625> : tensor<8xf64>
  %b = lax.constant dense<0.999999999068677425384521484375> : tensor<8xf64>
  %c = lax.constant dense<-1.0> : tensor<8xf64>
  return %a, %b, %c : tensor<8xf64>, tensor<8xf64>, tensor<8xf64>
}
