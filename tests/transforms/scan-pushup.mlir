// RUN: kiln-opt --kiln-scan-pushup -split-input-file %s | FileCheck %s --check-prefixes=CHECK,EXACT
// RUN: kiln-opt --kiln-scan-pushup=reassociate=true -split-input-file %s | FileCheck %s --check-prefixes=CHECK,REASSOC

// Seed 002: with reassociation enabled, the squared error is summed in a
// carry and no stacked output is left; by default only the exact steps run
// (the elementwise chain moves in, the float sum stays outside).
// RUN: kiln-opt --kiln-scan-pushup=reassociate=true %examples/seeds/seed002_mse_before.mlir | FileCheck %s --check-prefix=SEED
// SEED: %[[ZERO:.*]] = lax.constant dense<0.000000e+00> : tensor<f32>
// The carry of sin values is dropped by the seed (`_`), so it disappears too.
// SEED: %[[S:.*]] = lax.scan length = 30 carry(%[[ZERO]]) xs(%arg1, %arg2)
// SEED-SAME: -> tensor<f32>
// SEED-NOT: lax.sin
// SEED: lax.sub
// SEED: lax.integer_pow
// SEED: lax.reduce_sum %{{.*}} axes = [0, 1] : tensor<15x12xf32> -> tensor<f32>
// SEED: lax.add %{{.*}}, %{{.*}} : tensor<f32>
// SEED: lax.div %[[S]], %{{.*}} : tensor<f32>
// SEED-NOT: lax.reduce_sum

// CHECK-LABEL: func.func @seed002
// EXACT: lax.scan length = 30 carry() xs(%arg1, %arg2)
// EXACT: lax.integer_pow {{.*}} : tensor<15x12xf32>
// EXACT: lax.reduce_sum %{{.*}} axes = [0, 1, 2] : tensor<30x15x12xf32> -> tensor<f32>
// REASSOC: lax.scan length = 30 carry(%{{.*}}) xs(%arg1, %arg2)
// REASSOC-NOT: tensor<30x15x12xf32> -> tensor<f32>
func.func @seed002(%c0: tensor<10x5x8xf32>, %xs: tensor<30x15x12xf32>, %y: tensor<30x15x12xf32>) -> tensor<f32> {
  %c, %ys = lax.scan length = 30 carry(%c0) xs(%xs) : (tensor<10x5x8xf32>, tensor<30x15x12xf32>) -> (tensor<10x5x8xf32>, tensor<30x15x12xf32>) {
  ^bb0(%carry: tensor<10x5x8xf32>, %x: tensor<15x12xf32>):
    %s = lax.sin %carry : tensor<10x5x8xf32>
    %cs = lax.cos %x : tensor<15x12xf32>
    lax.yield %s, %cs : tensor<10x5x8xf32>, tensor<15x12xf32>
  }
  %e = lax.sub %y, %ys : tensor<30x15x12xf32>
  %f = lax.integer_pow %e y = 2 : tensor<30x15x12xf32>
  %g = lax.reduce_sum %f axes = [0, 1, 2] : tensor<30x15x12xf32> -> tensor<f32>
  return %g : tensor<f32>
}

// -----

// reduce_max regroups exactly: it becomes a carry without the tag. The scan
// is reversed, has a const and two carries; the broadcast of a
// loop-invariant value becomes a const. The second carry (and the const only
// it reads) is dead once its stacked copy is gone, and is dropped.
// CHECK-LABEL: func.func @max_reverse_consts
// CHECK-DAG: %[[NEGINF:.*]] = lax.constant dense<0xFF800000> : tensor<4xf32>
// CHECK: %[[S:.*]]:2 = lax.scan length = 6 consts(%arg3) carry(%arg1, %[[NEGINF]]) xs(%arg2) {reverse = true}
// CHECK: ^bb0(%[[B:.*]]: tensor<4xf32>, %{{.*}}: tensor<4xf32>, %[[ACC:.*]]: tensor<4xf32>, %{{.*}}: tensor<4xf32>):
// The broadcast of the slice shape [4] to [4] folds away in the body.
// CHECK: %[[M:.*]] = lax.mul %{{.*}}, %[[B]]
// CHECK: %[[NEXT:.*]] = lax.max %[[ACC]], %[[M]]
// CHECK: lax.yield %{{.*}}, %[[NEXT]]
// CHECK: return %[[S]]#1
func.func @max_reverse_consts(%k: tensor<4xf32>, %c0: tensor<4xf32>, %xs: tensor<6x4xf32>,
                              %b: tensor<4xf32>) -> tensor<4xf32> {
  %c:3 = lax.scan length = 6 consts(%k) carry(%c0, %c0) xs(%xs) {reverse = true}
      : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<6x4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<6x4xf32>) {
  ^bb0(%kk: tensor<4xf32>, %c1: tensor<4xf32>, %c2: tensor<4xf32>, %x: tensor<4xf32>):
    %s = lax.add %c1, %x : tensor<4xf32>
    %t = lax.mul %c2, %kk : tensor<4xf32>
    lax.yield %s, %t, %s : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  }
  %bb = lax.broadcast_in_dim %b shape = [6, 4] dims = [1] : tensor<4xf32> -> tensor<6x4xf32>
  %m = lax.mul %c#2, %bb : tensor<6x4xf32>
  %r = lax.reduce_max %m axes = [0] : tensor<6x4xf32> -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// A ys used elsewhere too: its elementwise consumer is not sunk (the ys must
