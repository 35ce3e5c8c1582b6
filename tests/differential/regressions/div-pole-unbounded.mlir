// Found by tests/differential (generated program 454068, reduced by hand):
// sin(x) / sin(x) at x = FLT_MAX is 1 in the interpreter (libm's sin: 0.52)
// and NaN in the JIT, whose sin is 0 there, within the error model (sin's
// error at FLT_MAX is anything in [-1, 1]); the checker reported NaN against
// a number. Where a divisor's error reaches 0, the pole, the quotient's
// magnitude is now +inf (unbounded, as log's at 0): any value passes there
// (also at x = 0: sin's result carries a library's absolute error, tiny /
// eps). sin(2) / sin(2) keeps a finite bound, and a divisor without error
// (the input itself) keeps 0 / 0 = NaN exact.
// RUN: kiln-run %s --inputs %S/Inputs/div-pole-unbounded.npy --check --no-cache | FileCheck %s
// CHECK: output 0: matches {{.*}}unbounded (mag inf) for 2 of 3 elements
// CHECK: output 1: matches (all equal)
// CHECK-NOT: unbounded

func.func @main(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %s = lax.sin %x : tensor<3xf32>
  %q = lax.div %s, %s : tensor<3xf32>
  %r = lax.div %x, %x : tensor<3xf32>
  return %q, %r : tensor<3xf32>, tensor<3xf32>
}
