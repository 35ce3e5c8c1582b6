// Found by tests/differential (generated programs 100572, 100827, 102600,
// 118714; 100572 reduced by run.py --reduce): the CPU pipeline lowered f64
// expm1 to exp(x) - 1 (MathToLLVM), which cancels for small x: expm1(0.001)
// was about 190 ulps off, beyond the error model, and expm1 of an f32
// subnormal widened to f64 (-FLT_MIN) was 0. kiln-approximate-math now
// rewrites it with Kahan's formula, (u - 1) * (x / log(u)) for u = exp(x)
// (accurate to a few ulps; +-0, subnormals, -inf, inf, overflow and NaN as
// libm gives them).
// RUN: kiln-run %s --random-inputs --check --no-cache | FileCheck %s
// CHECK: output 0: matches
// CHECK: worst error

func.func @main() -> tensor<16xf64> {
  // 0.001, -0.001, 1e-10, -FLT_MIN, the smallest subnormals, +-0, 1, -1,
  // 30, -40, 709.7 (near overflow), 710 (overflows), +-inf, NaN.
  %x = lax.constant dense<[0x3F50624DD2F1A9FC, 0xBF50624DD2F1A9FC, 0x3DDB7CDFD9D7BDBB, 0xB810000000000000, 0x0000000000000001, 0x8000000000000001, 0x0000000000000000, 0x8000000000000000, 0x3FF0000000000000, 0xBFF0000000000000, 0x403E000000000000, 0xC044000000000000, 0x40862D3333333333, 0x4086300000000000, 0x7FF0000000000000, 0xFFF0000000000000]> : tensor<16xf64>
  %r = lax.expm1 %x : tensor<16xf64>
  return %r : tensor<16xf64>
}
