// Found by tests/differential (generated program 2141, reduced): a
// dot_general with an elementwise producer fused into it. The contraction's
// multiply carried `reassoc`, which let LLVM fold (a + a) * 0.5 into a: for
// a = 65504 (f16's largest) the JIT gave 65504 where a + a overflows to inf
// in f16 and the reference interpreter (and jax.jit) give inf. Only the
// accumulating add is reassociable now (lowering/LaxToLinalgReduce.cpp).
// RUN: kiln-run %s --inputs %S/Inputs/dot-fused-producer-f16.npy --check --no-cache | FileCheck %s
// CHECK: output 0: tensor<1xf16> min inf max inf
// CHECK: output 0: matches (all equal)

func.func @main(%a: tensor<2xf16>) -> (tensor<1xf16>) {
  %s = lax.add %a, %a : tensor<2xf16>
  %c = lax.constant dense<0x3800> : tensor<2x1xf16>
  %d = lax.dot_general %s, %c contracting = [0] x [0] batch = [] x [] : (tensor<2xf16>, tensor<2x1xf16>) -> tensor<1xf16>
  return %d : tensor<1xf16>
}
