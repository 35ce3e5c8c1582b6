// Found by tests/differential (generated program 1177540 of the campaign
// 1057000+, jit-min-thresholds, on an Intel Xeon with AVX-512; reduced by
// run.py --reduce, then by hand): a reverse scan converting i64 rows to i32,
// run as a parallel scan of 4-lane groups over a batch of 5, had element
// [2, 0] of its result overwritten with 0. The last group has one valid lane,
// stored by a masked store with the constant mask [1, 0, 0, 0], and LLVM
// 22's x86 code generator with AVX-512 turns masked.store(trunc <4 x i64> to
// <4 x i32>) of one lane into an 8-byte store of the untruncated i64 (`llc
// -mcpu=skylake-avx512`), so step 1's lane 4 (bytes 36-39) also wrote bytes
// 40-43, step 2's lane 0. The JIT now stores the enabled lanes of a
// constant-mask masked store one by one (compiler/HostJit.cpp).
// Hand-derived: ys[i] is column i of %xs as i32; row 2 is [2, -3, -3, 2, 0].
// RUN: kiln-run %s --interpret | FileCheck %s
// RUN: kiln-run %s --no-cache --min-thresholds --check | FileCheck %s --check-prefix=JIT
// CHECK: output 2: tensor<5xi32> {{.*}} values [2, -3, -3, 2, 0]
// JIT-COUNT-3: matches (all equal)

func.func @main() -> (tensor<3x5xi32>, tensor<3xi32>, tensor<5xi32>) {
  %xs = lax.constant dense<[[-5, 0, 2], [0, 3, -3], [2, 1, -3], [6, -3, 2], [6, 2, 0]]> : tensor<5x3xi64>
  %ones = lax.constant dense<[1, 1]> : tensor<2xi32>
  %x = lax.constant dense<[[-1, 1]]> : tensor<1x2xi32>
  %xb = lax.broadcast_in_dim %x shape = [3, 1, 2] dims = [1, 2] : tensor<1x2xi32> -> tensor<3x1x2xi32>
  %ys = lax.scan length = 3 carry() xs(%xs, %xb) {reverse = true, xs_axes = array<i64: 1, 0>} : (tensor<5x3xi64>, tensor<3x1x2xi32>) -> (tensor<3x5xi32>) {
  ^bb0(%row: tensor<5xi64>, %unused: tensor<1x2xi32>):
    %narrow = lax.convert_element_type %row : tensor<5xi64> -> tensor<5xi32>
    lax.yield %narrow : tensor<5xi32>
  }
  %m = lax.reshape %xb : tensor<3x1x2xi32> -> tensor<2x3xi32>
  %d = lax.dot_general %ones, %m contracting = [0] x [0] batch = [] x [] : (tensor<2xi32>, tensor<2x3xi32>) -> tensor<3xi32>
  %r2 = lax.slice %ys start = [2, 0] limit = [3, 5] strides = [1, 1] : tensor<3x5xi32> -> tensor<1x5xi32>
  %row2 = lax.reshape %r2 : tensor<1x5xi32> -> tensor<5xi32>
  return %ys, %d, %row2 : tensor<3x5xi32>, tensor<3xi32>, tensor<5xi32>
}
