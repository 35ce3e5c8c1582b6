// Found by tests/differential (generated program 333875 of seeds
// 320000-339999): a reassociating pass regrouped (c * t) * FLT_MAX into
// c * (t * FLT_MAX) with t = -FLT_TRUE_MIN. c * t underflows: 0.7 times the
// smallest subnormal rounds to the smallest subnormal, an absolute error of
// 0.42e-45 that FLT_MAX then scales to 1.4e-7, while the other grouping
// never underflows: -4.77e-7 against -3.34e-7. The error model's magnitude
// of a correctly rounded product now includes its absolute error (at most
// the smallest subnormal, reference/Magnitude.cpp), which the later product
// scales up, so the regrouped result is within the bound of the program
// that underflows; a result off by much more than that underflow still
// fails.
// RUN: rm -rf %t && mkdir -p %t
// RUN: kiln-run %s --entry=right --interpret --inputs %S/Inputs/magnitude-underflow.npy --outputs %t
// RUN: kiln-run %s --entry=left --interpret --inputs %S/Inputs/magnitude-underflow.npy --expect %t/out0.npy | FileCheck %s
// RUN: not kiln-run %s --entry=wrong --interpret --inputs %S/Inputs/magnitude-underflow.npy --expect %t/out0.npy | FileCheck %s --check-prefix=WRONG
// CHECK: output 0: matches
// WRONG: output 0: DIFFERS

// %x = [c, t] = [0.7, -FLT_TRUE_MIN].
func.func @left(%x: tensor<2xf32>) -> tensor<f32> {
  %c = lax.slice %x start = [0] limit = [1] strides = [1] : tensor<2xf32> -> tensor<1xf32>
  %t = lax.slice %x start = [1] limit = [2] strides = [1] : tensor<2xf32> -> tensor<1xf32>
  %big = lax.constant dense<3.40282347e+38> : tensor<1xf32>
  %ct = lax.mul %c, %t : tensor<1xf32>
  %p = lax.mul %ct, %big : tensor<1xf32>
  %r = lax.reshape %p : tensor<1xf32> -> tensor<f32>
  return %r : tensor<f32>
}

func.func @right(%x: tensor<2xf32>) -> tensor<f32> {
  %c = lax.slice %x start = [0] limit = [1] strides = [1] : tensor<2xf32> -> tensor<1xf32>
  %t = lax.slice %x start = [1] limit = [2] strides = [1] : tensor<2xf32> -> tensor<1xf32>
  %big = lax.constant dense<3.40282347e+38> : tensor<1xf32>
  %tb = lax.mul %t, %big : tensor<1xf32>
  %p = lax.mul %c, %tb : tensor<1xf32>
  %r = lax.reshape %p : tensor<1xf32> -> tensor<f32>
  return %r : tensor<f32>
}

// The underflowing grouping plus 1e-3: far beyond one subnormal times
// FLT_MAX times k (about 3e-5), although within the looser bound the model
// had before (the smallest normal number as the absolute error: 256).
func.func @wrong(%x: tensor<2xf32>) -> tensor<f32> {
  %c = lax.slice %x start = [0] limit = [1] strides = [1] : tensor<2xf32> -> tensor<1xf32>
  %t = lax.slice %x start = [1] limit = [2] strides = [1] : tensor<2xf32> -> tensor<1xf32>
  %big = lax.constant dense<3.40282347e+38> : tensor<1xf32>
  %ct = lax.mul %c, %t : tensor<1xf32>
  %p = lax.mul %ct, %big : tensor<1xf32>
  %e = lax.constant dense<1.0e-3> : tensor<1xf32>
  %pe = lax.add %p, %e : tensor<1xf32>
  %r = lax.reshape %pe : tensor<1xf32> -> tensor<f32>
  return %r : tensor<f32>
}
