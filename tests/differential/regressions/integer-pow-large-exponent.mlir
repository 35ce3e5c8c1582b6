// Issue #24's listed interpreter defect: integer_pow took O(|y|) per element
// (y = 1e9 took 2 s for 3 elements) and y = INT64_MIN gave 1 for every x
// (-y overflowed). Square and multiply now; x^-n = 1 / x^n as in JAX.
// Expected values by hand: 0.5^-2^63 = 1/0 = inf, 2^-2^63 = 1/inf = 0,
// (-1)^-2^63 = 1, 0^-2^63 = -0^-2^63 = 1/+0 = inf; 0.5^1e9 = 0, 2^1e9 = inf;
// i32 wraps: 3^1000000001 mod 2^32 = -1943431165 (signed), 2^1000000001 = 0,
// (-1)^odd = -1. The whole run takes milliseconds.
// RUN: kiln-run %s --interpret --inputs %S/Inputs/integer-pow-large-exponent.x.npy,%S/Inputs/integer-pow-large-exponent.k.npy | FileCheck %s
// CHECK: output 0: tensor<6xf32> {{.*}} values [inf, 0, 1, 1, inf, inf]
// CHECK: output 1: tensor<6xf32> {{.*}} values [0, inf, 1, 1, 0, 0]
// CHECK: output 2: tensor<6xf32> {{.*}} values [0.03125, 32, -1, 1, 0, -0]
// CHECK: output 3: tensor<3xi32> {{.*}} values [-1943431165, -1, 0]
// The JIT agrees (its own square and multiply).
// RUN: kiln-run %s --inputs %S/Inputs/integer-pow-large-exponent.x.npy,%S/Inputs/integer-pow-large-exponent.k.npy --check --no-cache | FileCheck %s --check-prefix=JIT
// JIT-COUNT-4: matches

func.func @main(%x: tensor<6xf32>, %k: tensor<3xi32>) -> (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<3xi32>) {
  %a = lax.integer_pow %x y = -9223372036854775808 : tensor<6xf32>
  %b = lax.integer_pow %x y = 1000000000 : tensor<6xf32>
  %c = lax.integer_pow %x y = 5 : tensor<6xf32>
  %d = lax.integer_pow %k y = 1000000001 : tensor<3xi32>
  return %a, %b, %c, %d : tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<3xi32>
}
