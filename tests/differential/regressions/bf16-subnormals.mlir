// Found by tests/differential (generated program 717129 of the campaign
// 712000+, on a Zen 5 host): bf16 subnormals flushed to zero by the JIT. On
// hosts with AVX512-BF16, LLVM turns every fptrunc to bfloat into
// VCVTNEPS2BF16, which flushes subnormal inputs and results: f32 1e-39
// converted to bf16 gave 0, and a bf16 reduce_min (computed in f32, then
// truncated) turned -9.18e-41 (0x8001) into -0. A narrowing
// convert_element_type rounds subnormals like any other value (the
// interpreter, and XLA). The JIT's target machine now leaves AVX512-BF16
// out. On other hosts the JIT was already right; the test compares exactly
// (--check-k 0), since the error model's k * tiny lets a bf16 subnormal
// through.
// Hand-derived: bf16 subnormals are multiples of 2^-133 = 9.18355e-41;
// 1e-39 is 10.89 of them (11: 1.01019e-39), 5e-40 is 5.44 (5: 4.59177e-40),
// 1.4e-45 is 0.00002 (0), 2e-39 is 21.78 (22: 2.02038e-39).
// RUN: kiln-run %s --interpret --inputs %S/Inputs/bf16-subnormals.npy | FileCheck %s
// RUN: kiln-run %s --inputs %S/Inputs/bf16-subnormals.npy --no-cache --check --check-k 0 | FileCheck %s --check-prefix=JIT
// CHECK: output 0: tensor<8xbf16> {{.*}} values [1.01019e-39, -9.18355e-41, 4.59177e-40, 0, 1, -1.01019e-39, ...]
// CHECK: output 1: tensor<f32> {{.*}} values [-1.01019e-39]
// JIT: output 0: matches (all equal)
// JIT: output 1: matches (all equal)

func.func @main(%x: tensor<8xf32>) -> (tensor<8xbf16>, tensor<f32>) {
  %b = lax.convert_element_type %x : tensor<8xf32> -> tensor<8xbf16>
  %m = lax.reduce_min %b axes = [0] : tensor<8xbf16> -> tensor<bf16>
  %mf = lax.convert_element_type %m : tensor<bf16> -> tensor<f32>
  return %b, %mf : tensor<8xbf16>, tensor<f32>
}
