// lax.while and lax.cond: custom syntax (printed, parsed back, and through
// the generic form), and what their interfaces let upstream passes do:
// loop-invariant code motion (LoopLikeOpInterface), constant propagation
// into and out of regions (RegionBranchOpInterface), and the fold of a cond
// whose index is a constant.
// RUN: kiln-opt %s | kiln-opt | FileCheck %s
// RUN: kiln-opt %s --mlir-print-op-generic | kiln-opt | FileCheck %s
// RUN: kiln-opt %s --loop-invariant-code-motion | FileCheck %s --check-prefix=LICM
// RUN: kiln-opt %s --sccp | FileCheck %s --check-prefix=SCCP
// RUN: kiln-opt %s --canonicalize | FileCheck %s --check-prefix=CANON

// CHECK-LABEL: func.func @newton
// CHECK: %[[R:.*]]:2 = lax.while cond_consts(%[[A:.*]]) body_consts(%[[A]]) carry(%[[A]], %{{.*}}) : (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<i32>) -> (tensor<16xf32>, tensor<i32>)
// CHECK-NEXT: cond {
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<16xf32>, %{{.*}}: tensor<16xf32>, %[[M:.*]]: tensor<i32>):
// CHECK: %[[T:.*]] = lax.compare LT, %[[M]], %{{.*}} : tensor<i32>
// CHECK-NEXT: lax.yield %[[T]] : tensor<i1>
// CHECK-NEXT: } body {
// CHECK-NEXT: ^bb0(%[[D:.*]]: tensor<16xf32>, %[[E:.*]]: tensor<16xf32>, %[[F:.*]]: tensor<i32>):
// CHECK: lax.yield %{{.*}}, %{{.*}} : tensor<16xf32>, tensor<i32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]]#0, %[[R]]#1
// Constants of both regions move out of the loop; what reads the carries
// or the consts' block arguments stays.
// LICM-LABEL: func.func @newton
// LICM-DAG: lax.constant dense<50> : tensor<i32>
// LICM-DAG: lax.constant dense<1> : tensor<i32>
// LICM: lax.while
// LICM-NEXT: cond {
// LICM-NEXT: ^bb0
// LICM-NEXT: lax.compare LT
// LICM-NEXT: lax.yield
// LICM: } body {
// LICM-NEXT: ^bb0
// LICM-NEXT: lax.div
// LICM-NEXT: lax.add
// LICM-NEXT: lax.add
// LICM-NEXT: lax.yield
// The loop runs: its results are not the initial carries.
// SCCP-LABEL: func.func @newton
// SCCP: %[[R:.*]]:2 = lax.while
// SCCP: return %[[R]]#0, %[[R]]#1
func.func @newton(%a: tensor<16xf32>) -> (tensor<16xf32>, tensor<i32>) {
  %z = lax.constant dense<0> : tensor<i32>
  %x, %n = lax.while cond_consts(%a) body_consts(%a) carry(%a, %z)
      : (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<i32>) -> (tensor<16xf32>, tensor<i32>)
  cond {
  ^bb0(%k: tensor<16xf32>, %l: tensor<16xf32>, %m: tensor<i32>):
    %lim = lax.constant dense<50> : tensor<i32>
    %t = lax.compare LT, %m, %lim : tensor<i32>
    lax.yield %t : tensor<i1>
  } body {
  ^bb0(%d: tensor<16xf32>, %e: tensor<16xf32>, %f: tensor<i32>):
    %g = lax.div %d, %e : tensor<16xf32>
    %h = lax.add %e, %g : tensor<16xf32>
    %one = lax.constant dense<1> : tensor<i32>
    %j = lax.add %f, %one : tensor<i32>
    lax.yield %h, %j : tensor<16xf32>, tensor<i32>
  }
  return %x, %n : tensor<16xf32>, tensor<i32>
}

