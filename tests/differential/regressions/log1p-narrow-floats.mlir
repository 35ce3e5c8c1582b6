// Found by tests/differential (generated program 414902, reduced by hand):
// the CPU pipeline lowered bf16 and f16 log1p to log(1 + x) in the narrow
// type (MathToLLVM), and 1 + x rounds to 1 for |x| below half an ulp of 1:
// log1p(0.001) in bf16 was 0 (255 ulps off), in f16 log1p(1.22e-4) was 0
// (2046 ulps). f16/bf16 log1p, rsqrt and logistic are now computed in f32
// and rounded once, as the interpreter does; checked here at k = 2 (the old
// bf16 results were 32 x that bound) and by the small f16 results' values
// (the old ones, 0.000976 and 0, were within the bound of f16's magnitudes).
// RUN: kiln-run %s --check --check-k 2 --no-cache | FileCheck %s
// CHECK: output 0: {{.*}} values [0.000999{{[0-9]*}}, 1.50{{[0-9]*}}e-05, -0.00097{{[0-9]*}}, 0.00195{{[0-9]*}}, 0.22
// CHECK: output 1: {{.*}} values [0.000999{{[0-9]*}}, 1.50{{[0-9]*}}e-05, -0.00097{{[0-9]*}}, 0.00195{{[0-9]*}}, 0.22
// CHECK: output 0: matches
// CHECK: output 1: matches
// CHECK: output 2: matches
// CHECK: output 3: matches

func.func @main() -> (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>) {
  // 0.001, 1.5e-5, -0.00097, 2^-9, 0.25, -0 in bf16 and f16
  %b = lax.constant dense<[0x3A83, 0x377C, 0xBA7F, 0x3B00, 0x3E80, 0x8000]> : tensor<6xbf16>
  %h = lax.constant dense<[0x1419, 0x00FC, 0x93F8, 0x1800, 0x3400, 0x8000]> : tensor<6xf16>
  %lb = lax.log1p %b : tensor<6xbf16>
  %lh = lax.log1p %h : tensor<6xf16>
  %sb = lax.logistic %b : tensor<6xbf16>
  %rh = lax.rsqrt %h : tensor<6xf16>
  %0 = lax.convert_element_type %lb : tensor<6xbf16> -> tensor<6xf32>
  %1 = lax.convert_element_type %lh : tensor<6xf16> -> tensor<6xf32>
  %2 = lax.convert_element_type %sb : tensor<6xbf16> -> tensor<6xf32>
  %3 = lax.convert_element_type %rh : tensor<6xf16> -> tensor<6xf32>
  return %0, %1, %2, %3 : tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>
}
