// Found by tests/differential (generated program 695238 of the campaign
// 692000+, reduced by run.py --reduce): an f32 reduce_sum converted to f64.
// The JIT's f32 sum differs from the interpreter's (summed in double,
// rounded once) by one f32 ulp, well inside the error model, but the
// magnitude run took the sum of exact inputs for an exact value, so the
// widening conversion carried no f32 error into the f64 bound (7.6e-15
// against the 6e-8 of one f32 ulp). A reduce_sum or reduce_prod is never
// exact now; its S scales by eps(f32) / eps(f64) when widened.
// RUN: rm -rf %t && mkdir -p %t
// RUN: kiln-run %s --interpret --outputs %t/ref
// RUN: kiln-run %s --no-cache --expect %t/ref/out0.npy

func.func @main() -> (tensor<3xf64>) {
  %arg2 = lax.constant dense<[[[0x3FF70A3D, 0xBFE33333, 0x3F800000]], [[0xBE1FBE77, 0x40000000, 0xBF5BE76D]], [[0x40800000, 0xBEB33333, 0x3FCBA5E3]], [[0x3EBA5E35, 0xBF33B646, 0xC0000000]]]> : tensor<4x1x3xf32>
  %v1 = lax.reduce_sum %arg2 axes = [0, 1] : tensor<4x1x3xf32> -> tensor<3xf32>
  %v50 = lax.convert_element_type %v1 : tensor<3xf32> -> tensor<3xf64>
  return %v50 : tensor<3xf64>
}
