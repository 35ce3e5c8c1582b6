// Found by tests/differential (generated program 104712, reduced by run.py
// --reduce): the JIT failed to translate a batch-parallel scan whose body
// calls an f64 function without an LLVM intrinsic ("cannot be converted to
// LLVM IR: missing `LLVMTranslationDialectInterface` registration for
// dialect for op: vector.extract"). The scan's vector<4xf64> lanes reach
// convert-math-to-libm, which scalarizes math.erf into vector.extract, four
// calls of erf and vector.from_elements -- after convert-vector-to-llvm had
// run. The CPU pipeline now converts vector ops to LLVM again after libm
// (lowering/Pipelines.cpp). The JIT agrees with the reference interpreter.
// RUN: kiln-run %s --random-inputs --check --no-cache | FileCheck %s
// RUN: kiln-opt %s --kiln-lower-cpu | FileCheck %s --check-prefix=LLVM
// CHECK: output 0: matches
// LLVM-NOT: vector.extract
// LLVM: llvm.call @erf
// LLVM-NOT: vector.from_elements

func.func @main() -> (tensor<5xf64>) {
  %c11 = lax.constant dense<[[0x3FFC49BA5E353F7D], [0x4013613D7E661DC0], [0xBFDCCCCCCCCCCCCD], [0x3FF0ED916872B021], [0x3FF0000000000000]]> : tensor<5x1xf64>
  %v19 = lax.transpose %c11 permutation = [0, 1] : tensor<5x1xf64> -> tensor<5x1xf64>
  %c30 = lax.constant dense<0xBFD1A9FBE76C8B44> : tensor<5xf64>
  %v36 = lax.scan length = 1 carry(%c30) xs(%v19) {reverse = true, xs_axes = array<i64: 1>} : (tensor<5xf64>, tensor<5x1xf64>) -> tensor<5xf64> {
  ^bb0(%a31: tensor<5xf64>, %a32: tensor<5xf64>):
    %v33 = lax.erf %a32 : tensor<5xf64>
    %v34 = lax.integer_pow %v33 y = -3 : tensor<5xf64>
    %v35 = lax.mul %a31, %v34 : tensor<5xf64>
    lax.yield %v35 : tensor<5xf64>
  }
  return %v36 : tensor<5xf64>
}
