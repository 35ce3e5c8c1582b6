// The algebra library's factoring and collecting (rules/library/algebra/
// collect.yaml), scalars moved past contractions and reductions
// (scalars.yaml) and reshape -> matmul -> reshape collapses
// (reshape-dot.yaml).
// RUN: kiln-opt %s --rules=%kiln_src/rules/library/algebra/collect.yaml \
// RUN:   --rules=%kiln_src/rules/library/algebra/scalars.yaml \
// RUN:   --rules=%kiln_src/rules/library/algebra/reshape-dot.yaml \
// RUN:   --rule-tags=reassociates-float,changes-precision,assumes-finite,assumes-no-overflow,assumes-positive | FileCheck %s
// RUN: kiln-opt %s --rules=%kiln_src/rules/library/algebra/collect.yaml \
// RUN:   --rules=%kiln_src/rules/library/algebra/scalars.yaml \
// RUN:   --rules=%kiln_src/rules/library/algebra/reshape-dot.yaml | FileCheck %s --check-prefix=EXACT

// x + x is 2 * x (exact).
// CHECK-LABEL: func.func @add_self
// CHECK-NEXT: %[[C:.*]] = lax.constant dense<2.000000e+00>
// CHECK-NEXT: %[[R:.*]] = lax.mul %arg0, %[[C]]
// CHECK-NEXT: return %[[R]]
// EXACT-LABEL: func.func @add_self
// EXACT-NEXT: lax.constant dense<2.000000e+00>
func.func @add_self(%x: tensor<6xf32>) -> tensor<6xf32> {
  %0 = lax.add %x, %x : tensor<6xf32>
  return %0 : tensor<6xf32>
}

// x + 3 * x is 4 * x (the constants folded).
// CHECK-LABEL: func.func @add_scaled_self
// CHECK-NEXT: %[[C:.*]] = lax.constant dense<4.000000e+00>
// CHECK-NEXT: %[[R:.*]] = lax.mul %arg0, %[[C]]
// CHECK-NEXT: return %[[R]]
// EXACT-LABEL: func.func @add_scaled_self
// EXACT: lax.add
func.func @add_scaled_self(%x: tensor<6xf32>) -> tensor<6xf32> {
  %c = lax.constant dense<3.0> : tensor<6xf32>
  %0 = lax.mul %c, %x : tensor<6xf32>
  %1 = lax.add %x, %0 : tensor<6xf32>
  return %1 : tensor<6xf32>
}

// CHECK-LABEL: func.func @sub_scaled_self
// CHECK-NEXT: %[[C:.*]] = lax.constant dense<4.000000e+00>
// CHECK-NEXT: %[[R:.*]] = lax.mul %arg0, %[[C]]
// CHECK-NEXT: return %[[R]]
func.func @sub_scaled_self(%x: tensor<6xf32>) -> tensor<6xf32> {
  %c = lax.constant dense<5.0> : tensor<6xf32>
  %0 = lax.mul %x, %c : tensor<6xf32>
  %1 = lax.sub %0, %x : tensor<6xf32>
  return %1 : tensor<6xf32>
}

// a * b + c * b is (a + c) * b; b * a - c * b is (a - c) * b.
// CHECK-LABEL: func.func @factor_common
// CHECK-NEXT: %[[S:.*]] = lax.add %arg0, %arg2
// CHECK-NEXT: %[[P:.*]] = lax.mul %[[S]], %arg1
// CHECK-NEXT: %[[D:.*]] = lax.sub %arg0, %arg2
// CHECK-NEXT: %[[Q:.*]] = lax.mul %[[D]], %arg1
// CHECK-NEXT: %[[R:.*]] = lax.div %[[P]], %[[Q]]
// CHECK-NEXT: return %[[R]]
func.func @factor_common(%a: tensor<6xf32>, %b: tensor<6xf32>, %c: tensor<6xf32>) -> tensor<6xf32> {
  %0 = lax.mul %a, %b : tensor<6xf32>
  %1 = lax.mul %c, %b : tensor<6xf32>
  %2 = lax.add %0, %1 : tensor<6xf32>
  %3 = lax.mul %b, %a : tensor<6xf32>
  %4 = lax.mul %c, %b : tensor<6xf32>
  %5 = lax.sub %3, %4 : tensor<6xf32>
  %6 = lax.div %2, %5 : tensor<6xf32>
  return %6 : tensor<6xf32>
}

