// Found by tests/differential (generated programs 108205, 113392, 113518,
// 114569, 119831; 108205 reduced by run.py --reduce to atan2(+0, +0) of a
// constant): the JIT gave NaN where the interpreter (libm) gives 0. Upstream's
// constant folder of math.atan2 (MLIR 22) folds two zeros to NaN
// (atan2(+-0, +0) is +-0, atan2(+-0, -0) is +-pi). The lowering now selects
// those values itself when both operands are zero
// (lowering/ScalarizeElementwise.cpp); at run time libm's atan2 computes the
// rest. The JIT agrees with the reference interpreter, in every float type.
// RUN: kiln-run %s --random-inputs --check --no-cache | FileCheck %s
// RUN: kiln-run %s --random-inputs --interpret | FileCheck %s --check-prefix=REF
// CHECK-COUNT-4: matches (all equal)
// CHECK: worst error: 0 x bound
// REF: output 0: tensor<f32> {{.*}} values [0]
// REF: output 1: tensor<4xf32> {{.*}} values [0, -0, 3.14159, -3.14159]

func.func @main(%y: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>, tensor<4xf64>, tensor<4xf32>) {
  // Generated program 108205, reduced.
  %c1 = lax.constant dense<0x00000000> : tensor<f32>
  %v2 = lax.atan2 %c1, %c1 : tensor<f32>
  // Every sign of two zeros, in f32, f64 and f16 (computed in f32).
  %a = lax.constant dense<[0.0, -0.0, 0.0, -0.0]> : tensor<4xf32>
  %b = lax.constant dense<[0.0, 0.0, -0.0, -0.0]> : tensor<4xf32>
  %t = lax.atan2 %a, %b : tensor<4xf32>
  %ad = lax.constant dense<[0.0, -0.0, 0.0, -0.0]> : tensor<4xf64>
  %bd = lax.constant dense<[0.0, 0.0, -0.0, -0.0]> : tensor<4xf64>
  %td = lax.atan2 %ad, %bd : tensor<4xf64>
  %ah = lax.constant dense<[0.0, -0.0, 0.0, -0.0]> : tensor<4xf16>
  %bh = lax.constant dense<[0.0, 0.0, -0.0, -0.0]> : tensor<4xf16>
  %th = lax.atan2 %ah, %bh : tensor<4xf16>
  %thf = lax.convert_element_type %th : tensor<4xf16> -> tensor<4xf32>
  // At run time as well: atan2(y, 0) and atan2(0 * y, -0).
  %r = lax.atan2 %y, %b : tensor<4xf32>
  %zy = lax.mul %y, %b : tensor<4xf32>
  %s = lax.atan2 %zy, %b : tensor<4xf32>
  %rs = lax.add %r, %s : tensor<4xf32>
  %out = lax.add %thf, %rs : tensor<4xf32>
  return %v2, %t, %td, %out : tensor<f32>, tensor<4xf32>, tensor<4xf64>, tensor<4xf32>
}
