// Found by tests/differential (generated program 927230 of the campaign
// 712000+, reduced by run.py --reduce, then by hand): the JIT could not
// lower a dynamic_update_slice into a lax.cond's result of that same result
// ("operand #0 does not dominate this use"). Upstream's empty-tensor
// elimination replaced the tensor.empty of branch 0's convert_element_type
// by a slice of the cond's own result, inside the cond: its dominance check
// takes an op for dominating the ops in its regions.
// kiln-eliminate-empty-tensors checks with the values themselves
// (tests/lowering/eliminate-empty-tensors.mlir).
// RUN: kiln-run %s --random-inputs --no-cache --check | FileCheck %s
// CHECK: output 0: matches (all equal)

func.func @main(%cutv16: tensor<i64>, %cutv19: tensor<i32>) -> (tensor<3x1xi1>) {
  %arg0 = lax.constant dense<[[-3], [9223372036854775807], [-4]]> : tensor<3x1xi64>
  %v17 = lax.dynamic_update_slice %arg0[%cutv16, %cutv16], %arg0 : (tensor<3x1xi64>, tensor<3x1xi64>, tensor<i64>, tensor<i64>) -> tensor<3x1xi64>
  %v20, %v21 = lax.cond %cutv19 () : (tensor<i32>) -> (tensor<1x4xbf16>, tensor<3x1xi1>)
  branch 0 {
  ^bb0():
    %c34 = lax.constant dense<[[0xBFC0, 0xBF94, 0xBFEB, 0x0000]]> : tensor<1x4xbf16>
    %v35 = lax.convert_element_type %v17 : tensor<3x1xi64> -> tensor<3x1xi1>
    lax.yield %c34, %v35 : tensor<1x4xbf16>, tensor<3x1xi1>
  } branch 1 {
  ^bb0():
    %c39 = lax.constant dense<[[0x3E88, 0x7FC0, 0x3F57, 0x7EFF]]> : tensor<1x4xbf16>
    %c40 = lax.constant dense<[[false], [false], [true]]> : tensor<3x1xi1>
    lax.yield %c39, %c40 : tensor<1x4xbf16>, tensor<3x1xi1>
  } branch 2 {
  ^bb0():
    %c41 = lax.constant dense<[[0xBF80, 0x4040, 0x3FB1, 0xC298]]> : tensor<1x4xbf16>
    %c42 = lax.constant dense<false> : tensor<3x1xi1>
    lax.yield %c41, %c42 : tensor<1x4xbf16>, tensor<3x1xi1>
  }
  %v44 = lax.dynamic_update_slice %v21[%cutv16, %cutv16], %v21 : (tensor<3x1xi1>, tensor<3x1xi1>, tensor<i64>, tensor<i64>) -> tensor<3x1xi1>
  return %v44 : tensor<3x1xi1>
}
