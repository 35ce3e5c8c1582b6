// Found by tests/differential (generated program 316727 of seeds
// 300000-319999, reduced): converting ui32 4286578687 (0xFF7FFFFF) to
// bf16, the interpreter rounded once (4278190080) and the JIT twice, through
// f32 (2^32: LLVM computes bf16 through f32), except where a constant was
// folded (once again). XLA converts to bf16 and f16 through f32 (jax.jit
// gives 2^32, and 1.0 for f64 1 + 2^-8 + 2^-30, whose single rounding is
// 1.0078125); that is now the semantics of lax.convert_element_type in the
// interpreter and the JIT, at run time and folded (the JAX corpus program
// convert_to_bf16_through_f32 compares with jax.jit).
// RUN: kiln-run %s --entry=main --interpret --inputs %S/Inputs/convert-bf16-f64.npy,%S/Inputs/convert-bf16-ui32.npy,%S/Inputs/convert-bf16-i64.npy | FileCheck %s
// RUN: kiln-run %s --entry=main --inputs %S/Inputs/convert-bf16-f64.npy,%S/Inputs/convert-bf16-ui32.npy,%S/Inputs/convert-bf16-i64.npy --check --no-cache | FileCheck %s --check-prefix=JIT
// RUN: kiln-run %s --entry=folded --check --no-cache | FileCheck %s --check-prefix=FOLDED
// f64 [1 + 2^-8 + 2^-30, 1 + 2^-8]: both 1 through f32.
// CHECK: output 0: tensor<2xf32> {{.*}} values [1, 1]
// ui32 [4286578687, 16777217], i64 [2^63 - 1, 4286578687].
// CHECK: output 1: tensor<2xf32> {{.*}} values [4.29497e+09, 1.67772e+07]
// CHECK: output 2: tensor<2xf32> {{.*}} values [9.22337e+18, 4.29497e+09]
// JIT: output 0: matches (all equal)
// JIT: output 1: matches (all equal)
// JIT: output 2: matches (all equal)
// FOLDED: output 0: tensor<2xf32> {{.*}} values [1, 1]
// FOLDED: output 1: tensor<2xf32> {{.*}} values [4.29497e+09, 1.67772e+07]
// FOLDED: output 0: matches (all equal)
// FOLDED: output 1: matches (all equal)

func.func @main(%d: tensor<2xf64>, %u: tensor<2xui32>, %l: tensor<2xi64>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %db = lax.convert_element_type %d : tensor<2xf64> -> tensor<2xbf16>
  %dr = lax.convert_element_type %db : tensor<2xbf16> -> tensor<2xf32>
  %ub = lax.convert_element_type %u : tensor<2xui32> -> tensor<2xbf16>
  %ur = lax.convert_element_type %ub : tensor<2xbf16> -> tensor<2xf32>
  %lb = lax.convert_element_type %l : tensor<2xi64> -> tensor<2xbf16>
  %lr = lax.convert_element_type %lb : tensor<2xbf16> -> tensor<2xf32>
  return %dr, %ur, %lr : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

// The same conversions of constants, which the JIT folds.
func.func @folded() -> (tensor<2xf32>, tensor<2xf32>) {
  %d = lax.constant dense<[0x3FF0100004000000, 0x3FF0100000000000]> : tensor<2xf64>
  %db = lax.convert_element_type %d : tensor<2xf64> -> tensor<2xbf16>
  %dr = lax.convert_element_type %db : tensor<2xbf16> -> tensor<2xf32>
  %u = lax.constant dense<[4286578687, 16777217]> : tensor<2xui32>
  %ub = lax.convert_element_type %u : tensor<2xui32> -> tensor<2xbf16>
  %ur = lax.convert_element_type %ub : tensor<2xbf16> -> tensor<2xf32>
  return %dr, %ur : tensor<2xf32>, tensor<2xf32>
}
