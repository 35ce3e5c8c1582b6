// Found by tests/differential (generated program 351356 of seeds
// 340000-389999): log(cos(x)) at x = 1.7014117e38. libm's cos, the
// reference's, is -0.96 there, so log gives NaN; the JIT's cos is 1 (within
// the error model: cos's error is |sin x| S(x), 1e31 here), so log gives 0.
// The first-order magnitude of log cannot bound that (it is NaN where the
// reference is NaN), and the JIT comparison reported NaN against 0. Where
// an operand's error at the default k reaches the edge of the function's
// domain (0 for log, sqrt, rsqrt; -1 for log1p; 1 for acosh; +-1 for asin,
// acos, atanh, erf_inv) the magnitude is now +inf: unbounded, any value
// passes there (reference/Magnitude.cpp). An exact operand never reaches:
// a number where the reference has NaN still fails there.
// RUN: rm -rf %t && mkdir -p %t
// RUN: kiln-run %s --entry=main --check --inputs %S/Inputs/log-of-unbounded.npy | FileCheck %s
// RUN: kiln-run %s --entry=main --interpret --inputs %S/Inputs/log-of-unbounded.npy --outputs %t
// RUN: not kiln-run %s --entry=exact --interpret --inputs %S/Inputs/log-of-unbounded.npy --expect %t/out0.npy | FileCheck %s --check-prefix=EXACT
// CHECK: output 0: matches
// CHECK-SAME: unbounded (mag inf) for 1 of 2 elements
// EXACT: output 0: DIFFERS: 2 of 2 elements over the bound; first at [0]: got 88.{{[0-9]+}}, expected {{-?}}nan (NaN must be where the expected has NaN)

// %x = [1.7014117e38, 2]: log(cos(2)) is NaN exactly (cos 2 = -0.42, S =
// |x| = 2 cannot reach 0.42), in both.
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %c = lax.cos %x : tensor<2xf32>
  %l = lax.log %c : tensor<2xf32>
  return %l : tensor<2xf32>
}

// log of the input itself: exact, so a number against the reference's NaN
// is a difference (element 1: log 2 against NaN as well).
func.func @exact(%x: tensor<2xf32>) -> tensor<2xf32> {
  %l = lax.log %x : tensor<2xf32>
  return %l : tensor<2xf32>
}
