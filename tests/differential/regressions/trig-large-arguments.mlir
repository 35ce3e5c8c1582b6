// Found by tests/differential (generated program 5, reduced): the CPU
// pipeline's f32 sin/cos (upstream's polynomial approximations) reduced
// their argument in f32 and gave sin(1.7e38) = -inf, sin(1e9) = 1.8e12,
// cos(1e12) = -inf, and errors of 1e-5 at x = 100. The argument is now
// reduced exactly over the whole f32 range (lowering/MathApproximation.cpp,
// lowerF32SinCos; tests/python/test_numerics.py compares it with glibc at
// 1e16 and FLT_MAX, where a reduction modulo 2 pi in f64 had lost every
// digit, which this check's bound allows: see below). The JIT
// must agree with the reference interpreter (libm in double) under the
// error model: NaN and infinities exactly, values within k eps of their
// magnitude (for |x| = 1e9 any value in [-1, 1] is within the bound; -inf
// and 1.8e12 are not). Generated program 31 then found sin(-1.4e-45) =
// 6.2e-8 (the polynomial on negative subnormals): sin now evaluates the
// polynomial at |r| and copies the sign back.
// RUN: kiln-run %s --inputs %S/Inputs/trig-large-arguments.npy --check --no-cache | FileCheck %s
// CHECK-COUNT-2: output {{[01]}}: matches
// CHECK: worst error: {{0|[0-9.e-]+}} x bound

func.func @main(%x: tensor<15xf32>) -> (tensor<15xf32>, tensor<15xf32>) {
  %s = lax.sin %x : tensor<15xf32>
  %c = lax.cos %x : tensor<15xf32>
  return %s, %c : tensor<15xf32>, tensor<15xf32>
}
