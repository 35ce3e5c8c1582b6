// Found by tests/differential (generated program 854100 of the campaign
// 712000+, reduced by run.py --reduce, then by hand): the error model lost
// the magnitude of atan2 at huge operands. Its rule, (|x| S(y) + |y| S(x))
// / (x^2 + y^2), overflowed to inf / inf at x = y = DBL_MAX, so the
// magnitude was unknown and the output's scale stood in with f64's
// epsilon, though the value was an f32 erf_inv widened to f64: the JIT's
// f32 result, one f32 ulp from the interpreter's, was reported 2.4e6 x over
// its bound. The rule is now scaled by max(|x|, |y|).
// RUN: kiln-run %s --check --no-cache | FileCheck %s
// CHECK: output 0: matches
// CHECK-NOT: unknown

func.func @main() -> (tensor<2xf64>) {
  %x = lax.constant dense<[0x7FEFFFFFFFFFFFFF, 1.0]> : tensor<2xf64>
  %v1 = lax.atan2 %x, %x : tensor<2xf64>
  %v2 = lax.convert_element_type %v1 : tensor<2xf64> -> tensor<2xf32>
  %v4 = lax.erf_inv %v2 : tensor<2xf32>
  %v5 = lax.convert_element_type %v4 : tensor<2xf32> -> tensor<2xf64>
  return %v5 : tensor<2xf64>
}