// A product read twice is not factored (nothing would be saved).
// CHECK-LABEL: func.func @factor_shared
// CHECK-COUNT-2: lax.mul
// CHECK: lax.add
func.func @factor_shared(%a: tensor<6xf32>, %b: tensor<6xf32>, %c: tensor<6xf32>) -> tensor<6xf32> {
  %0 = lax.mul %a, %b : tensor<6xf32>
  %1 = lax.mul %c, %b : tensor<6xf32>
  %2 = lax.add %0, %1 : tensor<6xf32>
  %3 = lax.add %2, %0 : tensor<6xf32>
  return %3 : tensor<6xf32>
}

// CHECK-LABEL: func.func @factor_divisor
// CHECK-NEXT: %[[S:.*]] = lax.sub %arg0, %arg2
// CHECK-NEXT: %[[R:.*]] = lax.div %[[S]], %arg1
// CHECK-NEXT: %[[T:.*]] = lax.add %arg0, %arg2
// CHECK-NEXT: %[[U:.*]] = lax.div %[[T]], %arg1
// CHECK-NEXT: %[[V:.*]] = lax.mul %[[R]], %[[U]]
// CHECK-NEXT: return %[[V]]
func.func @factor_divisor(%a: tensor<6xf32>, %b: tensor<6xf32>, %c: tensor<6xf32>) -> tensor<6xf32> {
  %0 = lax.div %a, %b : tensor<6xf32>
  %1 = lax.div %c, %b : tensor<6xf32>
  %2 = lax.sub %0, %1 : tensor<6xf32>
  %3 = lax.div %a, %b : tensor<6xf32>
  %4 = lax.div %c, %b : tensor<6xf32>
  %5 = lax.add %3, %4 : tensor<6xf32>
  %6 = lax.mul %2, %5 : tensor<6xf32>
  return %6 : tensor<6xf32>
}

// (x * 2) * 3 is x * 6; (x + 1) + 2 is x + 3.
// CHECK-LABEL: func.func @constants
// CHECK-DAG: %[[SIX:.*]] = lax.constant dense<6.000000e+00>
// CHECK-DAG: %[[THREE:.*]] = lax.constant dense<3.000000e+00>
// CHECK-DAG: %[[M:.*]] = lax.mul %arg0, %[[SIX]]
// CHECK-DAG: %[[A:.*]] = lax.add %arg0, %[[THREE]]
// CHECK: %[[R:.*]] = lax.sub %[[M]], %[[A]]
// CHECK-NEXT: return %[[R]]
func.func @constants(%x: tensor<6xf32>) -> tensor<6xf32> {
  %c1 = lax.constant dense<1.0> : tensor<6xf32>
  %c2 = lax.constant dense<2.0> : tensor<6xf32>
  %c3 = lax.constant dense<3.0> : tensor<6xf32>
  %0 = lax.mul %x, %c2 : tensor<6xf32>
  %1 = lax.mul %c3, %0 : tensor<6xf32>
  %2 = lax.add %x, %c1 : tensor<6xf32>
  %3 = lax.add %2, %c2 : tensor<6xf32>
  %4 = lax.sub %1, %3 : tensor<6xf32>
  return %4 : tensor<6xf32>
}

// x / 4 is x * 0.25 (exact); x / 3 is x * (1 / 3) (changes-precision);
// then x * 0.25 + x * (1 / 3) is x * (0.25 + 1 / 3) (reassociates-float).
// CHECK-LABEL: func.func @div_by_constant
// CHECK-NEXT: %[[K:.*]] = lax.constant dense<0.583333373>
// CHECK-NEXT: %[[R:.*]] = lax.mul %arg0, %[[K]]
// CHECK-NEXT: return %[[R]]
// EXACT-LABEL: func.func @div_by_constant
// EXACT: lax.mul %arg0
// EXACT: lax.div %arg0
func.func @div_by_constant(%x: tensor<6xf32>) -> tensor<6xf32> {
  %c4 = lax.constant dense<4.0> : tensor<6xf32>
  %c3 = lax.constant dense<3.0> : tensor<6xf32>
  %0 = lax.div %x, %c4 : tensor<6xf32>
  %1 = lax.div %x, %c3 : tensor<6xf32>
  %2 = lax.add %0, %1 : tensor<6xf32>
  return %2 : tensor<6xf32>
}

