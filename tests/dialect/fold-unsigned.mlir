// Folders on ui32 use unsigned operations (max/min, div/rem), as the reference
// interpreter does; add/sub/mul wrap modulo 2^32; i32 stays signed.
// RUN: kiln-opt %s -canonicalize -split-input-file | FileCheck %s

// 3000000000 is above INT32_MAX: a signed comparison would call it negative.
// CHECK-LABEL: func.func @max_min
// CHECK-DAG: %[[MAX:.*]] = lax.constant dense<[3000000000, 4000000000, 7]> : tensor<3xui32>
// CHECK-DAG: %[[MIN:.*]] = lax.constant dense<[1, 2, 0]> : tensor<3xui32>
// CHECK-NOT: lax.max
// CHECK-NOT: lax.min
// CHECK: return %[[MAX]], %[[MIN]]
func.func @max_min() -> (tensor<3xui32>, tensor<3xui32>) {
  %a = lax.constant dense<[3000000000, 2, 7]> : tensor<3xui32>
  %b = lax.constant dense<[1, 4000000000, 0]> : tensor<3xui32>
  %0 = lax.max %a, %b : tensor<3xui32>
  %1 = lax.min %a, %b : tensor<3xui32>
  return %0, %1 : tensor<3xui32>, tensor<3xui32>
}

// -----

// 3000000000 / 2 = 1500000000 (signed division would give 3647483648).
// 2147483648 / 4294967295 = 0: all bits set is UINT32_MAX, not -1, so the
// signed INT_MIN / -1 overflow does not apply.
// CHECK-LABEL: func.func @div_rem
// CHECK-DAG: %[[DIV:.*]] = lax.constant dense<[1500000000, 65535, 0, 1]> : tensor<4xui32>
// CHECK-DAG: %[[REM:.*]] = lax.constant dense<[0, 65535, 2147483648, 0]> : tensor<4xui32>
// CHECK-NOT: lax.div
// CHECK-NOT: lax.rem
// CHECK: return %[[DIV]], %[[REM]]
func.func @div_rem() -> (tensor<4xui32>, tensor<4xui32>) {
  %a = lax.constant dense<[3000000000, 4294967295, 2147483648, 4294967295]> : tensor<4xui32>
  %b = lax.constant dense<[2, 65536, 4294967295, 4294967295]> : tensor<4xui32>
  %0 = lax.div %a, %b : tensor<4xui32>
  %1 = lax.rem %a, %b : tensor<4xui32>
  return %0, %1 : tensor<4xui32>, tensor<4xui32>
}

// -----

// The splat path: 3000000000 / 7 = 428571428, remainder 4.
// CHECK-LABEL: func.func @div_rem_splat
// CHECK-DAG: %[[DIV:.*]] = lax.constant dense<428571428> : tensor<2xui32>
// CHECK-DAG: %[[REM:.*]] = lax.constant dense<4> : tensor<2xui32>
// CHECK: return %[[DIV]], %[[REM]]
func.func @div_rem_splat() -> (tensor<2xui32>, tensor<2xui32>) {
  %a = lax.constant dense<3000000000> : tensor<2xui32>
  %b = lax.constant dense<7> : tensor<2xui32>
  %0 = lax.div %a, %b : tensor<2xui32>
  %1 = lax.rem %a, %b : tensor<2xui32>
  return %0, %1 : tensor<2xui32>, tensor<2xui32>
}

// -----

// Wrapping: 4000000000 + 500000000 = 205032704, 1 - 2 = 4294967295,
// 3000000000 * 3 = 410065408 (mod 2^32).
// CHECK-LABEL: func.func @wrap
// CHECK-DAG: %[[ADD:.*]] = lax.constant dense<205032704> : tensor<ui32>
// CHECK-DAG: %[[SUB:.*]] = lax.constant dense<4294967295> : tensor<ui32>
// CHECK-DAG: %[[MUL:.*]] = lax.constant dense<410065408> : tensor<ui32>
// CHECK: return %[[ADD]], %[[SUB]], %[[MUL]]
func.func @wrap() -> (tensor<ui32>, tensor<ui32>, tensor<ui32>) {
  %a = lax.constant dense<4000000000> : tensor<ui32>
  %b = lax.constant dense<500000000> : tensor<ui32>
  %one = lax.constant dense<1> : tensor<ui32>
  %two = lax.constant dense<2> : tensor<ui32>
  %c = lax.constant dense<3000000000> : tensor<ui32>
  %three = lax.constant dense<3> : tensor<ui32>
  %0 = lax.add %a, %b : tensor<ui32>
  %1 = lax.sub %one, %two : tensor<ui32>
  %2 = lax.mul %c, %three : tensor<ui32>
  return %0, %1, %2 : tensor<ui32>, tensor<ui32>, tensor<ui32>
}

// -----

// i32 keeps signed operations: max(-1, 1) = 1, -7 / 2 = -3, -7 % 2 = -1.
// CHECK-LABEL: func.func @signed_i32
// CHECK-DAG: %[[MAX:.*]] = lax.constant dense<[1, 5]> : tensor<2xi32>
// CHECK-DAG: %[[DIV:.*]] = lax.constant dense<[-3, -2]> : tensor<2xi32>
// CHECK-DAG: %[[REM:.*]] = lax.constant dense<[-1, 1]> : tensor<2xi32>
// CHECK: return %[[MAX]], %[[DIV]], %[[REM]]
func.func @signed_i32() -> (tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) {
  %a = lax.constant dense<[-1, 5]> : tensor<2xi32>
  %b = lax.constant dense<[1, -7]> : tensor<2xi32>
  %c = lax.constant dense<[-7, 5]> : tensor<2xi32>
  %d = lax.constant dense<[2, -2]> : tensor<2xi32>
  %0 = lax.max %a, %b : tensor<2xi32>
  %1 = lax.div %c, %d : tensor<2xi32>
  %2 = lax.rem %c, %d : tensor<2xi32>
  return %0, %1, %2 : tensor<2xi32>, tensor<2xi32>, tensor<2xi32>
}

// -----

// Identities on ui32: x + 0 = x - 0 = x * 1 = x / 1 = x, x - x = x * 0 = 0.
// CHECK-LABEL: func.func @identities
// CHECK-DAG: %[[Z:.*]] = lax.constant dense<0> : tensor<4xui32>
// CHECK-NOT: lax.add
// CHECK-NOT: lax.sub
// CHECK-NOT: lax.mul
// CHECK-NOT: lax.div
// CHECK: return %arg0, %[[Z]], %[[Z]]
func.func @identities(%x: tensor<4xui32>) -> (tensor<4xui32>, tensor<4xui32>, tensor<4xui32>) {
  %zero = lax.constant dense<0> : tensor<4xui32>
  %one = lax.constant dense<1> : tensor<4xui32>
  %0 = lax.add %x, %zero : tensor<4xui32>
  %1 = lax.sub %0, %zero : tensor<4xui32>
  %2 = lax.mul %1, %one : tensor<4xui32>
  %3 = lax.div %2, %one : tensor<4xui32>
  %4 = lax.sub %x, %x : tensor<4xui32>
  %5 = lax.mul %x, %zero : tensor<4xui32>
  return %3, %4, %5 : tensor<4xui32>, tensor<4xui32>, tensor<4xui32>
}
