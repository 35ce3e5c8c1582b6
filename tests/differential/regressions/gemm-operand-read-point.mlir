// Found by a new user's program (a residual MLP's gradient, reduced):
// `h = x + x @ W1; return h.T @ tanh(h @ W2)`. The runtime GEMM reads its
// operands through bufferization.to_buffer, which one-shot bufferization
// counts as the tensor's read; to_buffer is Pure, and CSE merged the last
// GEMM's to_buffer of h into the second GEMM's, before the tanh. The add
// and the tanh wrote one tensor.empty (CSE'd too), so the tanh's result
// took h's buffer, and the last GEMM multiplied tanh(h @ W2) by itself:
// 4089 of 4096 elements wrong, worst 1.08e4 x the bound. Each to_buffer
// now has its own read point (bufferReadHere, lowering/LaxToLinalg.h).
// Oracle: the reference interpreter on this program (--check), with the
// cost model's thresholds as they are and at their minimum.
// RUN: kiln-run %s --random-inputs --check --no-cache | FileCheck %s
// RUN: kiln-run %s --random-inputs --check --no-cache --min-thresholds | FileCheck %s
// CHECK: output 0: matches

func.func @main(%x: tensor<32x64xf32>, %w1: tensor<64x64xf32>, %w2: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = lax.dot_general %x, %w1 contracting = [1] x [0] batch = [] x [] {preferred_element_type = f32} : (tensor<32x64xf32>, tensor<64x64xf32>) -> tensor<32x64xf32>
  %h = lax.add %x, %0 : tensor<32x64xf32>
  %ht = lax.transpose %h permutation = [1, 0] : tensor<32x64xf32> -> tensor<64x32xf32>
  %1 = lax.dot_general %h, %w2 contracting = [1] x [0] batch = [] x [] {preferred_element_type = f32} : (tensor<32x64xf32>, tensor<64x64xf32>) -> tensor<32x64xf32>
  %t = lax.tanh %1 : tensor<32x64xf32>
  %2 = lax.dot_general %ht, %t contracting = [1] x [0] batch = [] x [] {preferred_element_type = f32} : (tensor<64x32xf32>, tensor<32x64xf32>) -> tensor<64x64xf32>
  return %2 : tensor<64x64xf32>
}
