// RUN: kiln-opt --kiln-dedup-functions %s | FileCheck %s
// RUN: kiln-opt --kiln-dedup-functions=inline-max-ops=3 %s | FileCheck %s --check-prefix=INLINE

// Three identical private functions (seed 001's inner function, pjit'd
// separately) become one; a different one and the public entry stay.
// CHECK: func.func private @inner(
// CHECK-NOT: func.func private @inner_1
// CHECK-NOT: func.func private @inner_2
// CHECK: func.func private @other(
// CHECK-LABEL: func.func @outer
// CHECK-COUNT-3: call @inner(
// CHECK: call @other(

// Small functions are inlined when asked: @inner has 3 ops, @other 4.
// INLINE-NOT: @inner
// INLINE: func.func private @other(
// INLINE-LABEL: func.func @outer
// INLINE-COUNT-3: lax.sin
// INLINE: call @other(

func.func private @inner(%a: tensor<4xf32>) -> tensor<4xf32> {
  %s = lax.sin %a : tensor<4xf32>
  %m = lax.mul %s, %a : tensor<4xf32>
  return %m : tensor<4xf32>
}
func.func private @inner_1(%b: tensor<4xf32>) -> tensor<4xf32> {
  %s = lax.sin %b : tensor<4xf32>
  %m = lax.mul %s, %b : tensor<4xf32>
  return %m : tensor<4xf32>
}
func.func private @inner_2(%c: tensor<4xf32>) -> tensor<4xf32> {
  %s = lax.sin %c : tensor<4xf32>
  %m = lax.mul %s, %c : tensor<4xf32>
  return %m : tensor<4xf32>
}
func.func private @other(%c: tensor<4xf32>) -> tensor<4xf32> {
  %s = lax.sin %c : tensor<4xf32>
  %m = lax.mul %c, %s : tensor<4xf32>
  %n = lax.neg %m : tensor<4xf32>
  return %n : tensor<4xf32>
}
func.func @outer(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = call @inner(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = call @inner_1(%0) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = call @inner_2(%1) : (tensor<4xf32>) -> tensor<4xf32>
  %3 = call @other(%2) : (tensor<4xf32>) -> tensor<4xf32>
  return %3 : tensor<4xf32>
}
