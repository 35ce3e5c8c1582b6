// Found by tests/differential (generated program 121991, reduced by run.py
// --reduce, then by hand): the JIT's f32 sin and erf gave +0 for -0 (sin: the range
// reduction's fma(-k, pi/2, x) is +0 for k = 0, x = -0, and the polynomial
// takes its sign from it), so atan2(sin(-0), -0) was +pi where the
// interpreter has -pi, and erf(min(1, that)) 0.84 instead of -1.
// kiln-approximate-math now passes a zero argument through for the functions
// with f(+-0) = +-0 that it approximates (sin, erf, atan, tanh, expm1,
// log1p). The bits are compared (bitcasts to i32; f16 computes in f32).
// RUN: kiln-run %s --random-inputs --check --no-cache | FileCheck %s
// CHECK-COUNT-8: matches (all equal)
// CHECK: worst error: 0 x bound

func.func @main() -> (tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xf16>, tensor<f32>) {
  %z = lax.constant dense<[-0.0, 0.0]> : tensor<2xf32>
  %s = lax.sin %z : tensor<2xf32>
  %e = lax.erf %z : tensor<2xf32>
  %l = lax.log1p %z : tensor<2xf32>
  %a = lax.atan %z : tensor<2xf32>
  %t = lax.tanh %z : tensor<2xf32>
  %m = lax.expm1 %z : tensor<2xf32>
  %bs = lax.bitcast_convert_type %s : tensor<2xf32> -> tensor<2xi32>
  %be = lax.bitcast_convert_type %e : tensor<2xf32> -> tensor<2xi32>
  %bl = lax.bitcast_convert_type %l : tensor<2xf32> -> tensor<2xi32>
  %ba = lax.bitcast_convert_type %a : tensor<2xf32> -> tensor<2xi32>
  %bt = lax.bitcast_convert_type %t : tensor<2xf32> -> tensor<2xi32>
  %bm = lax.bitcast_convert_type %m : tensor<2xf32> -> tensor<2xi32>
  %h = lax.convert_element_type %z : tensor<2xf32> -> tensor<2xf16>
  %hs = lax.sin %h : tensor<2xf16>
  %he = lax.erf %hs : tensor<2xf16>
  %hl = lax.log1p %he : tensor<2xf16>
  // Generated program 121991: erf(min(1, atan2(sin(x), x))) at x = -0.
  %x = lax.constant dense<0x80000000> : tensor<f32>
  %sx = lax.sin %x : tensor<f32>
  %at = lax.atan2 %sx, %x : tensor<f32>
  %one = lax.constant dense<1.0> : tensor<f32>
  %mn = lax.min %one, %at : tensor<f32>
  %r = lax.erf %mn : tensor<f32>
  return %bs, %be, %bl, %ba, %bt, %bm, %hl, %r : tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xf16>, tensor<f32>
}
