// kiln-run prints each output's summary; the interpreter and the JIT agree.
// RUN: kiln-run %s --entry f --random-inputs --seed 3 --interpret | FileCheck %s --check-prefix=INTERP
// RUN: kiln-run %s --entry f --random-inputs --seed 3 --check | FileCheck %s --check-prefix=CHECKED
// INTERP: output 0: tensor<3xf32> min 2 max 4 mean 3 values [2, 3, 4]
// INTERP: output 1: tensor<2x3xf32>
// CHECKED: output 0: tensor<3xf32> min 2 max 4 mean 3 values [2, 3, 4]
// CHECKED: check against the reference interpreter
// CHECKED: output 0: matches
// CHECKED: output 1: matches
func.func @f(%a: tensor<2x3xf32>) -> (tensor<3xf32>, tensor<2x3xf32>) {
  %i = lax.iota dimension = 0 : tensor<3xf32>
  %two = lax.constant dense<2.0> : tensor<3xf32>
  %r = lax.add %i, %two : tensor<3xf32>
  %t = lax.tanh %a : tensor<2x3xf32>
  return %r, %t : tensor<3xf32>, tensor<2x3xf32>
}
