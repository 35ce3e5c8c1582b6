// The role functions of lax.while and lax.cond in `where` (see
// Inputs/while-cond-roles.yaml): each rule turns a neg into another op when
// its roles hold.
// RUN: kiln-opt %s --rules=%S/Inputs/while-cond-roles.yaml | FileCheck %s

// CHECK-LABEL: func.func @w
// CHECK: } body {
// CHECK-NEXT: ^bb0(%[[K:.*]]: tensor<4xf32>, %[[X:.*]]: tensor<4xf32>, %{{.*}}: tensor<4xf32>):
// CHECK-NEXT: lax.abs %[[X]]
// CHECK-NEXT: lax.sin %[[K]]
// CHECK: lax.neg %arg3 : tensor<4xf32>
func.func @w(%l: tensor<i32>, %k: tensor<4xf32>, %x0: tensor<4xf32>, %y0: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %x, %y = lax.while cond_consts(%l) body_consts(%k) carry(%x0, %y0)
      : (tensor<i32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  cond {
  ^bb0(%lc: tensor<i32>, %a: tensor<4xf32>, %b: tensor<4xf32>):
    %zero = lax.constant dense<0> : tensor<i32>
    %p = lax.compare LT, %lc, %zero : tensor<i32>
    lax.yield %p : tensor<i1>
  } body {
  ^bb0(%kc: tensor<4xf32>, %a: tensor<4xf32>, %b: tensor<4xf32>):
    %na = lax.neg %a : tensor<4xf32>
    %nk = lax.neg %kc : tensor<4xf32>
    %s = lax.add %na, %nk : tensor<4xf32>
    lax.yield %s, %b : tensor<4xf32>, tensor<4xf32>
  }
  %ny = lax.neg %y : tensor<4xf32>
  return %x, %ny : tensor<4xf32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @c
// CHECK: branch 1 {
// CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<4xf32>, %{{.*}}: tensor<4xf32>):
// CHECK-NEXT: lax.tanh %[[A]]
// CHECK: lax.floor %{{.*}}#1
func.func @c(%i: tensor<i32>, %a0: tensor<4xf32>, %b0: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %r, %q = lax.cond %i (%a0, %b0) : (tensor<i32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  branch 0 {
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
    lax.yield %a, %b : tensor<4xf32>, tensor<4xf32>
  } branch 1 {
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
    %n = lax.neg %a : tensor<4xf32>
    lax.yield %n, %b : tensor<4xf32>, tensor<4xf32>
  }
  %nq = lax.neg %q : tensor<4xf32>
  return %r, %nq : tensor<4xf32>, tensor<4xf32>
}