// (x / a) / b is x / (a * b).
// CHECK-LABEL: func.func @div_of_div
// CHECK-NEXT: %[[M:.*]] = lax.mul %arg1, %arg2
// CHECK-NEXT: %[[R:.*]] = lax.div %arg0, %[[M]]
// CHECK-NEXT: return %[[R]]
func.func @div_of_div(%x: tensor<6xf32>, %a: tensor<6xf32>, %b: tensor<6xf32>) -> tensor<6xf32> {
  %0 = lax.div %x, %a : tensor<6xf32>
  %1 = lax.div %0, %b : tensor<6xf32>
  return %1 : tensor<6xf32>
}

// CHECK-LABEL: func.func @sub_self
// CHECK-NEXT: %[[Z:.*]] = lax.constant dense<0.000000e+00>
// CHECK-NEXT: return %[[Z]]
// EXACT-LABEL: func.func @sub_self
// EXACT-NEXT: lax.sub
func.func @sub_self(%x: tensor<6xf32>) -> tensor<6xf32> {
  %0 = lax.sub %x, %x : tensor<6xf32>
  return %0 : tensor<6xf32>
}

// Negations folded (exact): x + (-y), (-y) + x, x - (-y), (-a) * (-b),
// (-a) / (-b), x * -1 (whose -x then meets an add: a sub).
// CHECK-LABEL: func.func @negations
// CHECK-NEXT: %[[A:.*]] = lax.sub %arg0, %arg1
// CHECK-NEXT: %[[B:.*]] = lax.sub %arg0, %arg1
// CHECK-NEXT: %[[C:.*]] = lax.add %arg0, %arg1
// CHECK-NEXT: %[[D:.*]] = lax.mul %arg0, %arg1
// CHECK-NEXT: %[[E:.*]] = lax.div %arg0, %arg1
// CHECK-NOT: lax.neg
// CHECK: lax.sub %[[E]], %arg0
// EXACT-LABEL: func.func @negations
// EXACT-NEXT: lax.sub %arg0, %arg1
func.func @negations(%x: tensor<6xf32>, %y: tensor<6xf32>) -> tensor<6xf32> {
  %ny = lax.neg %y : tensor<6xf32>
  %nx = lax.neg %x : tensor<6xf32>
  %m1 = lax.constant dense<-1.0> : tensor<6xf32>
  %0 = lax.add %x, %ny : tensor<6xf32>
  %1 = lax.add %ny, %x : tensor<6xf32>
  %2 = lax.sub %x, %ny : tensor<6xf32>
  %3 = lax.mul %nx, %ny : tensor<6xf32>
  %4 = lax.div %nx, %ny : tensor<6xf32>
  %5 = lax.mul %x, %m1 : tensor<6xf32>
  %6 = lax.add %0, %1 : tensor<6xf32>
  %7 = lax.add %2, %3 : tensor<6xf32>
  %8 = lax.add %4, %5 : tensor<6xf32>
  %9 = lax.add %6, %7 : tensor<6xf32>
  %10 = lax.add %9, %8 : tensor<6xf32>
  return %10 : tensor<6xf32>
}

// (s * B) @ C is s * (B @ C) for a traced scalar s, on either side.
// CHECK-LABEL: func.func @scaled_dot
// CHECK-NEXT: %[[D:.*]] = lax.dot_general %arg0, %arg1 contracting = [1] x [0] batch = [] x [] {preferred_element_type = f32}
// CHECK-NEXT: %[[S:.*]] = lax.broadcast_in_dim %arg2 shape = [8, 2] dims = []
// CHECK-NEXT: %[[R:.*]] = lax.mul %[[D]], %[[S]]
// CHECK-NEXT: return %[[R]]
func.func @scaled_dot(%B: tensor<8x4xf32>, %C: tensor<4x2xf32>, %s: tensor<f32>) -> tensor<8x2xf32> {
  %0 = lax.broadcast_in_dim %s shape = [8, 4] dims = [] : tensor<f32> -> tensor<8x4xf32>
  %1 = lax.mul %0, %B : tensor<8x4xf32>
  %2 = lax.dot_general %1, %C contracting = [1] x [0] batch = [] x [] {preferred_element_type = f32} : (tensor<8x4xf32>, tensor<4x2xf32>) -> tensor<8x2xf32>
  return %2 : tensor<8x2xf32>
}

