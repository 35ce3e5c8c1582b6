// Region rules (rules/library/scan-pushup.yaml, loops.yaml) on hand-written scans; the expected
// IR below is derived by hand from the rules' meaning. Their soundness is
// checked against the interpreter on the original programs in
// verify-rules.test (LIBRARY).
// RUN: kiln-opt %S/Inputs/scan-corpus.mlir --rules=%kiln_src/rules/library/scan-pushup.yaml --rules=%kiln_src/rules/library/loops.yaml | FileCheck %s
// RUN: kiln-opt %S/Inputs/scan-corpus.mlir --rules=%kiln_src/rules/library/scan-pushup.yaml --rules=%kiln_src/rules/library/loops.yaml --rule-stats -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS

// max over a reverse scan's ys: a carry from -inf, combined with each slice.
// CHECK-LABEL: func.func @max_reverse
// CHECK: %[[NEGINF:.*]] = lax.constant dense<0xFF800000> : tensor<4xf32>
// CHECK: %[[S:.*]]:2 = lax.scan length = 6 carry(%arg0, %[[NEGINF]]) xs(%arg1) {reverse = true} : (tensor<4xf32>, tensor<4xf32>, tensor<6x4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
// CHECK: ^bb0(%[[C:.*]]: tensor<4xf32>, %[[M:.*]]: tensor<4xf32>, %[[X:.*]]: tensor<4xf32>):
// CHECK: %[[T:.*]] = lax.tanh
// CHECK: %[[MAX:.*]] = lax.max %[[M]], %[[T]] : tensor<4xf32>
// CHECK: lax.yield %{{.*}}, %[[MAX]] : tensor<4xf32>, tensor<4xf32>
// CHECK: return %[[S]]#1

// min over all axes of a ys stacked along axis 1: per-slice min in the body,
// then a carry from +inf.
// CHECK-LABEL: func.func @min_axis1
// CHECK: %[[INF:.*]] = lax.constant dense<0x7F800000> : tensor<f32>
// CHECK: lax.scan length = 5 carry(%[[INF]]) xs(%arg0) {xs_axes = array<i64: 1>} : (tensor<f32>, tensor<3x5x2xf32>) -> tensor<f32>
// CHECK: %[[P:.*]] = lax.reduce_min %{{.*}} axes = [0, 1] : tensor<3x2xf32> -> tensor<f32>
// CHECK: lax.min %{{.*}}, %[[P]] : tensor<f32>

// An integer sum is exact: no tag needed.
// CHECK-LABEL: func.func @int_sum
// CHECK: %[[Z:.*]] = lax.constant dense<0> : tensor<3xi32>
// CHECK: lax.scan length = 7 carry(%[[Z]]) xs(%arg0)
// CHECK: lax.add %{{.*}}, %{{.*}} : tensor<3xi32>
// CHECK-NOT: lax.reduce_sum

// Sunk: the splat becomes a slice-sized splat in the body, y a new xs.
// CHECK-LABEL: func.func @sink
// CHECK: lax.scan length = 6 carry() xs(%arg0, %arg1) : (tensor<6x4xf32>, tensor<6x4xf32>) -> tensor<6x4xf32>
// CHECK: ^bb0(%[[X:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<4xf32>):
// CHECK: %[[E:.*]] = lax.exp %[[X]]
// CHECK: %[[TWO:.*]] = lax.constant dense<2.000000e+00> : tensor<4xf32>
// CHECK: %[[A:.*]] = lax.mul %[[E]], %[[TWO]] : tensor<4xf32>
// CHECK: lax.sub %[[Y]], %[[A]] : tensor<4xf32>

// exp(w) and -exp(w) are computed once, before the scan; w is no longer passed.
// CHECK-LABEL: func.func @hoist
// CHECK: %[[E:.*]] = lax.exp %arg0 : tensor<4xf32>
// CHECK: %[[N:.*]] = lax.neg %[[E]] : tensor<4xf32>
// CHECK: lax.scan length = 6 consts(%[[N]]) carry(%arg1) xs(%arg2)
// CHECK: ^bb0(%[[NC:.*]]: tensor<4xf32>, %{{.*}}: tensor<4xf32>, %[[X:.*]]: tensor<4xf32>):
// CHECK-NEXT: lax.mul %[[NC]], %[[X]]

// ys[-1] is the final carry (and ys[0] of a reverse scan); the ys goes.
// CHECK-LABEL: func.func @last
// CHECK: %[[S:.*]] = lax.scan length = 6 carry(%arg0) xs(%arg1) : (tensor<4xf32>, tensor<6x4xf32>) -> tensor<4xf32>
// CHECK-NOT: lax.slice
// CHECK: return %[[S]]
// CHECK-LABEL: func.func @first_of_reverse
// CHECK: %[[S:.*]] = lax.scan length = 6 carry(%arg0) xs(%arg1) {reverse = true, xs_axes = array<i64: 1>} : (tensor<4xf32>, tensor<4x6xf32>) -> tensor<4xf32>
// CHECK-NOT: lax.slice
// CHECK: return %[[S]]
// CHECK-LABEL: func.func @not_last
// CHECK: lax.slice %{{.*}}#1 start = [4, 0]

// The carry that only feeds itself (sin) and the unread ys go.
// CHECK-LABEL: func.func @unused
// CHECK: lax.scan length = 6 carry(%arg1) xs(%arg2) : (tensor<4xf32>, tensor<6x4xf32>) -> tensor<4xf32>
// CHECK-NOT: lax.sin

