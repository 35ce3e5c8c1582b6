// Float identities fold only when they hold for every input, -0.0, NaN and
// +-inf included (IEEE, round to nearest even): x + (-0.0), x - (+0.0), x * 1
// and x / 1 are x; x + (+0.0) and x - (-0.0) are +0.0 for x = -0.0; x * 0.0
// is -0.0 for x < 0 and NaN for x = inf; x - x is NaN for x = inf.
// RUN: kiln-opt %s -canonicalize -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @exact_identities
// CHECK-NOT: lax.
// CHECK: return %arg0, %arg0, %arg0, %arg0, %arg0, %arg0
func.func @exact_identities(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %pz = lax.constant dense<0.0> : tensor<4xf32>
  %nz = lax.constant dense<-0.0> : tensor<4xf32>
  %one = lax.constant dense<1.0> : tensor<4xf32>
  %0 = lax.add %x, %nz : tensor<4xf32>
  %1 = lax.add %nz, %x : tensor<4xf32>
  %2 = lax.sub %x, %pz : tensor<4xf32>
  %3 = lax.mul %one, %x : tensor<4xf32>
  %4 = lax.div %x, %one : tensor<4xf32>
  %5 = lax.min %x, %x : tensor<4xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// x - (-0.0) used to fold to x: wrong for x = -0.0 (-0.0 - -0.0 = +0.0).
// CHECK-LABEL: func.func @inexact_identities
// CHECK: %[[S:.*]] = lax.sub %arg0, %{{.*}} : tensor<4xf32>
// CHECK: %[[A:.*]] = lax.add %arg0, %{{.*}} : tensor<4xf32>
// CHECK: %[[M:.*]] = lax.mul %arg0, %{{.*}} : tensor<4xf32>
// CHECK: %[[D:.*]] = lax.sub %arg0, %arg0 : tensor<4xf32>
// CHECK: %[[N:.*]] = lax.sub %{{.*}}, %arg0 : tensor<4xf32>
// CHECK: return %[[S]], %[[A]], %[[M]], %[[D]], %[[N]]
func.func @inexact_identities(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %pz = lax.constant dense<0.0> : tensor<4xf32>
  %nz = lax.constant dense<-0.0> : tensor<4xf32>
  %0 = lax.sub %x, %nz : tensor<4xf32>
  %1 = lax.add %x, %pz : tensor<4xf32>
  %2 = lax.mul %x, %pz : tensor<4xf32>
  %3 = lax.sub %x, %x : tensor<4xf32>
  %4 = lax.sub %pz, %x : tensor<4xf32>
  return %0, %1, %2, %3, %4 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// The same in f16, bf16 and f64: -0.0 is told from +0.0 by its bits.
// CHECK-LABEL: func.func @other_float_types
// CHECK: %[[H:.*]] = lax.sub %arg0, %{{.*}} : tensor<2xf16>
// CHECK: %[[B:.*]] = lax.add %arg1, %{{.*}} : tensor<2xbf16>
// CHECK: return %[[H]], %arg0, %[[B]], %arg1, %arg2
func.func @other_float_types(%h: tensor<2xf16>, %b: tensor<2xbf16>, %d: tensor<2xf64>)
    -> (tensor<2xf16>, tensor<2xf16>, tensor<2xbf16>, tensor<2xbf16>, tensor<2xf64>) {
  %hn = lax.constant dense<-0.0> : tensor<2xf16>
  %hp = lax.constant dense<0.0> : tensor<2xf16>
  %bn = lax.constant dense<-0.0> : tensor<2xbf16>
  %bp = lax.constant dense<0.0> : tensor<2xbf16>
  %dn = lax.constant dense<-0.0> : tensor<2xf64>
  %0 = lax.sub %h, %hn : tensor<2xf16>
  %1 = lax.sub %h, %hp : tensor<2xf16>
  %2 = lax.add %b, %bp : tensor<2xbf16>
  %3 = lax.add %b, %bn : tensor<2xbf16>
  %4 = lax.add %d, %dn : tensor<2xf64>
  return %0, %1, %2, %3, %4 : tensor<2xf16>, tensor<2xf16>, tensor<2xbf16>, tensor<2xbf16>, tensor<2xf64>
}

// -----

// Constant arithmetic keeps signed zeros:
// [-0, +0, -0, inf] - [+0, +0, -0, -1] = [-0, +0, +0, inf].
// [-0, +0, -0, inf] + [-0, -0, +0, -inf] = [-0, +0, +0, NaN] and
// [-0, +0, -0, inf] * [+0, -1, -1, 0] = [-0, -0, +0, NaN] do not fold: which
// NaN inf - inf or inf * 0 gives is the machine's (-NaN on x86, +NaN in
// APFloat), and a bitcast would show it (fold-nan-result.mlir).
// CHECK-LABEL: func.func @constant_signed_zeros
// CHECK-DAG: %[[SUB:.*]] = lax.constant dense<[-0.000000e+00, 0.000000e+00, 0.000000e+00, 0x7F800000]> : tensor<4xf32>
// CHECK-DAG: %[[ADD:.*]] = lax.add
// CHECK-DAG: %[[MUL:.*]] = lax.mul
// CHECK: return %[[ADD]], %[[SUB]], %[[MUL]]
func.func @constant_signed_zeros() -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %a = lax.constant dense<[-0.0, 0.0, -0.0, 0x7F800000]> : tensor<4xf32>
  %b = lax.constant dense<[-0.0, -0.0, 0.0, 0xFF800000]> : tensor<4xf32>
  %c = lax.constant dense<[0.0, 0.0, -0.0, -1.0]> : tensor<4xf32>
  %d = lax.constant dense<[0.0, -1.0, -1.0, 0.0]> : tensor<4xf32>
  %0 = lax.add %a, %b : tensor<4xf32>
  %1 = lax.sub %a, %c : tensor<4xf32>
  %2 = lax.mul %a, %d : tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// max/min propagate NaN and order -0 < +0 (IEEE maximum/minimum, as the
// interpreter and the JIT): max(-0, +0) = +0, min(-0, +0) = -0.
// CHECK-LABEL: func.func @max_min_nan_zero
// CHECK-DAG: %[[MAX:.*]] = lax.constant dense<[0x7FC00000, 2.000000e+00, -0.000000e+00]> : tensor<3xf32>
// CHECK-DAG: %[[MIN:.*]] = lax.constant dense<[0x7FC00000, -1.000000e+00, -0.000000e+00]> : tensor<3xf32>
// CHECK-DAG: %[[ZMAX:.*]] = lax.constant dense<[0.000000e+00, 4.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[ZMIN:.*]] = lax.constant dense<[-0.000000e+00, 3.000000e+00]> : tensor<2xf32>
// CHECK: return %[[MAX]], %[[MIN]], %[[ZMAX]], %[[ZMIN]]
func.func @max_min_nan_zero() -> (tensor<3xf32>, tensor<3xf32>, tensor<2xf32>, tensor<2xf32>) {
  %a = lax.constant dense<[0x7FC00000, 2.0, -0.0]> : tensor<3xf32>
  %b = lax.constant dense<[1.0, -1.0, -0.0]> : tensor<3xf32>
  %0 = lax.max %a, %b : tensor<3xf32>
  %1 = lax.min %a, %b : tensor<3xf32>
  %c = lax.constant dense<[-0.0, 3.0]> : tensor<2xf32>
  %d = lax.constant dense<[0.0, 4.0]> : tensor<2xf32>
  %2 = lax.max %c, %d : tensor<2xf32>
  %3 = lax.min %c, %d : tensor<2xf32>
  return %0, %1, %2, %3 : tensor<3xf32>, tensor<3xf32>, tensor<2xf32>, tensor<2xf32>
}

// -----

// A reduction over no axes is its identity combined with x once: max(-inf, x),
// min(+inf, x) and 1 * x are x, but a float 0 + x is +0.0 for x = -0.0. An
// integer sum folds.
// CHECK-LABEL: func.func @reduce_no_axes
// CHECK: %[[S:.*]] = lax.reduce_sum %arg0 axes = [] : tensor<2x3xf32> -> tensor<2x3xf32>
// CHECK-NOT: lax.reduce
// CHECK: return %[[S]], %arg0, %arg0, %arg0, %arg1
func.func @reduce_no_axes(%a: tensor<2x3xf32>, %i: tensor<2x3xi32>)
    -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xi32>) {
  %0 = lax.reduce_sum %a axes = [] : tensor<2x3xf32> -> tensor<2x3xf32>
  %1 = lax.reduce_max %a axes = [] : tensor<2x3xf32> -> tensor<2x3xf32>
  %2 = lax.reduce_min %a axes = [] : tensor<2x3xf32> -> tensor<2x3xf32>
  %3 = lax.reduce_prod %a axes = [] : tensor<2x3xf32> -> tensor<2x3xf32>
  %4 = lax.reduce_sum %i axes = [] : tensor<2x3xi32> -> tensor<2x3xi32>
  return %0, %1, %2, %3, %4 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xi32>
}

// -----

// Integers wrap, so x - x = 0 and x * 0 = 0 are exact there.
// CHECK-LABEL: func.func @integer_identities
// CHECK-DAG: %[[Z:.*]] = lax.constant dense<0> : tensor<4xi32>
// CHECK-NOT: lax.sub
// CHECK-NOT: lax.mul
// CHECK-NOT: lax.add
// CHECK: return %[[Z]], %[[Z]], %arg0
func.func @integer_identities(%x: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) {
  %zero = lax.constant dense<0> : tensor<4xi32>
  %0 = lax.sub %x, %x : tensor<4xi32>
  %1 = lax.mul %x, %zero : tensor<4xi32>
  %2 = lax.add %zero, %x : tensor<4xi32>
  return %0, %1, %2 : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>
}