// CHECK-LABEL: func.func @scaled_dot_rhs
// CHECK-NEXT: %[[D:.*]] = lax.dot_general %arg1, %arg0 contracting = [0] x [1] batch = [] x []
// CHECK-NEXT: %[[S:.*]] = lax.broadcast_in_dim %arg2 shape = [2, 8] dims = []
// CHECK-NEXT: %[[R:.*]] = lax.mul %[[D]], %[[S]]
// CHECK-NEXT: return %[[R]]
func.func @scaled_dot_rhs(%B: tensor<8x4xf32>, %C: tensor<4x2xf32>, %s: tensor<f32>) -> tensor<2x8xf32> {
  %0 = lax.broadcast_in_dim %s shape = [8, 4] dims = [] : tensor<f32> -> tensor<8x4xf32>
  %1 = lax.mul %B, %0 : tensor<8x4xf32>
  %2 = lax.dot_general %C, %1 contracting = [0] x [1] batch = [] x [] : (tensor<4x2xf32>, tensor<8x4xf32>) -> tensor<2x8xf32>
  return %2 : tensor<2x8xf32>
}

// A constant scale: 2.5 * B.
// CHECK-LABEL: func.func @constant_scaled_dot
// CHECK-NEXT: %[[D:.*]] = lax.dot_general %arg0, %arg1 contracting = [1] x [0] batch = [] x [] {preferred_element_type = f32}
// CHECK-NEXT: %[[S:.*]] = lax.constant dense<2.500000e+00> : tensor<8x2xf32>
// CHECK-NEXT: %[[R:.*]] = lax.mul %[[D]], %[[S]]
// CHECK-NEXT: return %[[R]]
func.func @constant_scaled_dot(%B: tensor<8x4xf32>, %C: tensor<4x2xf32>) -> tensor<8x2xf32> {
  %k = lax.constant dense<2.5> : tensor<8x4xf32>
  %1 = lax.mul %k, %B : tensor<8x4xf32>
  %2 = lax.dot_general %1, %C contracting = [1] x [0] batch = [] x [] {preferred_element_type = f32} : (tensor<8x4xf32>, tensor<4x2xf32>) -> tensor<8x2xf32>
  return %2 : tensor<8x2xf32>
}

// A result larger than the scaled operand keeps the scale where it was.
// CHECK-LABEL: func.func @scaled_dot_larger
// CHECK: lax.mul
// CHECK-NEXT: lax.dot_general
func.func @scaled_dot_larger(%B: tensor<2x4xf32>, %C: tensor<4x8xf32>) -> tensor<2x8xf32> {
  %k = lax.constant dense<2.5> : tensor<2x4xf32>
  %1 = lax.mul %k, %B : tensor<2x4xf32>
  %2 = lax.dot_general %1, %C contracting = [1] x [0] batch = [] x [] : (tensor<2x4xf32>, tensor<4x8xf32>) -> tensor<2x8xf32>
  return %2 : tensor<2x8xf32>
}

