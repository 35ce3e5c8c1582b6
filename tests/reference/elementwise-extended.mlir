// The elementwise ops added for the JAX corpus, on values whose results are
// derived by hand (XLA's semantics), in the interpreter and in the JIT.
// RUN: kiln-run %s --random-inputs --entry shifts --interpret | FileCheck %s --check-prefix=SHIFTS
// RUN: kiln-run %s --random-inputs --entry shifts | FileCheck %s --check-prefix=SHIFTS
// RUN: kiln-run %s --random-inputs --entry rounding --interpret | FileCheck %s --check-prefix=ROUND
// RUN: kiln-run %s --random-inputs --entry rounding | FileCheck %s --check-prefix=ROUND
// RUN: kiln-run %s --random-inputs --entry special --interpret | FileCheck %s --check-prefix=SPECIAL
// RUN: kiln-run %s --random-inputs --entry special | FileCheck %s --check-prefix=SPECIAL
// RUN: kiln-run %s --random-inputs --entry bits --interpret | FileCheck %s --check-prefix=BITS
// RUN: kiln-run %s --random-inputs --entry bits | FileCheck %s --check-prefix=BITS

// Shifts by amounts outside [0, 32) shift every bit out (XLA); a negative
// amount is a large unsigned one.
// SHIFTS: output 0: {{.*}} values [8, -2147483648, 0, 0]
// SHIFTS: output 1: {{.*}} values [1073741820, 1, 0]
// SHIFTS: output 2: {{.*}} values [-4, 0, -1]
// SHIFTS: output 3: {{.*}} values [15, 4294967295]
// SHIFTS: output 4: {{.*}} values [6, 0]
func.func @shifts() -> (tensor<4xi32>, tensor<3xi32>, tensor<3xi32>, tensor<2xui32>, tensor<2xi32>) {
  %x = lax.constant dense<[1, 1, 1, -1]> : tensor<4xi32>
  %s = lax.constant dense<[3, 31, 32, -1]> : tensor<4xi32>
  %l = lax.shift_left %x, %s : tensor<4xi32>
  %y = lax.constant dense<[-16, 16, 16]> : tensor<3xi32>
  %t = lax.constant dense<[2, 4, 40]> : tensor<3xi32>
  %r = lax.shift_right_logical %y, %t : tensor<3xi32>
  %z = lax.constant dense<[-16, 16, -1]> : tensor<3xi32>
  %u = lax.constant dense<[2, 40, 40]> : tensor<3xi32>
  %a = lax.shift_right_arithmetic %z, %u : tensor<3xi32>
  %w = lax.constant dense<[4294967295, 4294967295]> : tensor<2xui32>
  %v = lax.constant dense<[28, 0]> : tensor<2xui32>
  %q = lax.shift_right_logical %w, %v : tensor<2xui32>
  %m = lax.constant dense<[12, 10]> : tensor<2xi32>
  %n = lax.constant dense<[10, 10]> : tensor<2xi32>
  %x2 = lax.xor %m, %n : tensor<2xi32>
  return %l, %r, %a, %q, %x2 : tensor<4xi32>, tensor<3xi32>, tensor<3xi32>, tensor<2xui32>, tensor<2xi32>
}

// round: method 0 rounds halves away from zero, method 1 to even.
// ROUND: output 0: {{.*}} values [-2, -1, 0, 1, 2]
// ROUND: output 1: {{.*}} values [-1, -0, 1, 2, 3]
// ROUND: output 2: {{.*}} values [-2, -1, 1, 2, 3]
// ROUND: output 3: {{.*}} values [-2, -0, 0, 2, 2]
// ROUND: output 4: {{.*}} values [1, 0, 0, 0]
func.func @rounding() -> (tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<4xi1>) {
  %x = lax.constant dense<[-1.5, -0.5, 0.5, 1.5, 2.5]> : tensor<5xf32>
  %f = lax.floor %x : tensor<5xf32>
  %c = lax.ceil %x : tensor<5xf32>
  %r0 = lax.round %x {rounding_method = 0 : i64} : tensor<5xf32>
  %r1 = lax.round %x {rounding_method = 1 : i64} : tensor<5xf32>
  %y = lax.constant dense<[1.0, 0x7F800000, 0xFF800000, 0x7FC00000]> : tensor<4xf32>
  %fin = lax.is_finite %y : tensor<4xf32> -> tensor<4xi1>
  return %f, %c, %r0, %r1, %fin : tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<4xi1>
}

// cbrt(27) = 3, atan2(1, -1) = 3*pi/4, erf_inv(erf(0.5)) = 0.5,
// nextafter(1, 2) - 1 = 2^-23, nextafter(0, -1) - 0 = -2^-149.
// SPECIAL: output 0: {{.*}} values [3, -2]
// SPECIAL: output 1: {{.*}} values [2.35619
// SPECIAL: output 2: {{.*}} values [0.5, 0, -0.5]
// SPECIAL: output 3: {{.*}} values [1.19209e-07, -1.4013e-45]
func.func @special() -> (tensor<2xf32>, tensor<1xf32>, tensor<3xf32>, tensor<2xf32>) {
  %x = lax.constant dense<[27.0, -8.0]> : tensor<2xf32>
  %c = lax.cbrt %x : tensor<2xf32>
  %one = lax.constant dense<1.0> : tensor<1xf32>
  %mone = lax.constant dense<-1.0> : tensor<1xf32>
  %a = lax.atan2 %one, %mone : tensor<1xf32>
  %h = lax.constant dense<[0.5, 0.0, -0.5]> : tensor<3xf32>
  %e = lax.erf %h : tensor<3xf32>
  %i = lax.erf_inv %e : tensor<3xf32>
  %from = lax.constant dense<[1.0, 0.0]> : tensor<2xf32>
  %to = lax.constant dense<[2.0, -1.0]> : tensor<2xf32>
  %next = lax.nextafter %from, %to : tensor<2xf32>
  %n = lax.sub %next, %from : tensor<2xf32>
  return %c, %a, %i, %n : tensor<2xf32>, tensor<1xf32>, tensor<3xf32>, tensor<2xf32>
}

// bitcast_convert_type keeps the bits; population_count counts them.
// BITS: output 0: {{.*}} values [1065353216, -1082130432]
// BITS: output 1: {{.*}} values [32, 3]
func.func @bits() -> (tensor<2xi32>, tensor<2xi32>) {
  %x = lax.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %b = lax.bitcast_convert_type %x : tensor<2xf32> -> tensor<2xi32>
  %y = lax.constant dense<[-1, 7]> : tensor<2xi32>
  %p = lax.population_count %y : tensor<2xi32>
  return %b, %p : tensor<2xi32>, tensor<2xi32>
}
