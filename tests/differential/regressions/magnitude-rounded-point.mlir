// Found by tests/differential (generated program 30946 of seeds 30000-31999,
// reduced): the JIT's f32 pow(FLT_MAX, cos(float(2147483646))) was reported
// 1.73 x over the error bound (1.45714022e9 against 1.45712102e9, "mag
// 2.72e-27"). The JIT was right: its cos(2^31) is 5 eps off (0x3E738621
// against the correctly rounded 0x3E738617; the model allows 64), and pow,
// exact here, multiplies that relative error by |y ln FLT_MAX| = 21, which
// the first-order rule for pow allows (S(pow) has |r ln a| S(y)). The
// magnitudes were wrong: their run computed the original program in double,
// where float(2147483646) is 2147483646 and not 2^31, cos is -0.98 and not
// 0.24, and pow is 1.4e-38: S = 2.7e-27, below |ref|. The original ops now
// run rounded to their types, as in the reference, and only the shadows in
// double (reference/Magnitude.cpp): S is taken at the reference's values.
// RUN: kiln-run %s --inputs %S/Inputs/magnitude-rounded-point.npy --check --no-cache | FileCheck %s
// CHECK: output 0: matches
// CHECK-NOT: DIFFERS

func.func @main(%i: tensor<2xi32>) -> (tensor<2xf32>) {
  %x = lax.convert_element_type %i : tensor<2xi32> -> tensor<2xf32>
  %y = lax.cos %x : tensor<2xf32>
  %big = lax.constant dense<0x7F7FFFFF> : tensor<2xf32>
  %p = lax.pow %big, %y : tensor<2xf32>
  return %p : tensor<2xf32>
}