// be stacked anyway; sinking would stack a second output), so nothing moves
// and nothing is computed twice.
// CHECK-LABEL: func.func @ys_used_elsewhere
// CHECK: %[[S:.*]]:2 = lax.scan
// CHECK: %[[N:.*]] = lax.neg %[[S]]#1 : tensor<5x3xf32>
// CHECK: lax.reduce_min %[[N]] axes = [0]
// CHECK: return {{.*}}%[[S]]#1
func.func @ys_used_elsewhere(%c0: tensor<3xf32>, %xs: tensor<5x3xf32>) -> (tensor<3xf32>, tensor<5x3xf32>) {
  %c, %ys = lax.scan length = 5 carry(%c0) xs(%xs) : (tensor<3xf32>, tensor<5x3xf32>) -> (tensor<3xf32>, tensor<5x3xf32>) {
  ^bb0(%a: tensor<3xf32>, %x: tensor<3xf32>):
    %s = lax.add %a, %x : tensor<3xf32>
    lax.yield %s, %s : tensor<3xf32>, tensor<3xf32>
  }
  %n = lax.neg %ys : tensor<5x3xf32>
  %r = lax.reduce_min %n axes = [0] : tensor<5x3xf32> -> tensor<3xf32>
  return %r, %ys : tensor<3xf32>, tensor<5x3xf32>
}

// -----

// One ys feeding two reductions: each becomes its own carry (reduce_max
// exactly; the sum only with reassociation).
// CHECK-LABEL: func.func @two_reductions
// EXACT: lax.scan length = 5 carry(%arg0, %{{.*}}) xs(%arg1)
// EXACT: lax.reduce_sum %{{.*}} axes = [0] : tensor<5x3xf32> -> tensor<3xf32>
// REASSOC: lax.scan length = 5 carry(%arg0, %{{.*}}, %{{.*}}) xs(%arg1)
// REASSOC-SAME: -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
// REASSOC-NOT: lax.reduce_sum
func.func @two_reductions(%c0: tensor<3xf32>, %xs: tensor<5x3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %c, %ys = lax.scan length = 5 carry(%c0) xs(%xs) : (tensor<3xf32>, tensor<5x3xf32>) -> (tensor<3xf32>, tensor<5x3xf32>) {
  ^bb0(%a: tensor<3xf32>, %x: tensor<3xf32>):
    %s = lax.add %a, %x : tensor<3xf32>
    lax.yield %s, %s : tensor<3xf32>, tensor<3xf32>
  }
  %r1 = lax.reduce_max %ys axes = [0] : tensor<5x3xf32> -> tensor<3xf32>
  %r2 = lax.reduce_sum %ys axes = [0] : tensor<5x3xf32> -> tensor<3xf32>
  return %r1, %r2 : tensor<3xf32>, tensor<3xf32>
}

// -----

// Integer sums regroup exactly: no tag needed. Reducing only non-scan axes
// leaves a stacked per-step result.
// CHECK-LABEL: func.func @int_inner_axes
// CHECK: %[[S:.*]] = lax.scan length = 4 carry() xs(%arg1) {xs_axes = array<i64: 1>, ys_axes = array<i64: 1>} : (tensor<2x4x3xi32>) -> tensor<2x4xi32>
// CHECK: lax.reduce_sum %{{.*}} axes = [1] : tensor<2x3xi32> -> tensor<2xi32>
// CHECK: return %[[S]]
func.func @int_inner_axes(%c0: tensor<2xi32>, %xs: tensor<2x4x3xi32>) -> tensor<2x4xi32> {
  %c, %ys = lax.scan length = 4 carry(%c0) xs(%xs) {xs_axes = array<i64: 1>, ys_axes = array<i64: 1>}
      : (tensor<2xi32>, tensor<2x4x3xi32>) -> (tensor<2xi32>, tensor<2x4x3xi32>) {
  ^bb0(%a: tensor<2xi32>, %x: tensor<2x3xi32>):
    lax.yield %a, %x : tensor<2xi32>, tensor<2x3xi32>
  }
  %r = lax.reduce_sum %ys axes = [2] : tensor<2x4x3xi32> -> tensor<2x4xi32>
  return %r : tensor<2x4xi32>
}

// -----

// An operand defined after the scan cannot become an xs: nothing moves.
// CHECK-LABEL: func.func @operand_after_scan
// CHECK: lax.scan
// CHECK: lax.exp
// CHECK: lax.sub
func.func @operand_after_scan(%c0: tensor<3xf32>, %xs: tensor<5x3xf32>) -> tensor<5x3xf32> {
  %c, %ys = lax.scan length = 5 carry(%c0) xs(%xs) : (tensor<3xf32>, tensor<5x3xf32>) -> (tensor<3xf32>, tensor<5x3xf32>) {
  ^bb0(%a: tensor<3xf32>, %x: tensor<3xf32>):
    lax.yield %a, %x : tensor<3xf32>, tensor<3xf32>
  }
  %e = lax.exp %c : tensor<3xf32>
  %eb = lax.broadcast_in_dim %e shape = [5, 3] dims = [1] : tensor<3xf32> -> tensor<5x3xf32>
  %d = lax.sub %ys, %eb : tensor<5x3xf32>
  return %d : tensor<5x3xf32>
}
