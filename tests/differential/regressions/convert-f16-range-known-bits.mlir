// Found by tests/differential (generated program 1096771 of the campaign
// 1057000+, on a Zen 5 host; reduced by hand): an i64 value known to be a
// multiple of a large power of two, converted to f16 and widened to f32, was
// the integer in f32 (4.6e18) instead of f16's +inf. LLVM 22's InstCombine
// folds fpext(sitofp x to half) into sitofp x to float whenever x's
// significant bits (known bits: here x << 62 has at most 2) fit half's 11,
// forgetting half's exponent range. The lowering now selects +-inf itself
// for integers at or past f16's overflow threshold (65520), the
// conversion's own value there (lowering/ScalarizeElementwise.cpp).
// Hand-derived: x = [1, -1, 0, 3]; x << 62 = [2^62, -2^62, 0, -2^62] (3 << 62
// wraps to 0xC000... = -2^62); every nonzero one is past 65504, so f16 gives
// [inf, -inf, 0, -inf], and f32 the same.
// RUN: kiln-run %s --interpret --inputs %S/Inputs/convert-f16-range-known-bits.npy | FileCheck %s
// RUN: kiln-run %s --no-cache --inputs %S/Inputs/convert-f16-range-known-bits.npy --check | FileCheck %s --check-prefix=JIT
// CHECK: output 0: tensor<4xf32> {{.*}} values [inf, -inf, 0, -inf]
// JIT: output 0: matches (all equal)

func.func @main(%x: tensor<4xi64>) -> tensor<4xf32> {
  %s = lax.constant dense<62> : tensor<4xi64>
  %big = lax.shift_left %x, %s : tensor<4xi64>
  %h = lax.convert_element_type %big : tensor<4xi64> -> tensor<4xf16>
  %f = lax.convert_element_type %h : tensor<4xf16> -> tensor<4xf32>
  return %f : tensor<4xf32>
}
