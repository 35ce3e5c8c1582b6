// Found by tests/differential (generated program 20578, reduced): the CPU
// pipeline lowered f64 log1p to log(1 + x) (MathToLLVM), which cancels for
// small x: log1p(0.001) was about 500 ulps off, beyond the error model.
// kiln-approximate-math now rewrites it with Goldberg's formula (accurate to
// a few ulps; -0, -1, inf and NaN as libm gives them).
// RUN: kiln-run %s --inputs %S/Inputs/log1p-f64.npy --check --no-cache | FileCheck %s
// CHECK: output 0: matches

func.func @main(%x: tensor<10xf64>) -> tensor<10xf64> {
  %r = lax.log1p %x : tensor<10xf64>
  return %r : tensor<10xf64>
}