// No consts: the groups are not printed. A value from outside is used in
// the body directly.
// CHECK-LABEL: func.func @no_consts
// CHECK: lax.while carry(%{{.*}}) : (tensor<i32>) -> tensor<i32>
// CHECK: lax.add %{{.*}}, %arg1
// The counter starts at 0 but the loop runs: SCCP must not take the initial
// carry for the result.
// SCCP-LABEL: func.func @no_consts
// SCCP: %[[R:.*]] = lax.while
// SCCP: return %[[R]]
func.func @no_consts(%limit: tensor<i32>, %step: tensor<i32>) -> tensor<i32> {
  %z = lax.constant dense<0> : tensor<i32>
  %r = lax.while carry(%z) : (tensor<i32>) -> tensor<i32>
  cond {
  ^bb0(%i: tensor<i32>):
    %t = lax.compare LT, %i, %limit : tensor<i32>
    lax.yield %t : tensor<i1>
  } body {
  ^bb0(%i: tensor<i32>):
    %j = lax.add %i, %step : tensor<i32>
    lax.yield %j : tensor<i32>
  }
  return %r : tensor<i32>
}

// CHECK-LABEL: func.func @switch
// CHECK: %[[R:.*]] = lax.cond %arg0 (%arg1) : (tensor<i32>, tensor<8xf32>) -> tensor<8xf32>
// CHECK-NEXT: branch 0 {
// CHECK-NEXT: ^bb0(%[[A0:.*]]: tensor<8xf32>):
// CHECK-NEXT: lax.sin %[[A0]]
// CHECK: } branch 1 {
// CHECK: lax.cos
// CHECK: } branch 2 {
// CHECK-NEXT: ^bb0(%[[A2:.*]]: tensor<8xf32>):
// CHECK-NEXT: lax.yield %[[A2]] : tensor<8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]]
func.func @switch(%i: tensor<i32>, %x: tensor<8xf32>) -> tensor<8xf32> {
  %r = lax.cond %i (%x) : (tensor<i32>, tensor<8xf32>) -> tensor<8xf32>
  branch 0 {
  ^bb0(%a: tensor<8xf32>):
    %s = lax.sin %a : tensor<8xf32>
    lax.yield %s : tensor<8xf32>
  } branch 1 {
  ^bb0(%a: tensor<8xf32>):
    %s = lax.cos %a : tensor<8xf32>
    lax.yield %s : tensor<8xf32>
  } branch 2 {
  ^bb0(%a: tensor<8xf32>):
    lax.yield %a : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}

// An i1 index, several results, no operands.
// CHECK-LABEL: func.func @pred
// CHECK: %[[R:.*]]:2 = lax.cond %arg0 () : (tensor<i1>) -> (tensor<f32>, tensor<i32>)
// CHECK-NEXT: branch 0 {
// CHECK-NEXT: lax.constant dense<1.0
// CHECK: } branch 1 {
func.func @pred(%p: tensor<i1>) -> (tensor<f32>, tensor<i32>) {
  %r:2 = lax.cond %p () : (tensor<i1>) -> (tensor<f32>, tensor<i32>)
  branch 0 {
    %a = lax.constant dense<1.0> : tensor<f32>
    %b = lax.constant dense<1> : tensor<i32>
    lax.yield %a, %b : tensor<f32>, tensor<i32>
  } branch 1 {
    %a = lax.constant dense<2.0> : tensor<f32>
    %b = lax.constant dense<2> : tensor<i32>
    lax.yield %a, %b : tensor<f32>, tensor<i32>
  }
  return %r#0, %r#1 : tensor<f32>, tensor<i32>
}

// Constant indices: out of range, 7 and -3 alike run the last of 3
// branches (as jax.jit does); a true i1 index runs branch 1.
// Canonicalization inlines the branch; SCCP follows only the branch that
// runs.
// CANON-LABEL: func.func @constant_index
// CANON-NOT: lax.cond
// CANON-DAG: %[[SQ:.*]] = lax.mul %arg0, %arg0
// CANON-DAG: %[[ABS:.*]] = lax.abs %arg0
// CANON-DAG: %[[EXP:.*]] = lax.exp %arg0
// CANON: return %[[SQ]], %[[ABS]], %[[EXP]]
// SCCP-LABEL: func.func @constant_index
// SCCP: %[[C:.*]] = lax.constant dense<9> : tensor<i32>
// SCCP: return %{{.*}}, %{{.*}}, %{{.*}}, %[[C]]
func.func @constant_index(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i32>) {
  %seven = lax.constant dense<7> : tensor<i32>
  %minus3 = lax.constant dense<-3> : tensor<i32>
  %true = lax.constant dense<true> : tensor<i1>
  %a = lax.cond %seven (%x) : (tensor<i32>, tensor<4xf32>) -> tensor<4xf32>
  branch 0 {
  ^bb0(%v: tensor<4xf32>):
    %r = lax.neg %v : tensor<4xf32>
    lax.yield %r : tensor<4xf32>
  } branch 1 {
  ^bb0(%v: tensor<4xf32>):
    %r = lax.exp %v : tensor<4xf32>
    lax.yield %r : tensor<4xf32>
  } branch 2 {
  ^bb0(%v: tensor<4xf32>):
    %r = lax.mul %v, %v : tensor<4xf32>
    lax.yield %r : tensor<4xf32>
  }
  %b = lax.cond %minus3 (%x) : (tensor<i32>, tensor<4xf32>) -> tensor<4xf32>
  branch 0 {
  ^bb0(%v: tensor<4xf32>):
    %r = lax.neg %v : tensor<4xf32>
    lax.yield %r : tensor<4xf32>
  } branch 1 {
  ^bb0(%v: tensor<4xf32>):
    %r = lax.exp %v : tensor<4xf32>
    lax.yield %r : tensor<4xf32>
  } branch 2 {
  ^bb0(%v: tensor<4xf32>):
    %r = lax.abs %v : tensor<4xf32>
    lax.yield %r : tensor<4xf32>
  }
  %c = lax.cond %true (%x) : (tensor<i1>, tensor<4xf32>) -> tensor<4xf32>
  branch 0 {
  ^bb0(%v: tensor<4xf32>):
    %r = lax.neg %v : tensor<4xf32>
    lax.yield %r : tensor<4xf32>
  } branch 1 {
  ^bb0(%v: tensor<4xf32>):
    %r = lax.exp %v : tensor<4xf32>
    lax.yield %r : tensor<4xf32>
  }
  // 3 * 3 from the last branch (the others would give 3 and 6).
  %three = lax.constant dense<3> : tensor<i32>
  %d = lax.cond %seven (%three) : (tensor<i32>, tensor<i32>) -> tensor<i32>
  branch 0 {
  ^bb0(%v: tensor<i32>):
    lax.yield %v : tensor<i32>
  } branch 1 {
  ^bb0(%v: tensor<i32>):
    %r = lax.add %v, %v : tensor<i32>
    lax.yield %r : tensor<i32>
  } branch 2 {
  ^bb0(%v: tensor<i32>):
    %r = lax.mul %v, %v : tensor<i32>
    lax.yield %r : tensor<i32>
  }
  return %a, %b, %c, %d : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i32>
}

// A cond inside a while inside a scan body.
// CHECK-LABEL: func.func @nested
// CHECK: lax.scan
// CHECK: lax.while
// CHECK: lax.cond
func.func @nested(%c0: tensor<f32>, %xs: tensor<3xf32>) -> tensor<f32> {
  %c, %ys = lax.scan length = 3 carry(%c0) xs(%xs) : (tensor<f32>, tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>) {
  ^bb0(%c: tensor<f32>, %x: tensor<f32>):
    %w = lax.while carry(%c) : (tensor<f32>) -> tensor<f32>
    cond {
    ^bb0(%v: tensor<f32>):
      %t = lax.compare LT, %v, %x : tensor<f32>
      lax.yield %t : tensor<i1>
    } body {
    ^bb0(%v: tensor<f32>):
      %zero = lax.constant dense<0.0> : tensor<f32>
      %pos = lax.compare GT, %v, %zero : tensor<f32>
      %n = lax.cond %pos (%v) : (tensor<i1>, tensor<f32>) -> tensor<f32>
      branch 0 {
      ^bb0(%u: tensor<f32>):
        %one = lax.constant dense<1.0> : tensor<f32>
        lax.yield %one : tensor<f32>
      } branch 1 {
      ^bb0(%u: tensor<f32>):
        %d = lax.add %u, %u : tensor<f32>
        lax.yield %d : tensor<f32>
      }
      lax.yield %n : tensor<f32>
    }
    lax.yield %w, %w : tensor<f32>, tensor<f32>
  }
  return %c : tensor<f32>
}
