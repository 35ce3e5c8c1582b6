// Found by tests/differential (generated program 445431, reduced by hand):
// the JIT multiplied f16 and bf16 integer powers out in their own type, so
// x * x * x of f16 -78.9 overflowed to -inf and x^-3 was -0 where the
// interpreter (double, rounded once) has -2.03e-6, a subnormal; pow(x, x^-3)
// was then 1 against NaN. f16/bf16 integer_pow is now computed in f32 and
// rounded once.
// RUN: kiln-run %s --check --check-k 2 --no-cache | FileCheck %s
// CHECK: output 0: {{.*}} values [-2.02{{[0-9]*}}e-06, 1.52{{[0-9]*}}e-05, -2.02{{[0-9]*}}e-06]
// CHECK: output 0: matches
// CHECK: output 1: matches

func.func @main() -> (tensor<3xf32>, tensor<2xf32>) {
  // -78.9, 40.3, -78.9 in f16; 300 and 1e-3 in bf16
  %h = lax.constant dense<[0xD4EE, 0x510A, 0xD4EE]> : tensor<3xf16>
  %b = lax.constant dense<[0x4396, 0x3A83]> : tensor<2xbf16>
  %p = lax.integer_pow %h y = -3 : tensor<3xf16>
  %q = lax.integer_pow %b y = 5 : tensor<2xbf16>
  %0 = lax.convert_element_type %p : tensor<3xf16> -> tensor<3xf32>
  %1 = lax.convert_element_type %q : tensor<2xbf16> -> tensor<2xf32>
  return %0, %1 : tensor<3xf32>, tensor<2xf32>
}
