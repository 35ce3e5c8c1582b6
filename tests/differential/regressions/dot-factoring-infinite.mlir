// Found by tests/differential (generated program 1153683 of the campaign
// 1057000+, on an Intel Xeon with AVX-512; reduced by run.py --reduce): a
// small dot of a broadcast exp2 overflow by constants was inf in the JIT
// where every order of its sum gives NaN. LLVM's code generator read the
// `reassoc contract` of the dot's adds as a licence for algebra: x*c1 + x*c2
// became fma(x, c1, x*c2), then x*(c1 + c2), and with x = inf and the c of
// both signs that is inf, not inf - inf. The JIT now clears `reassoc` from
// every float add, subtract, multiply, divide and negation after LLVM's
// optimizer (which used it to vectorize the sums), before code generation
// (compiler/HostJit.cpp).
// Hand-derived: row 1 of %a has 0x426A4D53 = 58.58, so %n[1] = sum of its
// squares > 3431 and exp2 of it is +inf; inf times [-3, -0.033, 95.4, 1.2]
// has products -inf and +inf, whose sum is NaN in any order. Row 0's sum of
// squares is 3.967 (exp2: 15.643), times the constants' sum 93.533: 1463.16.
// RUN: kiln-run %s --interpret | FileCheck %s
// RUN: kiln-run %s --no-cache --check | FileCheck %s --check-prefix=JIT
// CHECK: output 0: tensor<1x2x1xf32> {{.*}} values [1463.16, nan]
// JIT: output 0: matches

func.func @main() -> (tensor<1x2x1xf32>) {
  %a = lax.constant dense<[[[0x3E7EF9DB, 0xBFD10625, 0x3F8E76C9, 0x00000000]], [[0x426A4D53, 0xBFE4BC6A, 0x3FA72B02, 0x3F53B646]]]> : tensor<2x1x4xf32>
  %n = lax.dot_general %a, %a contracting = [2, 1] x [2, 1] batch = [0] x [0] : (tensor<2x1x4xf32>, tensor<2x1x4xf32>) -> tensor<2xf32>
  %b = lax.broadcast_in_dim %n shape = [2, 4, 1] dims = [0] : tensor<2xf32> -> tensor<2x4x1xf32>
  %e = lax.exp2 %b : tensor<2x4x1xf32>
  %c = lax.constant dense<[[[0xC0400000, 0xBD072B02, 0x42BEB993, 0x3F9A1CAC]]]> : tensor<1x1x4xf32>
  %d = lax.dot_general %e, %c contracting = [1] x [2] batch = [2] x [0] : (tensor<2x4x1xf32>, tensor<1x1x4xf32>) -> tensor<1x2x1xf32>
  return %d : tensor<1x2x1xf32>
}
