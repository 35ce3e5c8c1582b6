// Integer division and remainder by zero and INT_MIN / -1, and float to
// integer conversion out of range, give XLA's defined results in the JIT
// (as in the interpreter) instead of a trap or poison.
// RUN: kiln-run %s --random-inputs --entry divide | FileCheck %s --check-prefix=DIV
// RUN: kiln-run %s --random-inputs --entry divide --check | FileCheck %s --check-prefix=CHECK
// RUN: kiln-run %s --random-inputs --entry convert | FileCheck %s --check-prefix=CONV
// RUN: kiln-run %s --random-inputs --entry convert --check | FileCheck %s --check-prefix=CHECK
// CHECK-NOT: DIFFERS

// x / 0 = -1, x % 0 = x, INT_MIN / -1 = INT_MIN, INT_MIN % -1 = 0; for ui32
// x / 0 is all ones.
// DIV: output 0: {{.*}} values [-1, 5, -2147483648, -3]
// DIV: output 1: {{.*}} values [7, 0, 0, -1]
// DIV: output 2: {{.*}} values [4294967295, 1500000000]
// DIV: output 3: {{.*}} values [-1, -128]
func.func @divide() -> (tensor<4xi32>, tensor<4xi32>, tensor<2xui32>, tensor<2xi8>) {
  %a = lax.constant dense<[7, 5, -2147483648, -7]> : tensor<4xi32>
  %b = lax.constant dense<[0, 1, -1, 2]> : tensor<4xi32>
  %q = lax.div %a, %b : tensor<4xi32>
  %r = lax.rem %a, %b : tensor<4xi32>
  %u = lax.constant dense<[7, 3000000000]> : tensor<2xui32>
  %v = lax.constant dense<[0, 2]> : tensor<2xui32>
  %uq = lax.div %u, %v : tensor<2xui32>
  %c = lax.constant dense<[9, -128]> : tensor<2xi8>
  %d = lax.constant dense<[0, -1]> : tensor<2xi8>
  %cq = lax.div %c, %d : tensor<2xi8>
  return %q, %r, %uq, %cq : tensor<4xi32>, tensor<4xi32>, tensor<2xui32>, tensor<2xi8>
}

// Saturating, truncating conversion; NaN becomes 0.
// CONV: output 0: {{.*}} values [2147483647, 0, -2147483648, 1, -1]
// CONV: output 1: {{.*}} values [4294967295, 0, 0, 3]
func.func @convert() -> (tensor<5xi32>, tensor<4xui32>) {
  %x = lax.constant dense<[3.0e9, 0x7FC00000, -3.0e9, 1.9, -1.9]> : tensor<5xf32>
  %i = lax.convert_element_type %x : tensor<5xf32> -> tensor<5xi32>
  %y = lax.constant dense<[5.0e9, -5.0, 0x7FC00000, 3.5]> : tensor<4xf32>
  %u = lax.convert_element_type %y : tensor<4xf32> -> tensor<4xui32>
  return %i, %u : tensor<5xi32>, tensor<4xui32>
}
