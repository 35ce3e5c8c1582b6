// Found by tests/differential (generated program 470698, reduced by
// run.py --reduce, kept as saved): an accumulating max scan, carry +NaN and
// xs of -NaN, then a bitcast of the result. kiln-scan-to-reduction builds
// max(init, reduce_max(xs)); the canonicalizer moves the constant init to
// the right of the commutative max, and the interpreter kept the first of
// two NaNs, so the bitcast changed sign under an exact pass (and under
// kiln-optimize). Of two NaNs, max and min now keep the one with the larger
// bits in any order (the interpreter, its reductions, the constant folder).
// RUN: rm -rf %t && mkdir -p %t
// RUN: kiln-run %s --interpret --outputs %t/ref
// RUN: kiln-opt %s --pass-pipeline='builtin.module(kiln-scan-to-reduction)' -o %t/after.mlir
// RUN: kiln-run %t/after.mlir --interpret --expect %t/ref/out0.npy --check-k 0
// RUN: kiln-opt %s --pass-pipeline='builtin.module(kiln-optimize)' -o %t/optimized.mlir
// RUN: kiln-run %t/optimized.mlir --interpret --expect %t/ref/out0.npy --check-k 0
func.func @main() -> (tensor<f32>) {
  %cutv4 = lax.constant dense<[[[0xFE00], [0xFE00], [0xFE00], [0xFE00], [0xFE00]], [[0xFE00], [0xFE00], [0x2FB4], [0x3D8C], [0xFE00]]]> : tensor<2x5x1xf16>
  %cutv1 = lax.constant dense<[[0xBCAA], [0xCF0D], [0xBAC3], [0xBFE2], [0xD203]]> : tensor<5x1xf16>
  %c5 = lax.constant dense<0x7E00> : tensor<f16>
  %v12 = lax.scan length = 2 carry(%c5) xs(%cutv4) : (tensor<f16>, tensor<2x5x1xf16>) -> tensor<f16> {
  ^bb0(%a6: tensor<f16>, %a7: tensor<5x1xf16>):
    %v10 = lax.reduce_max %a7 axes = [0, 1] : tensor<5x1xf16> -> tensor<f16>
    %v11 = lax.max %a6, %v10 : tensor<f16>
    lax.yield %v11 : tensor<f16>
  }
  %v18 = lax.scan length = 1 carry(%v12) xs(%cutv1) {reverse = true, xs_axes = array<i64: 1>} : (tensor<f16>, tensor<5x1xf16>) -> tensor<f16> {
  ^bb0(%a13: tensor<f16>, %a14: tensor<5xf16>):
    lax.yield %a13 : tensor<f16>
  }
  %v22 = lax.bitcast_convert_type %v18 : tensor<f16> -> tensor<bf16>
  %v26 = lax.convert_element_type %v22 : tensor<bf16> -> tensor<f32>
  return %v26 : tensor<f32>
}
