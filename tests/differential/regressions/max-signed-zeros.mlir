// Found by tests/differential (generated program 471204, reduced by
// run.py --reduce): the JIT's max(+0, -0) was -0, and 1 / max(+0, -0) -inf
// against the interpreter's +inf. The CPU pipeline's parallel branch ran
// upstream's whole arith-expand, whose arith.maximumf/minimumf expansion (a
// compare and a select) does not order -0 < +0; no arith expansion runs now
// (the parallel loops go to kiln_rt_parallel_for, with no divisions to
// expand), and LLVM's maximum/minimum intrinsics keep IEEE 754-2019's semantics. The
// reciprocals show the zeros' signs, which the comparison itself ignores at
// k > 0.
// RUN: kiln-run %s --inputs %S/Inputs/max-signed-zeros-x.npy,%S/Inputs/max-signed-zeros-y.npy --check --no-cache | FileCheck %s
// CHECK: output 0: {{.*}} values [inf, inf, inf, -inf, 1, nan]
// CHECK: output 1: {{.*}} values [-inf, -inf, inf, -inf, -1, nan]
// CHECK: output 0: matches
// CHECK: output 1: matches

func.func @main(%x: tensor<6xf32>, %y: tensor<6xf32>) -> (tensor<6xf32>, tensor<6xf32>) {
  %max = lax.max %x, %y : tensor<6xf32>
  %min = lax.min %x, %y : tensor<6xf32>
  %rmax = lax.integer_pow %max y = -1 : tensor<6xf32>
  %rmin = lax.integer_pow %min y = -1 : tensor<6xf32>
  return %rmax, %rmin : tensor<6xf32>, tensor<6xf32>
}
