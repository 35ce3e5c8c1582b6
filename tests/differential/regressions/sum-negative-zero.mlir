// Found by tests/differential (generated program 106, reduced): the CPU
// pipeline started float sums (reduce_sum, the contraction of dot_general)
// from +0.0, the reference interpreter from -0.0. A sum whose terms are all
// -0 (here -0 itself, and products 1e-30 * -1e-30 that round to -0) is -0
// in the interpreter and was +0 in the JIT; the division below turns the
// sign of that zero into -inf against +inf. Sums now start from -0.0, the
// IEEE identity of addition (lowering/LaxToLinalgReduce.cpp).
// RUN: kiln-run %s --inputs %S/Inputs/sum-negative-zero.a.npy,%S/Inputs/sum-negative-zero.b.npy --check --no-cache | FileCheck %s
// CHECK: output 0: tensor<2xf32> min -inf max -inf
// CHECK: output 1: tensor<1x1xf32> min -inf max -inf
// CHECK: output 0: matches (all equal)
// CHECK: output 1: matches (all equal)

func.func @main(%a: tensor<2x1xf32>, %b: tensor<1x2xf32>) -> (tensor<2xf32>, tensor<1x1xf32>) {
  %one = lax.constant dense<1.0> : tensor<2xf32>
  %s = lax.reduce_sum %a axes = [1] : tensor<2x1xf32> -> tensor<2xf32>
  %q = lax.div %one, %s : tensor<2xf32>
  %bt = lax.transpose %b permutation = [1, 0] : tensor<1x2xf32> -> tensor<2x1xf32>
  %bs = lax.slice %b start = [0, 0] limit = [1, 1] strides = [1, 1] : tensor<1x2xf32> -> tensor<1x1xf32>
  %bb = lax.reshape %bs : tensor<1x1xf32> -> tensor<1xf32>
  %b1 = lax.slice %bt start = [1, 0] limit = [2, 1] strides = [1, 1] : tensor<2x1xf32> -> tensor<1x1xf32>
  %d = lax.dot_general %bb, %b1 contracting = [0] x [0] batch = [] x [] : (tensor<1xf32>, tensor<1x1xf32>) -> tensor<1xf32>
  %dd = lax.reshape %d : tensor<1xf32> -> tensor<1x1xf32>
  %one2 = lax.constant dense<1.0> : tensor<1x1xf32>
  %q2 = lax.div %one2, %dd : tensor<1x1xf32>
  return %q, %q2 : tensor<2xf32>, tensor<1x1xf32>
}
