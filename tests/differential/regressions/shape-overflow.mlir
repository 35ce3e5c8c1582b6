// Issue #24's listed shape defects: element counts that overflow int64
// passed the verifier (a 4-element tensor reshaped to 2^62+1 x 4 wrapped to
// 4 elements; broadcast_in_dim to 2^32 x 2^32 wrapped to 0: the interpreter
// summed it to 0 and the JIT segfaulted; an iota of 2^62 x 4), and a slice
// stride of INT64_MAX inferred size 0 (limit - start + stride - 1 wrapped).
// Every lax tensor is now at most 2^62 bytes (Lax_TensorOf, LaxDialect.td):
// the type constraint reports these before the ops' own checks.
// RUN: kiln-opt %s -split-input-file -verify-diagnostics
// RUN: not kiln-opt %s -split-input-file 2>/dev/null | FileCheck %s

func.func @reshape(%a: tensor<4xf32>) -> tensor<4611686018427387905x4xf32> {
  // expected-error @+1 {{result #0 must be statically shaped tensor of}}
  %r = lax.reshape %a : tensor<4xf32> -> tensor<4611686018427387905x4xf32>
  return %r : tensor<4611686018427387905x4xf32>
}

// -----

func.func @broadcast(%a: tensor<f32>) -> tensor<4294967296x4294967296xf32> {
  // expected-error @+1 {{values of at most 2^62 bytes, but got 'tensor<4294967296x4294967296xf32>'}}
  %r = lax.broadcast_in_dim %a shape = [4294967296, 4294967296] dims = [] : tensor<f32> -> tensor<4294967296x4294967296xf32>
  return %r : tensor<4294967296x4294967296xf32>
}

// -----

func.func @iota() -> tensor<4611686018427387904x4xi32> {
  // expected-error @+1 {{result #0 must be statically shaped tensor of}}
  %r = lax.iota dimension = 0 : tensor<4611686018427387904x4xi32>
  return %r : tensor<4611686018427387904x4xi32>
}

// -----

// A stride of INT64_MAX over [1, 5) takes one element.
// CHECK-LABEL: func.func @slice
// CHECK: lax.slice {{.*}} strides = [9223372036854775807] : tensor<5xf32> -> tensor<1xf32>
func.func @slice(%a: tensor<5xf32>) -> tensor<1xf32> {
  %r = lax.slice %a start = [1] limit = [5] strides = [9223372036854775807] : tensor<5xf32> -> tensor<1xf32>
  return %r : tensor<1xf32>
}
