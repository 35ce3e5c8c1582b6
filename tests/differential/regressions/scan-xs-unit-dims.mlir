// Found by tests/differential (generated program 465523, reduced by
// run.py --reduce, then its output made the scan's): a length-1 scan over
// xs with other unit dimensions (tensor<1x1x1x1xi8>, a strided slice of a
// constant). The rank-reducing extract_slice of its step is ambiguous (which
// unit dimension goes), and bufferization picked another one than the
// slice's type: "expected result type to be 'memref<1x1x1x1xi8, strided<[3,
// 6, 3, 3], offset: 1>>' or a rank-reduced version". Such xs are now sliced
// keeping the axis, and a collapse_shape drops exactly it.
// RUN: kiln-run %s --check --no-cache | FileCheck %s
// CHECK: output 0: tensor<1x1xi8> {{.*}}values [5]
// CHECK: output 1: tensor<1x1x1x1xi8> {{.*}}values [5]
// CHECK: output 0: matches
// CHECK: output 1: matches

func.func @main() -> (tensor<1x1xi8>, tensor<1x1x1x1xi8>) {
  %c = lax.constant dense<[[1]]> : tensor<1x1xi8>
  %x = lax.constant dense<[[[[126, 5, -2]]], [[[6, 2, -2]]]]> : tensor<2x1x1x3xi8>
  %s = lax.slice %x start = [0, 0, 0, 1] limit = [1, 1, 1, 3] strides = [1, 2, 1, 3] : tensor<2x1x1x3xi8> -> tensor<1x1x1x1xi8>
  %r, %ys = lax.scan length = 1 carry(%c) xs(%s) {xs_axes = array<i64: 3>} : (tensor<1x1xi8>, tensor<1x1x1x1xi8>) -> (tensor<1x1xi8>, tensor<1x1x1x1xi8>) {
  ^bb0(%a: tensor<1x1xi8>, %b: tensor<1x1x1xi8>):
    %t = lax.reduce_sum %b axes = [1] : tensor<1x1x1xi8> -> tensor<1x1xi8>
    %u = lax.mul %a, %t : tensor<1x1xi8>
    %w = lax.sub %b, %b : tensor<1x1x1xi8>
    %v = lax.add %w, %b : tensor<1x1x1xi8>
    lax.yield %u, %v : tensor<1x1xi8>, tensor<1x1x1xi8>
  }
  return %r, %ys : tensor<1x1xi8>, tensor<1x1x1x1xi8>
}
