// Found by tests/differential (generated program 859972 of the campaign
// 712000+): an f64 dot_general whose one product is -0 * 1.5 was +0 in the
// interpreter and -0 in the JIT (rsqrt of it: +inf against -inf). The
// interpreter's exact sum added each f64 product as two halves, and the
// rest of -0 * 1.5 is +0, which turned the sum of one -0 into +0. A zero
// rest is no term now. Hand-derived: -0 * 1.5 = -0 (a sum of -0 terms is
// -0), 0 * 1.5 = +0; rsqrt(-0) = -inf, rsqrt(+0) = +inf.
// RUN: rm -rf %t && mkdir -p %t
// RUN: kiln-run %s --interpret --inputs %S/Inputs/dot-negative-zero-a.npy,%S/Inputs/dot-negative-zero-b.npy --outputs %t/ref | FileCheck %s
// RUN: kiln-run %s --inputs %S/Inputs/dot-negative-zero-a.npy,%S/Inputs/dot-negative-zero-b.npy --no-cache --expect %t/ref/out0.npy,%t/ref/out1.npy
// CHECK: output 0: tensor<2xf64> {{.*}} values [-0, 0]
// CHECK: output 1: tensor<2xf64> {{.*}} values [-inf, inf]

func.func @main(%a: tensor<2x1xf64>, %b: tensor<1xf64>) -> (tensor<2xf64>, tensor<2xf64>) {
  %d = lax.dot_general %a, %b contracting = [1] x [0] batch = [] x [] : (tensor<2x1xf64>, tensor<1xf64>) -> tensor<2xf64>
  %r = lax.rsqrt %d : tensor<2xf64>
  return %d, %r : tensor<2xf64>, tensor<2xf64>
}