// sum(s * x), sum(2 * x), sum(x / s) (stays: s may be 0), sum(x / 3) (a
// product by 1 / 3 first), sum(-x) (whose negation then meets an add: a sub).
// CHECK-LABEL: func.func @scaled_sums
// CHECK-NEXT: %[[B:.*]] = lax.broadcast_in_dim %arg1
// CHECK-NEXT: %[[S1:.*]] = lax.reduce_sum %arg0 axes = [0]
// CHECK-NEXT: %[[P1:.*]] = lax.mul %[[S1]], %arg1
// CHECK-NEXT: %[[S2:.*]] = lax.reduce_sum %arg0 axes = [0]
// CHECK-NEXT: %[[K2:.*]] = lax.constant dense<2.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[P2:.*]] = lax.mul %[[S2]], %[[K2]]
// CHECK-NEXT: %[[D3:.*]] = lax.div %arg0, %[[B]]
// CHECK-NEXT: %[[S3:.*]] = lax.reduce_sum %[[D3]] axes = [0]
// CHECK-NEXT: %[[S4:.*]] = lax.reduce_sum %arg0 axes = [0]
// CHECK-NEXT: %[[K4:.*]] = lax.constant dense<0.333333343> : tensor<f32>
// CHECK-NEXT: %[[P4:.*]] = lax.mul %[[S4]], %[[K4]]
// CHECK-NEXT: %[[S5:.*]] = lax.reduce_sum %arg0 axes = [0]
// CHECK: lax.sub %{{.*}}, %[[S5]]
func.func @scaled_sums(%x: tensor<6xf32>, %s: tensor<f32>) -> tensor<f32> {
  %bs = lax.broadcast_in_dim %s shape = [6] dims = [] : tensor<f32> -> tensor<6xf32>
  %c2 = lax.constant dense<2.0> : tensor<6xf32>
  %c3 = lax.constant dense<3.0> : tensor<6xf32>
  %0 = lax.mul %bs, %x : tensor<6xf32>
  %1 = lax.reduce_sum %0 axes = [0] : tensor<6xf32> -> tensor<f32>
  %2 = lax.mul %x, %c2 : tensor<6xf32>
  %3 = lax.reduce_sum %2 axes = [0] : tensor<6xf32> -> tensor<f32>
  %4 = lax.div %x, %bs : tensor<6xf32>
  %5 = lax.reduce_sum %4 axes = [0] : tensor<6xf32> -> tensor<f32>
  %6 = lax.div %x, %c3 : tensor<6xf32>
  %7 = lax.reduce_sum %6 axes = [0] : tensor<6xf32> -> tensor<f32>
  %8 = lax.neg %x : tensor<6xf32>
  %9 = lax.reduce_sum %8 axes = [0] : tensor<6xf32> -> tensor<f32>
  %10 = lax.add %1, %3 : tensor<f32>
  %11 = lax.add %5, %7 : tensor<f32>
  %12 = lax.add %10, %11 : tensor<f32>
  %13 = lax.add %12, %9 : tensor<f32>
  return %13 : tensor<f32>
}

// max(x - 3) is max(x) - 3 and min(x + 3) is min(x) + 3; max(2 x) is
// 2 max(x); max(-x) is -min(x): all exact (rounding is monotone).
// CHECK-LABEL: func.func @shifted_extrema
// CHECK-NEXT: %[[M:.*]] = lax.reduce_max %arg0 axes = [1]
// CHECK-NEXT: %[[K:.*]] = lax.constant dense<3.000000e+00> : tensor<4xf32>
// CHECK-NEXT: %[[A:.*]] = lax.sub %[[M]], %[[K]]
// CHECK-NEXT: %[[N:.*]] = lax.reduce_min %arg0 axes = [1]
// CHECK-NEXT: %[[K2:.*]] = lax.constant dense<3.000000e+00> : tensor<4xf32>
// CHECK-NEXT: %[[B:.*]] = lax.add %[[N]], %[[K2]]
// CHECK-NEXT: %[[P:.*]] = lax.reduce_max %arg0 axes = [1]
// CHECK-NEXT: %[[K3:.*]] = lax.constant dense<2.000000e+00> : tensor<4xf32>
// CHECK-NEXT: %[[C:.*]] = lax.mul %[[P]], %[[K3]]
// CHECK-NEXT: %[[Q:.*]] = lax.reduce_min %arg0 axes = [1]
// CHECK-NEXT: lax.add %[[A]], %[[B]]
// CHECK-NEXT: lax.sub %[[C]], %[[Q]]
// EXACT-LABEL: func.func @shifted_extrema
// EXACT-NEXT: lax.reduce_max %arg0
func.func @shifted_extrema(%x: tensor<4x6xf32>) -> tensor<4xf32> {
  %c3 = lax.constant dense<3.0> : tensor<4x6xf32>
  %c2 = lax.constant dense<2.0> : tensor<4x6xf32>
  %0 = lax.sub %x, %c3 : tensor<4x6xf32>
  %1 = lax.reduce_max %0 axes = [1] : tensor<4x6xf32> -> tensor<4xf32>
  %2 = lax.add %x, %c3 : tensor<4x6xf32>
  %3 = lax.reduce_min %2 axes = [1] : tensor<4x6xf32> -> tensor<4xf32>
  %4 = lax.mul %c2, %x : tensor<4x6xf32>
  %5 = lax.reduce_max %4 axes = [1] : tensor<4x6xf32> -> tensor<4xf32>
  %6 = lax.neg %x : tensor<4x6xf32>
  %7 = lax.reduce_max %6 axes = [1] : tensor<4x6xf32> -> tensor<4xf32>
  %8 = lax.add %1, %3 : tensor<4xf32>
  %9 = lax.add %5, %7 : tensor<4xf32>
  %10 = lax.add %8, %9 : tensor<4xf32>
  return %10 : tensor<4xf32>
}

