// Found by tests/differential (generated program 309302 of seeds
// 300000-319999, reduced by hand): a dot_general summing a -NaN term and a
// +NaN term gave the interpreter's result the sign of whichever NaN its
// order met first, so sorting the contracting dimensions
// (--kiln-canonicalize-dot-general, exact) flipped the sign bit that a
// bitcast_convert_type then showed: -4194304 (0xFFC00000) against
// 2143289344 (0x7FC00000). The interpreter's float dot is the exact sum of
// its terms, which has no order: a NaN sum is now the canonical quiet NaN
// (reference/InterpretContraction.cpp).
// RUN: rm -rf %t && mkdir -p %t
// RUN: kiln-run %s --interpret --outputs %t/ref | FileCheck %s --check-prefix=REF
// RUN: kiln-opt %s --kiln-canonicalize-dot-general -o %t/after.mlir
// RUN: FileCheck %s --input-file=%t/after.mlir
// RUN: kiln-run %t/after.mlir --interpret --expect %t/ref/out0.npy --check-k 0 | FileCheck %s --check-prefix=SAME
// REF: output 0: tensor<1xi32> {{.*}} values [2143289344]
// CHECK: contracting = [1, 2] x [1, 2]
// SAME: output 0: matches (all equal)

func.func @main() -> tensor<1xi32> {
  %ones = lax.constant dense<1.0> : tensor<1x2x2xf32>
  // [0][d1][d2]: -NaN at (0, 1), +NaN at (1, 0): the order [d2, d1] meets
  // +NaN first, the order [d1, d2] -NaN.
  %r = lax.constant dense<[[[0x3F800000, 0xFFC00000], [0x7FC00000, 0x3F800000]]]> : tensor<1x2x2xf32>
  %d = lax.dot_general %ones, %r contracting = [2, 1] x [2, 1] batch = [0] x [0] : (tensor<1x2x2xf32>, tensor<1x2x2xf32>) -> tensor<1xf32>
  %b = lax.bitcast_convert_type %d : tensor<1xf32> -> tensor<1xi32>
  return %b : tensor<1xi32>
}
