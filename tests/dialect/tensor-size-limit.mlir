// Every tensor of a lax op is at most 2^62 bytes (kiln::lax::tensorSizeFits):
// a tensor<4294967296x4294967296xf32> argument had passed the verifier with
// an element count that wrapped to 0 (the interpreter returned an empty
// result, the JIT segfaulted), a reduce with a 2^62-element output aborted.
// An entry argument no op uses is refused by kiln-run too.
// RUN: kiln-opt %s --split-input-file --verify-diagnostics
// RUN: not kiln-run %S/Inputs/unused-huge-argument.mlir --random-inputs 2>&1 | FileCheck %s
// CHECK: error: argument #0 is not a statically shaped tensor of at most 2^62 bytes

func.func @operand(%x: tensor<4294967296x4294967296xf32>) -> tensor<f32> {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of}}
  %0 = lax.reduce_sum %x axes = [0, 1] : tensor<4294967296x4294967296xf32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @result(%x: tensor<f32>) -> tensor<4611686018427387904xf32> {
  // expected-error @+1 {{values of at most 2^62 bytes, but got 'tensor<4611686018427387904xf32>'}}
  %0 = lax.broadcast_in_dim %x shape = [4611686018427387904] dims = [] : tensor<f32> -> tensor<4611686018427387904xf32>
  return %0 : tensor<4611686018427387904xf32>
}

// -----

// 2^61 f32 elements: 2^63 bytes.
func.func @bytes(%x: tensor<2305843009213693952xf32>) -> tensor<f32> {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of}}
  %0 = lax.reduce_sum %x axes = [0] : tensor<2305843009213693952xf32> -> tensor<f32>
  return %0 : tensor<f32>
}
