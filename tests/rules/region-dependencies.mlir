// depends_on_carries / only_xs / only_consts on body values, and splat() of a
// computed number (product of the dimensions).
// RUN: kiln-opt %s --rules=%S/Inputs/dependencies.yaml | FileCheck %s
// CHECK-LABEL: func.func @f
// CHECK: ^bb0(%[[W:.*]]: tensor<4xf32>, %[[C:.*]]: tensor<4xf32>, %[[X:.*]]: tensor<4xf32>):
// CHECK: %[[A:.*]] = lax.add %[[C]], %[[X]]
// CHECK: %[[M:.*]] = lax.mul %[[X]], %[[W]]
// CHECK: %[[E:.*]] = lax.log %[[W]]
// CHECK: lax.abs %[[A]]
// CHECK: lax.sin %[[M]]
// CHECK: lax.cos %[[E]]
// CHECK: lax.constant dense<4.000000e+00> : tensor<4xf32>
func.func @f(%w: tensor<4xf32>, %c0: tensor<4xf32>, %xs: tensor<6x4xf32>) -> tensor<4xf32> {
  %c = lax.scan length = 6 consts(%w) carry(%c0) xs(%xs)
      : (tensor<4xf32>, tensor<4xf32>, tensor<6x4xf32>) -> tensor<4xf32> {
  ^bb0(%wc: tensor<4xf32>, %carry: tensor<4xf32>, %x: tensor<4xf32>):
    %a = lax.add %carry, %x : tensor<4xf32>
    %m = lax.mul %x, %wc : tensor<4xf32>
    %e = lax.log %wc : tensor<4xf32>
    %na = lax.neg %a : tensor<4xf32>
    %nm = lax.neg %m : tensor<4xf32>
    %ne = lax.neg %e : tensor<4xf32>
    %k = lax.exp %x : tensor<4xf32>
    %s1 = lax.add %na, %nm : tensor<4xf32>
    %s2 = lax.add %s1, %ne : tensor<4xf32>
    %s3 = lax.add %s2, %k : tensor<4xf32>
    lax.yield %s3 : tensor<4xf32>
  }
  return %c : tensor<4xf32>
}
