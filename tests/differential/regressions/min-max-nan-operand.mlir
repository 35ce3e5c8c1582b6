// Found by tests/differential (generated program 1966 of seeds 1000-1999,
// reduced): every pass comparison but kiln-dedup-functions (each runs the
// folders) changed an i32 output. The program took min(v, v) of v = log(...)
// = -NaN (0xFFC00000), bitcast it to i32 and summed it in a dot_general. The
// reference interpreter's max/min returned a canonical +NaN whatever their
// operands, so the exact fold min(x, x) -> x (LaxFolds.cpp) kept the sign
// bit that the interpreter had dropped; the bitcast exposed it. max/min now
// propagate their NaN operand, sign and payload included (the first one
// when both are NaN), as APFloat's maximum/minimum (the constant folder),
// IEEE 754-2019 and the JIT's code do (reference/InterpretElementwise.cpp;
// reduce_max/min and scatter max/min likewise).
// The inputs are -NaN, +NaN and -NaN with payloads, and 1.0.
// RUN: rm -rf %t && mkdir -p %t
// RUN: kiln-run %s --interpret --inputs %S/Inputs/min-max-nan-operand.npy --outputs %t/ref
// RUN: kiln-opt %s --canonicalize -o %t/after.mlir
// RUN: FileCheck %s --input-file=%t/after.mlir
// RUN: kiln-run %t/after.mlir --interpret --inputs %S/Inputs/min-max-nan-operand.npy --expect %t/ref/out0.npy,%t/ref/out1.npy,%t/ref/out2.npy,%t/ref/out3.npy --check-k 0
// RUN: kiln-run %s --inputs %S/Inputs/min-max-nan-operand.npy --check --no-cache | FileCheck %s --check-prefix=JIT
// The folds fired: min(x, x) and max(x, x) are gone, min(x, 1) and max(1, x) stay.
// CHECK-COUNT-1: lax.min
// CHECK-NOT: lax.min
// CHECK-COUNT-1: lax.max
// CHECK-NOT: lax.max
// The JIT keeps the NaN operand too (one NaN operand: no choice to make).
// JIT: output 0: matches (all equal)
// JIT: output 1: matches (all equal)
// JIT: output 2: matches (all equal)
// JIT: output 3: matches (all equal)

func.func @main(%x: tensor<4xf32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) {
  %one = lax.constant dense<1.0> : tensor<4xf32>
  %m = lax.min %x, %x : tensor<4xf32>
  %n = lax.max %x, %x : tensor<4xf32>
  %a = lax.min %x, %one : tensor<4xf32>
  %b = lax.max %one, %x : tensor<4xf32>
  %0 = lax.bitcast_convert_type %m : tensor<4xf32> -> tensor<4xi32>
  %1 = lax.bitcast_convert_type %n : tensor<4xf32> -> tensor<4xi32>
  %2 = lax.bitcast_convert_type %a : tensor<4xf32> -> tensor<4xi32>
  %3 = lax.bitcast_convert_type %b : tensor<4xf32> -> tensor<4xi32>
  return %0, %1, %2, %3 : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>
}
