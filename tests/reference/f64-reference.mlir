// --f64-reference evaluates every float op in double: (1 + 2^-30) - 1 is 0
// in f32 but 2^-30 in the reference; integer ops are unchanged.
// RUN: kiln-run %s --random-inputs --interpret | FileCheck %s --check-prefix=F32
// RUN: kiln-run %s --random-inputs --interpret --f64-reference | FileCheck %s --check-prefix=F64
// F32: output 0: tensor<f32> min 0 max 0 mean 0 values [0]
// F32: output 1: tensor<2xi8> min -56 max 3 mean -26.5 values [-56, 3]
// F64: output 0: tensor<f32> min 9.31323e-10 max 9.31323e-10 mean 9.31323e-10 values [9.31323e-10]
// F64: output 1: tensor<2xi8> min -56 max 3 mean -26.5 values [-56, 3]
func.func @f() -> (tensor<f32>, tensor<2xi8>) {
  %one = lax.constant dense<1.0> : tensor<f32>
  %tiny = lax.constant dense<9.3132257461547852E-10> : tensor<f32>
  %s = lax.add %one, %tiny : tensor<f32>
  %d = lax.sub %s, %one : tensor<f32>
  %a = lax.constant dense<[100, 1]> : tensor<2xi8>
  %b = lax.constant dense<[100, 2]> : tensor<2xi8>
  %w = lax.add %a, %b : tensor<2xi8>
  return %d, %w : tensor<f32>, tensor<2xi8>
}
