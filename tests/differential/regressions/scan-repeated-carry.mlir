// Found by tests/differential (generated program 818033 of the campaign
// 712000+, reduced by run.py --reduce, then by hand): a scan yielding one
// value as two carries, then an in-place write into the first result,
// changed the second. One-shot bufferization gave both loop results the
// yielded buffer (a fresh allocation each step) without recording that they
// alias, so the dynamic_update_slice below wrote -100 into %r2 too.
// kiln-loop-carry-in-place now copies a tensor yielded as a second carry
// (tests/lowering/scan.mlir, @repeated_carry).
// RUN: kiln-run %s --random-inputs --no-cache --check | FileCheck %s
// CHECK: output 0: matches (all equal)
// CHECK: output 1: matches (all equal)

func.func @main(%k: tensor<4xi32>, %c1: tensor<4xi32>, %c2: tensor<4xi32>, %x: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>) {
  %r1, %r2 = lax.scan length = 4 consts(%k) carry(%c1, %c2) xs(%x) : (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>) {
  ^bb0(%kk: tensor<4xi32>, %a: tensor<4xi32>, %b: tensor<4xi32>, %i: tensor<i32>):
    %v = lax.dynamic_update_slice %kk[%i], %b : (tensor<4xi32>, tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
    lax.yield %v, %v : tensor<4xi32>, tensor<4xi32>
  }
  %u = lax.constant dense<-100> : tensor<1xi32>
  %z = lax.constant dense<2> : tensor<i32>
  %w = lax.dynamic_update_slice %r1[%z], %u : (tensor<4xi32>, tensor<1xi32>, tensor<i32>) -> tensor<4xi32>
  return %w, %r2 : tensor<4xi32>, tensor<4xi32>
}