// In a while: exp(k) * 2 is computed once before the loop; the body reads it
// (and no longer the body const k, which goes).
// CHECK-LABEL: func.func @while_hoist
// CHECK: %[[TWO:.*]] = lax.constant dense<2.000000e+00> : tensor<4xf32>
// CHECK: %[[E:.*]] = lax.exp %arg0 : tensor<4xf32>
// CHECK: %[[E2:.*]] = lax.mul %[[E]], %[[TWO]] : tensor<4xf32>
// CHECK: lax.while cond_consts(%arg2) carry(%arg1, %{{.*}})
// CHECK: } body {
// CHECK-NEXT: ^bb0(%[[V:.*]]: tensor<4xf32>, %{{.*}}: tensor<i32>):
// CHECK-NEXT: lax.mul %[[V]], %[[E2]] : tensor<4xf32>

// The input projection is one product before the scan (the scan axis, 1,
// stays axis 1 of its result: the lhs free dimension 0 comes first) read as
// a new xs; its old xs goes once nothing reads it. The product with the
// step's own value and the batched one stay.
// CHECK-LABEL: func.func @input_projection
// CHECK: %[[P:.*]] = lax.dot_general %arg1, %arg2 contracting = [2] x [0] batch = [] x [] : (tensor<4x5x3xf32>, tensor<3x8xf32>) -> tensor<4x5x8xf32>
// CHECK: lax.scan length = 5 consts(%arg3) carry(%arg0) xs(%arg1, %arg4, %[[P]]) {xs_axes = array<i64: 1, 0, 1>}
// CHECK: ^bb0(%[[U:.*]]: tensor<8x8xf32>, %[[H:.*]]: tensor<4x8xf32>, %[[X:.*]]: tensor<4x3xf32>, %[[B:.*]]: tensor<2x4x3xf32>, %[[XW:.*]]: tensor<4x8xf32>):
// CHECK: %[[Q:.*]] = lax.dot_general %[[H]], %[[U]]
// CHECK: lax.add %[[XW]], %[[Q]]
// CHECK: lax.dot_general %[[X]], %{{.*}} contracting = [0] x [0]
// CHECK: lax.dot_general %[[B]], %[[B]] contracting = [2] x [2] batch = [0] x [0]

// CHECK-LABEL: func.func @unused_xs
// CHECK: lax.scan length = 6 carry(%arg0) xs(%arg1) : (tensor<4xf32>, tensor<6x4xf32>) -> tensor<4xf32>

// W x_t: the scan axis (1 of the xs) follows the lhs free dimension (8) and
// the rhs free one below it (4): axis 2 of [8, 4, 5].
// CHECK-LABEL: func.func @input_projection_rhs
// CHECK: %[[P:.*]] = lax.dot_general %arg2, %arg1 contracting = [1] x [2] batch = [] x [] : (tensor<8x3xf32>, tensor<4x5x3xf32>) -> tensor<8x4x5xf32>
// CHECK: lax.scan length = 5 carry(%arg0) xs(%[[P]]) {xs_axes = array<i64: 2>}

// The projections sink into the body (sink-ys-projection), reading W and V
// as consts: hs W per step is [4, 3], stacked along axis 0 as before; V
// hs'^T per step is [2, 4], its scan axis (1 of the states) after the lhs
// free dimension: axis 2 of [2, 4, 6]. The stacked states are then unread
// and removed.
// CHECK-LABEL: func.func @output_projection
// CHECK: %[[S:.*]]:3 = lax.scan length = 6 consts(%arg3, %arg2) carry(%arg0) xs(%arg1) {ys_axes = array<i64: 2, 0>} : (tensor<2x8xf32>, tensor<8x3xf32>, tensor<4x8xf32>, tensor<6x4x8xf32>) -> (tensor<4x8xf32>, tensor<2x4x6xf32>, tensor<6x4x3xf32>)
// CHECK: ^bb0(%[[V:.*]]: tensor<2x8xf32>, %[[W:.*]]: tensor<8x3xf32>, %[[H:.*]]: tensor<4x8xf32>, %[[X:.*]]: tensor<4x8xf32>):
// CHECK: %[[T:.*]] = lax.tanh
// CHECK: %[[Q:.*]] = lax.dot_general %[[V]], %[[T]] contracting = [1] x [1] batch = [] x [] : (tensor<2x8xf32>, tensor<4x8xf32>) -> tensor<2x4xf32>
// CHECK: %[[P:.*]] = lax.dot_general %[[T]], %[[W]] contracting = [1] x [0] batch = [] x [] : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
// CHECK: lax.yield %[[T]], %[[Q]], %[[P]]
// CHECK: return %[[S]]#2, %[[S]]#1

// STATS: hoist-loop-invariant: 2
// STATS: hoist-loop-invariant-from-while: 2
// STATS: hoist-xs-projection: 1
// STATS: hoist-xs-projection-rhs: 1
// STATS: last-ys-is-final-carry: 2
// STATS: reduce_max-any-of-ys-to-carry: 1
// STATS: reduce_min-any-of-ys-into-scan-body: 1
// STATS: reduce_min-any-of-ys-to-carry: 1
// STATS: reduce_sum-int-of-ys-to-carry: 1
// STATS: remove-unused-carry: 1
// STATS: remove-unused-const: 4
// STATS: remove-unused-xs: 2
// STATS: sink-elementwise-into-scan: 2
// STATS: sink-ys-projection: 2
