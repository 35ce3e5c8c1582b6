// Found by tests/differential (generated program 10062, reduced to
// expm1(iota / 0) in f16): the CPU pipeline's f32 polynomials handled NaN
// only through x86's min/max instructions; with a constant argument the
// folded polynomial gave exp(NaN) = 0 and sin(NaN) = sin(inf) = 0. NaN
// arguments now pass through explicitly (lowering/MathApproximation.cpp).
// The arguments are constants on purpose: the JIT folds them.
// RUN: kiln-run %s --random-inputs --check --no-cache | FileCheck %s
// CHECK-COUNT-8: output {{[0-7]}}: matches
// CHECK: output 8: matches (all equal)

func.func @main(%x: tensor<i8>) -> (tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<3xf16>) {
  %c = lax.constant dense<[0x7FC00000, 0xFFC00000, 0x7F800000, 0xFF800000, 0x00000001, 0x80000000, 0x42B20000]> : tensor<7xf32>
  %0 = lax.expm1 %c : tensor<7xf32>
  %1 = lax.exp %c : tensor<7xf32>
  %2 = lax.log %c : tensor<7xf32>
  %3 = lax.log1p %c : tensor<7xf32>
  %4 = lax.tanh %c : tensor<7xf32>
  %5 = lax.erf %c : tensor<7xf32>
  %6 = lax.atan %c : tensor<7xf32>
  %7 = lax.sin %c : tensor<7xf32>
  %i = lax.iota dimension = 1 : tensor<3x1xf16>
  %d = lax.constant dense<[[0x0000], [0x7BFF], [0x3CCA]]> : tensor<3x1xf16>
  %q = lax.div %i, %d : tensor<3x1xf16>
  %r = lax.reshape %q : tensor<3x1xf16> -> tensor<3xf16>
  %8 = lax.expm1 %r : tensor<3xf16>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<3xf16>
}
