// Found by tests/differential (generated program 1158154 of the campaign
// 1057000+, on an Intel Xeon with AVX-512 (emeraldrapids); reduced by
// run.py --reduce): the last element of min(x, c * (select(true, c) | x))
// was 0 in the JIT where it is 1. LLVM's SLP vectorizer packed the fully
// unrolled elementwise code into vectors with constant lanes; its IR is
// right (lane 3 of 0 - (x | <0, 0, 0, -1>) is 1), and LLVM 22's x86 code
// generator drops the constant lane (`llc -mcpu=emeraldrapids` on the JIT's
// module, KILN_DUMP_LLVM_IR). The JIT no longer runs the SLP vectorizer
// (compiler/HostJit.cpp): Kiln's own lowering emits the vector code of its
// hot loops, and LLVM's loop vectorizer the rest.
// Hand-derived: x = 1 everywhere, so %v9 is true, %v11 = c, and output 2 is
// min(1, c * (c | 1)): c = -1 gives (-1)(-1) = 1, c = 0 gives 0, and every
// other constant a positive product (INT32_MIN + 1 squared wraps to 1).
// RUN: kiln-run %s --interpret --inputs %S/Inputs/slp-or-constant-lane.npy | FileCheck %s
// RUN: kiln-run %s --no-cache --inputs %S/Inputs/slp-or-constant-lane.npy --check | FileCheck %s --check-prefix=JIT
// The last row of output 2 is output 4: c = [-2, -6, 0, 0, -1] gives
// [1, 1, 0, 0, 1].
// CHECK: output 4: tensor<1x1x5xi32> {{.*}} values [1, 1, 0, 0, 1]
// JIT-COUNT-5: matches (all equal)

func.func @main(%cutv3: tensor<1x5xi32>) -> (tensor<1x5xi32>, tensor<1x5xi64>, tensor<4x1x5xi32>, tensor<4x1x5xi32>, tensor<1x1x5xi32>) {
  %cutv1 = lax.constant dense<[[1, 1, 1, 1, 1]]> : tensor<1x5xi32>
  %v2 = lax.not %cutv1 : tensor<1x5xi32>
  %v7 = lax.broadcast_in_dim %cutv3 shape = [4, 1, 5] dims = [1, 2] : tensor<1x5xi32> -> tensor<4x1x5xi32>
  %v9 = lax.compare GE, %v7, %v7 : tensor<4x1x5xi32>
  %c10 = lax.constant dense<[[[-1, 0, -2147483647, -6, -4]], [[-2, -1, -5, -2, -4]], [[0, 2147483647, -1, 1, -2]], [[-2, -6, 0, 0, -1]]]> : tensor<4x1x5xi32>
  %v11 = lax.select_n %v9, %v7, %c10 : tensor<4x1x5xi1>, tensor<4x1x5xi32>, tensor<4x1x5xi32>
  %v12 = lax.or %v11, %v7 : tensor<4x1x5xi32>
  %v15 = lax.mul %c10, %v12 : tensor<4x1x5xi32>
  %v16 = lax.argmax %v7 axes = [0] : tensor<4x1x5xi32> -> tensor<1x5xi64>
  %v17 = lax.min %v7, %v15 : tensor<4x1x5xi32>
  %v18 = lax.convert_element_type %v9 : tensor<4x1x5xi1> -> tensor<4x1x5xi32>
  %v19 = lax.shift_right_arithmetic %v18, %v11 : tensor<4x1x5xi32>
  %last = lax.slice %v17 start = [3, 0, 0] limit = [4, 1, 5] strides = [1, 1, 1] : tensor<4x1x5xi32> -> tensor<1x1x5xi32>
  return %v2, %v16, %v17, %v19, %last : tensor<1x5xi32>, tensor<1x5xi64>, tensor<4x1x5xi32>, tensor<4x1x5xi32>, tensor<1x1x5xi32>
}