// A negative scale flips max and min: left alone.
// CHECK-LABEL: func.func @negatively_scaled_max
// CHECK: lax.mul
// CHECK-NEXT: lax.reduce_max
func.func @negatively_scaled_max(%x: tensor<4x6xf32>) -> tensor<4xf32> {
  %c = lax.constant dense<-2.0> : tensor<4x6xf32>
  %0 = lax.mul %x, %c : tensor<4x6xf32>
  %1 = lax.reduce_max %0 axes = [1] : tensor<4x6xf32> -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// (A.reshape(2, 3, 8) @ W).reshape(6, 5) is A @ W; (X.reshape(6, 8) @ W)
// .reshape(2, 3, 5) is X @ W contracting X's last axis (exact).
// CHECK-LABEL: func.func @reshape_matmul
// CHECK-NEXT: %[[D:.*]] = lax.dot_general %arg0, %arg2 contracting = [1] x [0] batch = [] x [] {preferred_element_type = f32} : (tensor<6x8xf32>, tensor<8x5xf32>) -> tensor<6x5xf32>
// CHECK-NEXT: %[[E:.*]] = lax.dot_general %arg1, %arg2 contracting = [2] x [0] batch = [] x [] : (tensor<2x3x8xf32>, tensor<8x5xf32>) -> tensor<2x3x5xf32>
// EXACT-LABEL: func.func @reshape_matmul
// EXACT-NEXT: lax.dot_general %arg0, %arg2
func.func @reshape_matmul(%A: tensor<6x8xf32>, %X: tensor<2x3x8xf32>, %W: tensor<8x5xf32>) -> (tensor<6x5xf32>, tensor<2x3x5xf32>) {
  %0 = lax.reshape %A : tensor<6x8xf32> -> tensor<2x3x8xf32>
  %1 = lax.dot_general %0, %W contracting = [2] x [0] batch = [] x [] {preferred_element_type = f32} : (tensor<2x3x8xf32>, tensor<8x5xf32>) -> tensor<2x3x5xf32>
  %2 = lax.reshape %1 : tensor<2x3x5xf32> -> tensor<6x5xf32>
  %3 = lax.reshape %X : tensor<2x3x8xf32> -> tensor<6x8xf32>
  %4 = lax.dot_general %3, %W contracting = [1] x [0] batch = [] x [] : (tensor<6x8xf32>, tensor<8x5xf32>) -> tensor<6x5xf32>
  %5 = lax.reshape %4 : tensor<6x5xf32> -> tensor<2x3x5xf32>
  return %2, %5 : tensor<6x5xf32>, tensor<2x3x5xf32>
}

// CHECK-LABEL: func.func @reshape_reshape
// CHECK-NEXT: %[[R:.*]] = lax.reshape %arg0 : tensor<6x4xf32> -> tensor<24xf32>
// CHECK-NEXT: return %[[R]]
func.func @reshape_reshape(%x: tensor<6x4xf32>) -> tensor<24xf32> {
  %0 = lax.reshape %x : tensor<6x4xf32> -> tensor<3x8xf32>
  %1 = lax.reshape %0 : tensor<3x8xf32> -> tensor<24xf32>
  return %1 : tensor<24xf32>
}
