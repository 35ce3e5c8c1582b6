// Integer division and remainder that would trap are not folded: a zero
// divisor in any element (not only a splat), or INT_MIN / -1 (signed). The op
// stays, and the JIT gives XLA's result at run time (x / 0 = -1, x % 0 = x,
// INT_MIN / -1 = INT_MIN, INT_MIN % -1 = 0), as the interpreter does. Before
// the fix, kiln-opt itself died of SIGFPE on @div_zero_element.
// RUN: kiln-opt %s -canonicalize -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @div_zero_element
// CHECK: %[[D:.*]] = lax.div
// CHECK: %[[R:.*]] = lax.rem
// CHECK: return %[[D]], %[[R]]
func.func @div_zero_element() -> (tensor<2xi32>, tensor<2xi32>) {
  %a = lax.constant dense<[7, 5]> : tensor<2xi32>
  %b = lax.constant dense<[0, 1]> : tensor<2xi32>
  %0 = lax.div %a, %b : tensor<2xi32>
  %1 = lax.rem %a, %b : tensor<2xi32>
  return %0, %1 : tensor<2xi32>, tensor<2xi32>
}

// -----

// CHECK-LABEL: func.func @div_zero_splat
// CHECK: lax.div
// CHECK: lax.rem
func.func @div_zero_splat() -> (tensor<4xi32>, tensor<4xi32>) {
  %zero = lax.constant dense<0> : tensor<4xi32>
  %a = lax.constant dense<5> : tensor<4xi32>
  %0 = lax.div %a, %zero : tensor<4xi32>
  %1 = lax.rem %a, %zero : tensor<4xi32>
  return %0, %1 : tensor<4xi32>, tensor<4xi32>
}

// -----

// ui32: one zero divisor (0 / 0 here) keeps the whole op, even where the
// other elements would fold.
// CHECK-LABEL: func.func @zero_by_zero_ui32
// CHECK: lax.div
// CHECK: lax.rem
func.func @zero_by_zero_ui32() -> (tensor<3xui32>, tensor<3xui32>) {
  %a = lax.constant dense<[0, 4294967295, 9]> : tensor<3xui32>
  %b = lax.constant dense<[0, 1, 3]> : tensor<3xui32>
  %0 = lax.div %a, %b : tensor<3xui32>
  %1 = lax.rem %a, %b : tensor<3xui32>
  return %0, %1 : tensor<3xui32>, tensor<3xui32>
}

// -----

// INT_MIN / -1 overflows (x86's idiv traps) in every signed width.
// CHECK-LABEL: func.func @int_min_by_minus_one
// CHECK-COUNT-6: lax.{{div|rem}}
// CHECK: return
func.func @int_min_by_minus_one() -> (tensor<2xi8>, tensor<2xi8>, tensor<2xi32>, tensor<2xi32>, tensor<i64>, tensor<i64>) {
  %a8 = lax.constant dense<[6, -128]> : tensor<2xi8>
  %b8 = lax.constant dense<[3, -1]> : tensor<2xi8>
  %a32 = lax.constant dense<[-2147483648, 6]> : tensor<2xi32>
  %b32 = lax.constant dense<[-1, 3]> : tensor<2xi32>
  %a64 = lax.constant dense<-9223372036854775808> : tensor<i64>
  %b64 = lax.constant dense<-1> : tensor<i64>
  %0 = lax.div %a8, %b8 : tensor<2xi8>
  %1 = lax.rem %a8, %b8 : tensor<2xi8>
  %2 = lax.div %a32, %b32 : tensor<2xi32>
  %3 = lax.rem %a32, %b32 : tensor<2xi32>
  %4 = lax.div %a64, %b64 : tensor<i64>
  %5 = lax.rem %a64, %b64 : tensor<i64>
  return %0, %1, %2, %3, %4, %5 : tensor<2xi8>, tensor<2xi8>, tensor<2xi32>, tensor<2xi32>, tensor<i64>, tensor<i64>
}

// -----

// Next to the extremes, division folds: INT_MIN / 1, INT_MIN / -2,
// (INT_MIN + 1) / -1, and i8 -128 % 3 = -2.
// CHECK-LABEL: func.func @near_extremes_fold
// CHECK-DAG: %[[D:.*]] = lax.constant dense<[-2147483648, 1073741824, 2147483647]> : tensor<3xi32>
// CHECK-DAG: %[[R:.*]] = lax.constant dense<-2> : tensor<i8>
// CHECK-NOT: lax.div
// CHECK-NOT: lax.rem
// CHECK: return %[[D]], %[[R]]
func.func @near_extremes_fold() -> (tensor<3xi32>, tensor<i8>) {
  %a = lax.constant dense<[-2147483648, -2147483648, -2147483647]> : tensor<3xi32>
  %b = lax.constant dense<[1, -2, -1]> : tensor<3xi32>
  %0 = lax.div %a, %b : tensor<3xi32>
  %c = lax.constant dense<-128> : tensor<i8>
  %d = lax.constant dense<3> : tensor<i8>
  %1 = lax.rem %c, %d : tensor<i8>
  return %0, %1 : tensor<3xi32>, tensor<i8>
}

// -----

// Float division and remainder never trap and fold, by zero included:
// 1 / 0 = inf, -1 / +0 = -inf, 1 / -0 = -inf, fmod(5.5, 2) = 1.5,
// fmod(-5.5, 2) = -1.5, fmod(5.5, inf) = 5.5. fmod(1, 0) = NaN does not
// fold (which NaN is the machine's: fold-nan-result.mlir): that rem stays.
// CHECK-LABEL: func.func @float_div_rem_fold
// CHECK-DAG: %[[D:.*]] = lax.constant dense<[0x7F800000, 0xFF800000, 0xFF800000, 2.750000e+00]> : tensor<4xf32>
// CHECK-NOT: lax.div
// CHECK: %[[R:.*]] = lax.rem
// CHECK: return %[[D]], %[[R]]
func.func @float_div_rem_fold() -> (tensor<4xf32>, tensor<4xf32>) {
  %a = lax.constant dense<[1.0, -1.0, 1.0, 5.5]> : tensor<4xf32>
  %b = lax.constant dense<[0.0, 0.0, -0.0, 2.0]> : tensor<4xf32>
  %0 = lax.div %a, %b : tensor<4xf32>
  %c = lax.constant dense<[5.5, -5.5, 1.0, 5.5]> : tensor<4xf32>
  %d = lax.constant dense<[2.0, 2.0, 0.0, 0x7F800000]> : tensor<4xf32>
  %1 = lax.rem %c, %d : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
