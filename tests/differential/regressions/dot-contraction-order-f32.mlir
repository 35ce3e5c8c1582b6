// Found by tests/differential (generated program 102968, reduced by run.py
// --reduce, then by hand): --kiln-canonicalize-dot-general (and
// --kiln-optimize) sorts the contracting pairs ([2, 1] x [1, 2] becomes
// [1, 2] x [2, 1]), which changed the order in which the interpreter summed
// an f32 contraction in double. The products FLT_MAX * FLT_MIN (about 4) and
// 1 * FLT_MIN span more than double's 53 bits, so -4 + 1.2e-38 loses the
// small term in one order and not in the other: 15 * FLT_MIN became
// 12 * FLT_MIN, though the pass is exact. The interpreter now sums every
// float dot product exactly, rounded once (reference/InterpretContraction.cpp:
// the double sum where no addition rounds, ExactSum otherwise), so the result
// does not depend on the contraction order.
// RUN: rm -rf %t && mkdir -p %t
// RUN: kiln-run %s --random-inputs --interpret --outputs %t/ref
// RUN: kiln-opt %s --pass-pipeline='builtin.module(kiln-canonicalize-dot-general)' -o %t/after.mlir
// RUN: FileCheck %s --check-prefix=SORTED --input-file=%t/after.mlir
// RUN: kiln-run %t/after.mlir --random-inputs --interpret --expect %t/ref/out0.npy --check-k 0
// RUN: kiln-opt %s --pass-pipeline='builtin.module(kiln-optimize)' -o %t/opt.mlir
// RUN: kiln-run %t/opt.mlir --random-inputs --interpret --expect %t/ref/out0.npy --check-k 0
// The exact sums: 15 * FLT_MIN, and FLT_MIN in the second batch (no large
// term there):
// RUN: kiln-run %s --random-inputs --interpret | FileCheck %s --check-prefix=VALUE
// SORTED: contracting = [1, 2] x [2, 1]
// VALUE: values [1.76324e-37, 1.17549e-38]

func.func @main() -> tensor<2xf32> {
  // lhs[b, i, j]: the first batch holds -FLT_MAX, FLT_MAX beside 1, 2, 4, 8.
  %l = lax.constant dense<[[[0xFF7FFFFF, 0x3F800000, 0x40000000], [0x7F7FFFFF, 0x40800000, 0x41000000]], [[0x3F800000, 0x00000000, 0x00000000], [0x00000000, 0x00000000, 0x00000000]]]> : tensor<2x2x3xf32>
  %r = lax.constant dense<0x00800000> : tensor<2x3x2xf32>
  %d = lax.dot_general %l, %r contracting = [2, 1] x [1, 2] batch = [0] x [0] : (tensor<2x2x3xf32>, tensor<2x3x2xf32>) -> tensor<2xf32>
  return %d : tensor<2xf32>
}
