// Round trip of every lax op: parse, print, parse again, print identically.
// RUN: kiln-opt %s | kiln-opt | FileCheck %s
// RUN: kiln-opt %s -mlir-print-op-generic | kiln-opt | FileCheck %s

// CHECK-LABEL: func.func @elementwise
func.func @elementwise(%a: tensor<4xf32>, %b: tensor<4xf32>, %i: tensor<4xi32>,
                       %p: tensor<4xi1>) {
  // CHECK: lax.add %{{.*}}, %{{.*}} : tensor<4xf32>
  %0 = lax.add %a, %b : tensor<4xf32>
  // CHECK: lax.sub
  %1 = lax.sub %a, %b : tensor<4xf32>
  // CHECK: lax.mul
  %2 = lax.mul %a, %b : tensor<4xf32>
  // CHECK: lax.div
  %3 = lax.div %a, %b : tensor<4xf32>
  // CHECK: lax.rem %{{.*}}, %{{.*}} : tensor<4xi32>
  %4 = lax.rem %i, %i : tensor<4xi32>
  // CHECK: lax.max
  %5 = lax.max %a, %b : tensor<4xf32>
  // CHECK: lax.min
  %6 = lax.min %a, %b : tensor<4xf32>
  // CHECK: lax.pow
  %7 = lax.pow %a, %b : tensor<4xf32>
  // CHECK: lax.integer_pow %{{.*}} y = -2 : tensor<4xf32>
  %8 = lax.integer_pow %a y = -2 : tensor<4xf32>
  // CHECK: lax.neg
  %9 = lax.neg %a : tensor<4xf32>
  // CHECK: lax.abs
  %10 = lax.abs %i : tensor<4xi32>
  // CHECK: lax.sign
  %11 = lax.sign %a : tensor<4xf32>
  // CHECK: lax.exp
  %12 = lax.exp %a : tensor<4xf32>
  // CHECK: lax.log
  %13 = lax.log %a : tensor<4xf32>
  // CHECK: lax.log1p
  %14 = lax.log1p %a : tensor<4xf32>
  // CHECK: lax.sin
  %15 = lax.sin %a : tensor<4xf32>
  // CHECK: lax.cos
  %16 = lax.cos %a : tensor<4xf32>
  // CHECK: lax.tanh
  %17 = lax.tanh %a : tensor<4xf32>
  // CHECK: lax.logistic
  %18 = lax.logistic %a : tensor<4xf32>
  // CHECK: lax.sqrt
  %19 = lax.sqrt %a : tensor<4xf32>
  // CHECK: lax.rsqrt
  %20 = lax.rsqrt %a : tensor<4xf32>
  // CHECK: lax.square
  %21 = lax.square %a : tensor<4xf32>
  // CHECK: lax.compare GE, %{{.*}}, %{{.*}} : tensor<4xf32>
  %22 = lax.compare GE, %a, %b : tensor<4xf32>
  // CHECK: lax.select_n %{{.*}}, %{{.*}}, %{{.*}} : tensor<4xi1>, tensor<4xf32>, tensor<4xf32>
  %23 = lax.select_n %22, %a, %b : tensor<4xi1>, tensor<4xf32>, tensor<4xf32>
  // CHECK: lax.and %{{.*}}, %{{.*}} : tensor<4xi1>
  %24 = lax.and %p, %22 : tensor<4xi1>
  // CHECK: lax.or
  %25 = lax.or %p, %24 : tensor<4xi1>
  // CHECK: lax.not %{{.*}} : tensor<4xi32>
  %26 = lax.not %i : tensor<4xi32>
  // CHECK: lax.convert_element_type %{{.*}} : tensor<4xf32> -> tensor<4xbf16>
  %27 = lax.convert_element_type %a : tensor<4xf32> -> tensor<4xbf16>
  // CHECK: lax.select_n %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<4xi32>, tensor<4xf32>
  %28 = lax.select_n %i, %a, %b, %a : tensor<4xi32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// CHECK-LABEL: func.func @structure
func.func @structure(%a: tensor<2x3xf32>, %v: tensor<3xf32>, %i: tensor<i32>) {
  // CHECK: lax.constant dense<1.000000e+00> : tensor<2x3xf32>
  %c = lax.constant dense<1.0> : tensor<2x3xf32>
  // CHECK: lax.constant dense<[1, 2, 3]> : tensor<3xi64>
  %d = lax.constant dense<[1, 2, 3]> : tensor<3xi64>
  // CHECK: lax.iota dimension = 1 : tensor<2x3xi32>
  %0 = lax.iota dimension = 1 : tensor<2x3xi32>
  // CHECK: lax.broadcast_in_dim %{{.*}} shape = [4, 3] dims = [1] : tensor<3xf32> -> tensor<4x3xf32>
  %1 = lax.broadcast_in_dim %v shape = [4, 3] dims = [1] : tensor<3xf32> -> tensor<4x3xf32>
  // CHECK: lax.reshape %{{.*}} : tensor<2x3xf32> -> tensor<6xf32>
  %2 = lax.reshape %a : tensor<2x3xf32> -> tensor<6xf32>
  // CHECK: lax.transpose %{{.*}} permutation = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  %3 = lax.transpose %a permutation = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  // CHECK: lax.rev %{{.*}} dims = [0, 1] : tensor<2x3xf32>
  %4 = lax.rev %a dims = [0, 1] : tensor<2x3xf32>
  // CHECK: lax.slice %{{.*}} start = [0, 1] limit = [2, 3] strides = [1, 2] : tensor<2x3xf32> -> tensor<2x1xf32>
  %5 = lax.slice %a start = [0, 1] limit = [2, 3] strides = [1, 2] : tensor<2x3xf32> -> tensor<2x1xf32>
  // CHECK: lax.dynamic_slice %{{.*}}[%{{.*}}, %{{.*}}] sizes = [1, 2] : (tensor<2x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x2xf32>
  %6 = lax.dynamic_slice %a[%i, %i] sizes = [1, 2] : (tensor<2x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x2xf32>
  // CHECK: lax.dynamic_update_slice %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} : (tensor<2x3xf32>, tensor<1x2xf32>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>
  %7 = lax.dynamic_update_slice %a[%i, %i], %6 : (tensor<2x3xf32>, tensor<1x2xf32>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>
  // CHECK: lax.concatenate %{{.*}}, %{{.*}} dim = 0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %8 = lax.concatenate %a, %c dim = 0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  // CHECK: lax.expand_dims %{{.*}} dims = [0, 2] : tensor<3xf32> -> tensor<1x3x1xf32>
  %9 = lax.expand_dims %v dims = [0, 2] : tensor<3xf32> -> tensor<1x3x1xf32>
  // CHECK: lax.squeeze %{{.*}} dims = [0, 2] : tensor<1x3x1xf32> -> tensor<3xf32>
  %10 = lax.squeeze %9 dims = [0, 2] : tensor<1x3x1xf32> -> tensor<3xf32>
  return
}

// CHECK-LABEL: func.func @contraction_and_reductions
func.func @contraction_and_reductions(%a: tensor<5x2x3xf32>, %b: tensor<5x3x4xf32>,
                                      %h: tensor<2x3xbf16>) {
  // CHECK: lax.dot_general %{{.*}}, %{{.*}} contracting = [2] x [1] batch = [0] x [0] : (tensor<5x2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x2x4xf32>
  %0 = lax.dot_general %a, %b contracting = [2] x [1] batch = [0] x [0]
      : (tensor<5x2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x2x4xf32>
  // CHECK: lax.dot_general {{.*}} {preferred_element_type = f32} : (tensor<2x3xbf16>, tensor<2x3xbf16>) -> tensor<3x3xf32>
  %1 = lax.dot_general %h, %h contracting = [0] x [0] batch = [] x [] {preferred_element_type = f32}
      : (tensor<2x3xbf16>, tensor<2x3xbf16>) -> tensor<3x3xf32>
  // CHECK: lax.reduce_sum %{{.*}} axes = [0, 2] : tensor<5x2x3xf32> -> tensor<2xf32>
  %2 = lax.reduce_sum %a axes = [0, 2] : tensor<5x2x3xf32> -> tensor<2xf32>
  // CHECK: lax.reduce_max
  %3 = lax.reduce_max %a axes = [1] : tensor<5x2x3xf32> -> tensor<5x3xf32>
  // CHECK: lax.reduce_min
  %4 = lax.reduce_min %a axes = [0, 1, 2] : tensor<5x2x3xf32> -> tensor<f32>
  // CHECK: lax.reduce_prod
  %5 = lax.reduce_prod %a axes = [2] : tensor<5x2x3xf32> -> tensor<5x2xf32>
  // CHECK: lax.argmax %{{.*}} axes = [1] : tensor<5x2x3xf32> -> tensor<5x3xi32>
  %6 = lax.argmax %a axes = [1] : tensor<5x2x3xf32> -> tensor<5x3xi32>
  // CHECK: lax.argmin %{{.*}} axes = [0] : tensor<5x2x3xf32> -> tensor<2x3xi64>
  %7 = lax.argmin %a axes = [0] : tensor<5x2x3xf32> -> tensor<2x3xi64>
  return
}

// CHECK-LABEL: func.func @scan
func.func @scan(%k: tensor<3xf32>, %c0: tensor<3xf32>, %xs: tensor<3x7xf32>)
    -> (tensor<3xf32>, tensor<3x7xf32>) {
  // CHECK: lax.scan length = 7 consts(%{{.*}}) carry(%{{.*}}) xs(%{{.*}}) {reverse = true, unroll = 2 : i64, xs_axes = array<i64: 1>, ys_axes = array<i64: 1>}
  // CHECK-SAME: : (tensor<3xf32>, tensor<3xf32>, tensor<3x7xf32>) -> (tensor<3xf32>, tensor<3x7xf32>)
  // CHECK: ^bb0(%{{.*}}: tensor<3xf32>, %{{.*}}: tensor<3xf32>, %{{.*}}: tensor<3xf32>):
  // CHECK: lax.yield %{{.*}}, %{{.*}} : tensor<3xf32>, tensor<3xf32>
  %c, %ys = lax.scan length = 7 consts(%k) carry(%c0) xs(%xs)
      {reverse = true, unroll = 2, xs_axes = array<i64: 1>, ys_axes = array<i64: 1>}
      : (tensor<3xf32>, tensor<3xf32>, tensor<3x7xf32>) -> (tensor<3xf32>, tensor<3x7xf32>) {
  ^bb0(%kk: tensor<3xf32>, %c: tensor<3xf32>, %x: tensor<3xf32>):
    %s = lax.add %c, %x : tensor<3xf32>
    %t = lax.mul %s, %kk : tensor<3xf32>
    lax.yield %t, %s : tensor<3xf32>, tensor<3xf32>
  }
  return %c, %ys : tensor<3xf32>, tensor<3x7xf32>
}

// A scan with no xs and no ys (a fori_loop).
// CHECK-LABEL: func.func @scan_no_xs
// CHECK: lax.scan length = 4 carry(%{{.*}}) xs() : (tensor<i32>) -> tensor<i32>
func.func @scan_no_xs(%c0: tensor<i32>) -> tensor<i32> {
  %c = lax.scan length = 4 carry(%c0) xs() : (tensor<i32>) -> tensor<i32> {
  ^bb0(%c: tensor<i32>):
    %s = lax.add %c, %c : tensor<i32>
    lax.yield %s : tensor<i32>
  }
  return %c : tensor<i32>
}

// Element types JAX uses.
// CHECK-LABEL: func.func @element_types
func.func @element_types(%a: tensor<2xf16>, %b: tensor<2xbf16>, %c: tensor<2xf64>,
                         %d: tensor<2xi8>, %e: tensor<2xi64>, %f: tensor<2xui32>) {
  %0 = lax.add %a, %a : tensor<2xf16>
  %1 = lax.add %b, %b : tensor<2xbf16>
  %2 = lax.add %c, %c : tensor<2xf64>
  %3 = lax.add %d, %d : tensor<2xi8>
  %4 = lax.add %e, %e : tensor<2xi64>
  // CHECK: lax.add %{{.*}}, %{{.*}} : tensor<2xui32>
  %5 = lax.add %f, %f : tensor<2xui32>
  return
}
