// Found by tests/differential (generated program 3, reduced and saved by
// run.py --reduce --save): --kiln-canonicalize-dot-general (and
// --kiln-optimize) sorts the contracting pairs ([2, 0] x [0, 1] becomes
// [0, 2] x [1, 0]), which changes the order in which the interpreter summed
// an f64 contraction: 91.363705055590628 became 91.3637050555906, though the
// pass is exact. The interpreter now sums f64 dot products exactly, rounded
// once (reference/InterpretContraction.cpp, ExactSum): the result does not
// depend on the contraction order, and the rewrite gives the same bits.
// RUN: rm -rf %t && mkdir -p %t
// RUN: kiln-run %s --interpret --inputs %S/Inputs/dot-contraction-order-f64.in0.npy --outputs %t/ref
// RUN: kiln-opt %s --pass-pipeline='builtin.module(kiln-canonicalize-dot-general)' -o %t/after.mlir
// RUN: kiln-run %t/after.mlir --interpret --inputs %S/Inputs/dot-contraction-order-f64.in0.npy --expect %t/ref/out0.npy --check-k 0
// RUN: kiln-opt %s --pass-pipeline='builtin.module(kiln-optimize)' -o %t/opt.mlir
// RUN: kiln-run %t/opt.mlir --interpret --inputs %S/Inputs/dot-contraction-order-f64.in0.npy --expect %t/ref/out0.npy --check-k 0

func.func @main(%cutc11: tensor<2x4xf64>) -> (tensor<2xf64>) {
  %cutv8 = lax.constant dense<[[[0x4027A14CDB8BBC78, 0x3FE8624DD2F1A9FC], [0x4010000000000000, 0x3FEDEB851EB851EC]], [[0x3FD676C8B4395810, 0x7FF8000000000000], [0x3FBBE76C8B439581, 0xBFDFCED916872B02]], [[0x3FF68B4395810625, 0xFFF0000000000000], [0x0000000000000000, 0xC010000000000000]], [[0x3FBDB22D0E560419, 0xBFF999999999999A], [0x3FF7A5E353F7CED9, 0x3FFFE353F7CED917]]]> : tensor<4x2x2xf64>
  %v12 = lax.dot_general %cutv8, %cutc11 contracting = [2, 0] x [0, 1] batch = [] x [] : (tensor<4x2x2xf64>, tensor<2x4xf64>) -> tensor<2xf64>
  return %v12 : tensor<2xf64>
}
