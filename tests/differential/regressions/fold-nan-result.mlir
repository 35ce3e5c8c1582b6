// Found by tests/differential (generated program 120041, reduced by hand):
// `--canonicalize` folded the f16 `lax.sub %c, %c` of a constant -inf to
// APFloat's NaN, +NaN (0x7E00), where the interpreter (x86 arithmetic)
// computes -NaN (0xFE00); a bitcast_convert_type to bf16 made the sign
// visible: +4.25e37 where the reference has -4.25e37. Which NaN an
// arithmetic operation gives is the machine's, so an add/sub/mul/div/rem fold
// whose result is NaN no longer fires (dialect/LaxFolds.cpp, unlessNaN); the
// interpreter and the JIT compute those elements. Folds to numbers still fire.
// RUN: rm -rf %t && mkdir -p %t
// RUN: kiln-run %s --random-inputs --interpret --outputs %t/ref
// RUN: kiln-opt %s --canonicalize -o %t/after.mlir
// RUN: FileCheck %s --input-file=%t/after.mlir
// RUN: kiln-run %t/after.mlir --random-inputs --interpret --expect %t/ref/out0.npy,%t/ref/out1.npy,%t/ref/out2.npy --check-k 0
// CHECK-LABEL: func.func @main
// CHECK-DAG: lax.sub
// CHECK-DAG: lax.mul
// CHECK-DAG: lax.div
// CHECK-DAG: lax.rem
// CHECK-DAG: lax.add
// CHECK-DAG: lax.constant dense<[3.000000e+00, 5.000000e-01]> : tensor<2xf32>
// CHECK: return

func.func @main() -> (tensor<2xbf16>, tensor<5xi32>, tensor<2xf32>) {
  // -inf - -inf and +inf - +inf in f16, bitcast to bf16 (program 120041).
  %h = lax.constant dense<[0xFC00, 0x7C00]> : tensor<2xf16>
  %d = lax.sub %h, %h : tensor<2xf16>
  %b = lax.bitcast_convert_type %d : tensor<2xf16> -> tensor<2xbf16>
  // inf + -inf, 0 * inf, 0 / 0, inf rem 1, and a NaN operand, bitcast to i32.
  %x = lax.constant dense<[0x7F800000, 0x00000000, 0x00000000, 0x7F800000, 0x7FC00001]> : tensor<5xf32>
  %y = lax.constant dense<[0xFF800000, 0x7F800000, 0x00000000, 0x3F800000, 0x3F800000]> : tensor<5xf32>
  %s = lax.add %x, %y : tensor<5xf32>
  %m = lax.mul %x, %y : tensor<5xf32>
  %q = lax.div %x, %y : tensor<5xf32>
  %r = lax.rem %x, %y : tensor<5xf32>
  %sm = lax.add %s, %m : tensor<5xf32>
  %qr = lax.add %q, %r : tensor<5xf32>
  %all = lax.mul %sm, %qr : tensor<5xf32>
  %i = lax.bitcast_convert_type %all : tensor<5xf32> -> tensor<5xi32>
  // Numbers still fold: [1 + 2, -0 + 0.5] - [1 * 2, -0 * 0.5] + [2, -0].
  %one = lax.constant dense<[1.0, -0.0]> : tensor<2xf32>
  %two = lax.constant dense<[2.0, 0.5]> : tensor<2xf32>
  %three = lax.add %one, %two : tensor<2xf32>
  %p = lax.mul %one, %two : tensor<2xf32>
  %n = lax.sub %three, %p : tensor<2xf32>
  %z = lax.add %n, %p : tensor<2xf32>
  return %b, %i, %z : tensor<2xbf16>, tensor<5xi32>, tensor<2xf32>
}
