// kiln-run --interpret on a reversed scan with a const, two carries, an xs
// scanned along axis 1, ys stacked along axis 1 and a value captured from
// outside the body. Per step i = 2, 1, 0: c' = c * k + xs[:, i],
// d' = d + z[i]^2, ys[:, i] = c' + outer, ws[i] = d * z[i].
// RUN: kiln-run %s --random-inputs --interpret --outputs %t | FileCheck %s
// CHECK: output 0: tensor<2xf32> min 16 max 25 mean 20.5 values [25, 16]
// CHECK: output 1: tensor<f32> min 14 max 14 mean 14 values [14]
// CHECK: output 2: tensor<2x3xf32> min 15 max 36 mean 27.8333 values [35, 22, 15, 36, 32, 27]
// CHECK: output 3: tensor<3xf32> min 0 max 18 mean 10.3333 values [13, 18, 0]
// The outputs read back as inputs of a function of those types.
// RUN: kiln-run %S/Inputs/sum4.mlir --inputs %t/out0.npy,%t/out1.npy,%t/out2.npy,%t/out3.npy --interpret | FileCheck %s --check-prefix=SUM
// SUM: output 0: tensor<f32> min 253 max 253 mean 253 values [253]
func.func @f() -> (tensor<2xf32>, tensor<f32>, tensor<2x3xf32>, tensor<3xf32>) {
  %k = lax.constant dense<[2.0, 1.0]> : tensor<2xf32>
  %c0 = lax.constant dense<1.0> : tensor<2xf32>
  %d0 = lax.constant dense<0.0> : tensor<f32>
  %xs = lax.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %zs = lax.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %outer = lax.constant dense<[10.0, 20.0]> : tensor<2xf32>
  %c, %d, %ys, %ws = lax.scan length = 3 consts(%k) carry(%c0, %d0) xs(%xs, %zs)
      {reverse = true, xs_axes = array<i64: 1, 0>, ys_axes = array<i64: 1, 0>}
      : (tensor<2xf32>, tensor<2xf32>, tensor<f32>, tensor<2x3xf32>, tensor<3xf32>)
        -> (tensor<2xf32>, tensor<f32>, tensor<2x3xf32>, tensor<3xf32>) {
  ^bb0(%kk: tensor<2xf32>, %c: tensor<2xf32>, %dd: tensor<f32>, %x: tensor<2xf32>, %z: tensor<f32>):
    %ck = lax.mul %c, %kk : tensor<2xf32>
    %c2 = lax.add %ck, %x : tensor<2xf32>
    %zz = lax.mul %z, %z : tensor<f32>
    %d2 = lax.add %dd, %zz : tensor<f32>
    %y = lax.add %c2, %outer : tensor<2xf32>
    %w = lax.mul %dd, %z : tensor<f32>
    lax.yield %c2, %d2, %y, %w : tensor<2xf32>, tensor<f32>, tensor<2xf32>, tensor<f32>
  }
  return %c, %d, %ys, %ws : tensor<2xf32>, tensor<f32>, tensor<2x3xf32>, tensor<3xf32>
}
