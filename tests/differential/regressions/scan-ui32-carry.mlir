// Found by tests/differential (generated programs 26, 107, 109, 110, 114,
// 117; issue #24's "any lax.scan over ui32 fails --kiln-lax-to-linalg"):
// a scan that yields a ui32 value failed to lower ("failed to legalize
// unresolved materialization from tensor<2xi32> to tensor<2xui32>"): the
// scf.yield was built from the body's values before they were converted.
// The JIT must now agree with the reference interpreter, carries, ys
// (stacked along axis 1, reversed) and a nested scan included.
// RUN: kiln-run %s --random-inputs --check --no-cache | FileCheck %s
// CHECK-COUNT-3: matches (all equal)
// CHECK: worst error: 0 x bound

func.func @main(%a: tensor<2xui32>, %x: tensor<3x2xui32>) -> (tensor<2xui32>, tensor<2x3xui32>, tensor<2xui32>) {
  %c, %ys = lax.scan length = 3 carry(%a) xs(%x) {reverse = true, ys_axes = array<i64: 1>}
      : (tensor<2xui32>, tensor<3x2xui32>) -> (tensor<2xui32>, tensor<2x3xui32>) {
  ^bb0(%ci: tensor<2xui32>, %xi: tensor<2xui32>):
    %s = lax.add %ci, %xi : tensor<2xui32>
    %k = lax.constant dense<3000000000> : tensor<2xui32>
    %d = lax.div %s, %k : tensor<2xui32>
    lax.yield %s, %d : tensor<2xui32>, tensor<2xui32>
  }
  %n = lax.scan length = 2 carry(%a) xs() : (tensor<2xui32>) -> tensor<2xui32> {
  ^bb0(%ci: tensor<2xui32>):
    %inner = lax.scan length = 2 carry(%ci) xs() : (tensor<2xui32>) -> tensor<2xui32> {
    ^bb0(%cj: tensor<2xui32>):
      %m = lax.mul %cj, %cj : tensor<2xui32>
      lax.yield %m : tensor<2xui32>
    }
    lax.yield %inner : tensor<2xui32>
  }
  return %c, %ys, %n : tensor<2xui32>, tensor<2x3xui32>, tensor<2xui32>
}
