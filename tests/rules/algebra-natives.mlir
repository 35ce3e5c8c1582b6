// The natives the algebra library added (rules/Builtins.cpp), each through a
// rule of its own (Inputs/algebra-natives.yaml).
// RUN: kiln-opt %s --rules=%S/Inputs/algebra-natives.yaml | FileCheck %s

// is_power_of_two_splat: 0.25 is, 3 is not.
// CHECK-LABEL: func.func @power_of_two
// CHECK: lax.mul %arg0
// CHECK: lax.div %arg0
func.func @power_of_two(%x: tensor<4xf32>) -> tensor<4xf32> {
  %q = lax.constant dense<0.25> : tensor<4xf32>
  %t = lax.constant dense<3.0> : tensor<4xf32>
  %0 = lax.div %x, %q : tensor<4xf32>
  %1 = lax.div %x, %t : tensor<4xf32>
  %2 = lax.add %0, %1 : tensor<4xf32>
  return %2 : tensor<4xf32>
}

// complement_dims(3, [0, 2]) is [1]; of [1], [0, 2].
// CHECK-LABEL: func.func @complement
// CHECK-NEXT: lax.reduce_min %arg0 axes = [0, 2]
// CHECK-NEXT: lax.reduce_max %arg0 axes = [1]
func.func @complement(%x: tensor<2x3x4xf32>) -> (tensor<3xf32>, tensor<2x4xf32>) {
  %0 = lax.reduce_max %x axes = [0, 2] : tensor<2x3x4xf32> -> tensor<3xf32>
  %1 = lax.reduce_max %x axes = [1] : tensor<2x3x4xf32> -> tensor<2x4xf32>
  return %0, %1 : tensor<3xf32>, tensor<2x4xf32>
}

// splat_value reads 1.5; op_name of a block argument is "" (of an op, its
// name: the second sub stays).
// CHECK-LABEL: func.func @splat_value
// CHECK-NEXT: lax.constant
// CHECK-NEXT: %[[A:.*]] = lax.add %arg0
// CHECK-NEXT: lax.sub %[[A]]
func.func @splat_value(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = lax.constant dense<1.5> : tensor<4xf32>
  %0 = lax.sub %x, %c : tensor<4xf32>
  %1 = lax.sub %0, %c : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// callee_num_ops counts the body's ops (the return included): @two (2
// ops) is inlined, @four (4) is not.
func.func private @two(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = lax.neg %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @four(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = lax.neg %x : tensor<4xf32>
  %1 = lax.abs %0 : tensor<4xf32>
  %2 = lax.exp %1 : tensor<4xf32>
  return %2 : tensor<4xf32>
}
// CHECK-LABEL: func.func @calls
// CHECK-NEXT: %[[N:.*]] = lax.neg %arg0
// CHECK-NEXT: call @four(%[[N]])
func.func @calls(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = call @two(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = call @four(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// concat_of_slices: adjacent slices join; a gap or a stride does not.
// CHECK-LABEL: func.func @slices
// CHECK-NEXT: return %arg0
func.func @slices(%x: tensor<4x2xf32>) -> tensor<4x2xf32> {
  %0 = lax.slice %x start = [0, 0] limit = [3, 2] strides = [1, 1] : tensor<4x2xf32> -> tensor<3x2xf32>
  %1 = lax.slice %x start = [3, 0] limit = [4, 2] strides = [1, 1] : tensor<4x2xf32> -> tensor<1x2xf32>
  %2 = lax.concatenate %0, %1 dim = 0 : (tensor<3x2xf32>, tensor<1x2xf32>) -> tensor<4x2xf32>
  return %2 : tensor<4x2xf32>
}
// CHECK-LABEL: func.func @gap
// CHECK: lax.concatenate
func.func @gap(%x: tensor<4x2xf32>) -> tensor<2x2xf32> {
  %0 = lax.slice %x start = [0, 0] limit = [1, 2] strides = [1, 1] : tensor<4x2xf32> -> tensor<1x2xf32>
  %1 = lax.slice %x start = [2, 0] limit = [3, 2] strides = [1, 1] : tensor<4x2xf32> -> tensor<1x2xf32>
  %2 = lax.concatenate %0, %1 dim = 0 : (tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<2x2xf32>
  return %2 : tensor<2x2xf32>
}
