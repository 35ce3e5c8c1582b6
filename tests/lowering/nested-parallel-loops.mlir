// A parallel loop nested in one that runs in parallel: an i32 batched
// matmul (no runtime GEMM for integers) whose loop order puts the output's
// last dimension inside the contraction, with enough work for the outer
// loop to be dispatched on the async runtime. Both loops were dispatched,
// every worker blocked awaiting its inner loop's tasks with no worker left
// to run them, and the JIT hung (found by kiln-difftest's
// jit-min-thresholds comparison, generated program 900071, where the
// thresholds at their minimum made a 3x1x2 dot_general do the same). Only
// the outer loop runs in parallel now (kiln-one-parallel-dimension).
// RUN: kiln-run %s --random-inputs --check | FileCheck %s
// The same with every threshold at its minimum (kiln-difftest's jit-min-thresholds).
// RUN: kiln-run %s --random-inputs --check --min-thresholds | FileCheck %s
// CHECK: output 0: matches (all equal)
func.func @main(%a: tensor<16x128x128xi32>, %b: tensor<16x128x128xi32>) -> tensor<16x128x128xi32> {
  %r = lax.dot_general %a, %b contracting = [2] x [1] batch = [0] x [0] : (tensor<16x128x128xi32>, tensor<16x128x128xi32>) -> tensor<16x128x128xi32>
  return %r : tensor<16x128x128xi32>
}
