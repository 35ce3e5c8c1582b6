// Found by tests/differential (generated program 1061, reduced to
// -reduce_min(atan2(x, x)) at x = -inf): the CPU pipeline's f32 math
// against the reference interpreter on hard values (+-0, +-inf, NaN,
// subnormals, the largest floats, values near exp's overflow). It found
// atan2(-inf, -inf) = NaN (upstream's polynomial; -3 pi / 4 expected) and
// then log(1e-45) = -87.3 (the polynomial reads a subnormal's exponent as
// a normal one; -103.3 expected). atan2 now calls libm; log and log2 scale
// subnormal arguments first (lowering/MathApproximation.cpp).
// RUN: split-file %s %t
// RUN: kiln-run %t/unary.mlir --inputs %S/Inputs/math-special-values.npy --check --no-cache | FileCheck %s --check-prefix=UNARY
// RUN: kiln-run %t/binary.mlir --inputs %S/Inputs/math-special-values.a.npy,%S/Inputs/math-special-values.b.npy --check --no-cache | FileCheck %s --check-prefix=BINARY
// UNARY-COUNT-9: output {{[0-8]}}: matches
// BINARY-COUNT-2: output {{[01]}}: matches
// The inputs: 27 values; binary.mlir takes every pair of them.

//--- unary.mlir
func.func @main(%x: tensor<27xf32>) -> (tensor<27xf32>, tensor<27xf32>, tensor<27xf32>, tensor<27xf32>, tensor<27xf32>, tensor<27xf32>, tensor<27xf32>, tensor<27xf32>, tensor<27xf32>) {
  %0 = lax.exp %x : tensor<27xf32>
  %1 = lax.expm1 %x : tensor<27xf32>
  %2 = lax.log %x : tensor<27xf32>
  %3 = lax.log1p %x : tensor<27xf32>
  %4 = lax.tanh %x : tensor<27xf32>
  %5 = lax.erf %x : tensor<27xf32>
  %6 = lax.atan %x : tensor<27xf32>
  %7 = lax.logistic %x : tensor<27xf32>
  %8 = lax.exp2 %x : tensor<27xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<27xf32>, tensor<27xf32>, tensor<27xf32>, tensor<27xf32>, tensor<27xf32>, tensor<27xf32>, tensor<27xf32>, tensor<27xf32>, tensor<27xf32>
}

//--- binary.mlir
func.func @main(%a: tensor<729xf32>, %b: tensor<729xf32>) -> (tensor<729xf32>, tensor<729xf32>) {
  %0 = lax.atan2 %a, %b : tensor<729xf32>
  %1 = lax.pow %a, %b : tensor<729xf32>
  return %0, %1 : tensor<729xf32>, tensor<729xf32>
}
