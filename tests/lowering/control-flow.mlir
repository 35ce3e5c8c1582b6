// lax.while -> scf.while and lax.cond -> scf.if / a chain of scf.if (or the
// one branch, inlined), through the type converter: ui32 carries and results
// become i32 while the ops inside keep their unsigned semantics.
// RUN: kiln-opt --kiln-lax-to-linalg %s | FileCheck %s
// Bufferized after --kiln-loop-carry-in-place, the body computes the
// carries into their buffers: no copy of them in either region.
// RUN: kiln-opt --kiln-lax-to-linalg --canonicalize --linalg-fuse-elementwise-ops --kiln-loop-carry-in-place --one-shot-bufferize="bufferize-function-boundaries allow-return-allocs-from-loops function-boundary-type-conversion=identity-layout-map" --canonicalize %s | FileCheck %s --check-prefix=BUF

// The cond region is the "before" region: its consts are used directly, the
// predicate is extracted for scf.condition, which forwards the carries.
// CHECK-LABEL: func.func @while_consts
// CHECK-SAME: (%[[K:.*]]: tensor<4xf32>, %[[L:.*]]: tensor<f32>, %[[X0:.*]]: tensor<4xf32>)
// CHECK: %[[W:.*]]:2 = scf.while (%[[X:.*]] = %[[X0]], %[[N:.*]] = %{{.*}}) : (tensor<4xf32>, tensor<i32>) -> (tensor<4xf32>, tensor<i32>) {
// CHECK: linalg.reduce ins(%[[X]] : tensor<4xf32>)
// CHECK: %[[P:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %[[L]] : tensor<f32>, tensor<f32>) outs(%{{.*}} : tensor<i1>)
// CHECK: %[[B:.*]] = tensor.extract %[[P]][] : tensor<i1>
// CHECK: scf.condition(%[[B]]) %[[X]], %[[N]] : tensor<4xf32>, tensor<i32>
// CHECK: } do {
// CHECK: ^bb0(%[[X1:.*]]: tensor<4xf32>, %[[N1:.*]]: tensor<i32>):
// CHECK: linalg.generic {{.*}} ins(%[[X1]], %[[K]] : tensor<4xf32>, tensor<4xf32>)
// CHECK: scf.yield %{{.*}}, %{{.*}} : tensor<4xf32>, tensor<i32>
// CHECK: return %[[W]]#0, %[[W]]#1
// BUF-LABEL: func.func @while_consts
// BUF: scf.while
// BUF-NOT: memref.copy
// BUF: return
func.func @while_consts(%k: tensor<4xf32>, %limit: tensor<f32>, %x0: tensor<4xf32>) -> (tensor<4xf32>, tensor<i32>) {
  %z = lax.constant dense<0> : tensor<i32>
  %x, %n = lax.while cond_consts(%limit) body_consts(%k) carry(%x0, %z)
      : (tensor<f32>, tensor<4xf32>, tensor<4xf32>, tensor<i32>) -> (tensor<4xf32>, tensor<i32>)
  cond {
  ^bb0(%l: tensor<f32>, %v: tensor<4xf32>, %i: tensor<i32>):
    %m = lax.reduce_max %v axes = [0] : tensor<4xf32> -> tensor<f32>
    %t = lax.compare LT, %m, %l : tensor<f32>
    lax.yield %t : tensor<i1>
  } body {
  ^bb0(%kk: tensor<4xf32>, %v: tensor<4xf32>, %i: tensor<i32>):
    %w = lax.mul %v, %kk : tensor<4xf32>
    %one = lax.constant dense<1> : tensor<i32>
    %j = lax.add %i, %one : tensor<i32>
    lax.yield %w, %j : tensor<4xf32>, tensor<i32>
  }
  return %x, %n : tensor<4xf32>, tensor<i32>
}

// ui32 carries are i32 in scf.while; the division stays unsigned.
// CHECK-LABEL: func.func @while_ui32
// CHECK-SAME: (%{{.*}}: tensor<4xi32>) -> tensor<4xi32>
// CHECK: scf.while (%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) : (tensor<4xi32>, tensor<i32>) -> (tensor<4xi32>, tensor<i32>)
// CHECK: arith.divui
// CHECK: scf.yield %{{.*}}, %{{.*}} : tensor<4xi32>, tensor<i32>
// CHECK-NOT: unrealized_conversion_cast
func.func @while_ui32(%s0: tensor<4xui32>) -> tensor<4xui32> {
  %z = lax.constant dense<0> : tensor<i32>
  %s, %i = lax.while carry(%s0, %z) : (tensor<4xui32>, tensor<i32>) -> (tensor<4xui32>, tensor<i32>)
  cond {
  ^bb0(%x: tensor<4xui32>, %i: tensor<i32>):
    %c5 = lax.constant dense<5> : tensor<i32>
    %t = lax.compare LT, %i, %c5 : tensor<i32>
    lax.yield %t : tensor<i1>
  } body {
  ^bb0(%x: tensor<4xui32>, %i: tensor<i32>):
    %a = lax.constant dense<1664525> : tensor<4xui32>
    %m = lax.mul %x, %a : tensor<4xui32>
    %three = lax.constant dense<3> : tensor<4xui32>
    %q = lax.div %m, %three : tensor<4xui32>
    %one = lax.constant dense<1> : tensor<i32>
    %j = lax.add %i, %one : tensor<i32>
    lax.yield %q, %j : tensor<4xui32>, tensor<i32>
  }
  return %s : tensor<4xui32>
}

// An i1 index: scf.if, branch 1 as "then".
// CHECK-LABEL: func.func @cond_i1
// CHECK: %[[P:.*]] = tensor.extract %arg0[] : tensor<i1>
// CHECK: scf.if %[[P]] -> (tensor<4xf32>) {
// CHECK: math.exp
// CHECK: } else {
// CHECK: arith.negf
// CHECK: }
func.func @cond_i1(%p: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = lax.cond %p (%x) : (tensor<i1>, tensor<4xf32>) -> tensor<4xf32>
  branch 0 {
  ^bb0(%a: tensor<4xf32>):
    %n = lax.neg %a : tensor<4xf32>
    lax.yield %n : tensor<4xf32>
  } branch 1 {
  ^bb0(%a: tensor<4xf32>):
    %e = lax.exp %a : tensor<4xf32>
    lax.yield %e : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// Two branches on an i32 index: branch 0 when it is 0, else branch 1 (out
// of range, negative too, runs the last branch).
// CHECK-LABEL: func.func @cond_two
// CHECK: %[[I:.*]] = tensor.extract %arg0[] : tensor<i32>
// CHECK: %[[NE:.*]] = arith.cmpi ne, %[[I]], %{{.*}} : i32
// CHECK: scf.if %[[NE]] -> (tensor<4xi32>, tensor<4xf32>) {
// CHECK: arith.muli
// CHECK: } else {
// CHECK: arith.addi
func.func @cond_two(%i: tensor<i32>, %x: tensor<4xui32>, %y: tensor<4xf32>) -> (tensor<4xui32>, tensor<4xf32>) {
  %r:2 = lax.cond %i (%x, %y) : (tensor<i32>, tensor<4xui32>, tensor<4xf32>) -> (tensor<4xui32>, tensor<4xf32>)
  branch 0 {
  ^bb0(%a: tensor<4xui32>, %b: tensor<4xf32>):
    %s = lax.add %a, %a : tensor<4xui32>
    lax.yield %s, %b : tensor<4xui32>, tensor<4xf32>
  } branch 1 {
  ^bb0(%a: tensor<4xui32>, %b: tensor<4xf32>):
    %s = lax.mul %a, %a : tensor<4xui32>
    %c = lax.cos %b : tensor<4xf32>
    lax.yield %s, %c : tensor<4xui32>, tensor<4xf32>
  }
  return %r#0, %r#1 : tensor<4xui32>, tensor<4xf32>
}

// Three branches: a chain of scf.if, branch 0 when the index is 0, branch 1
// when it is 1, the last branch otherwise (every index out of range too).
// CHECK-LABEL: func.func @cond_three
// CHECK: %[[I:.*]] = tensor.extract %arg0[] : tensor<i32>
// CHECK: %[[IS0:.*]] = arith.cmpi eq, %[[I]], %c0_i32 : i32
// CHECK: %[[R:.*]] = scf.if %[[IS0]] -> (tensor<4xf32>) {
// CHECK: math.sin
// CHECK: } else {
// CHECK: %[[IS1:.*]] = arith.cmpi eq, %[[I]], %c1_i32 : i32
// CHECK: %[[INNER:.*]] = scf.if %[[IS1]] -> (tensor<4xf32>) {
// CHECK: math.cos
// CHECK: } else {
// CHECK: math.tanh
// CHECK: scf.yield %[[INNER]] : tensor<4xf32>
// CHECK-NOT: scf.index_switch
func.func @cond_three(%i: tensor<i32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = lax.cond %i (%x) : (tensor<i32>, tensor<4xf32>) -> tensor<4xf32>
  branch 0 {
  ^bb0(%a: tensor<4xf32>):
    %s = lax.sin %a : tensor<4xf32>
    lax.yield %s : tensor<4xf32>
  } branch 1 {
  ^bb0(%a: tensor<4xf32>):
    %s = lax.cos %a : tensor<4xf32>
    lax.yield %s : tensor<4xf32>
  } branch 2 {
  ^bb0(%a: tensor<4xf32>):
    %s = lax.tanh %a : tensor<4xf32>
    lax.yield %s : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// One branch always runs: inlined.
// CHECK-LABEL: func.func @cond_one
// CHECK-NOT: scf.
// CHECK: math.sin
// CHECK-NOT: scf.
// CHECK: return
func.func @cond_one(%i: tensor<i32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = lax.cond %i (%x) : (tensor<i32>, tensor<4xf32>) -> tensor<4xf32>
  branch 0 {
  ^bb0(%a: tensor<4xf32>):
    %s = lax.sin %a : tensor<4xf32>
    lax.yield %s : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// Nesting: a while and a cond in a scan body, a scan in a while body.
// CHECK-LABEL: func.func @nested
// CHECK: scf.for
// CHECK: scf.while
// CHECK: scf.condition
// CHECK: scf.if
// CHECK: scf.while
// CHECK: scf.for
// CHECK-NOT: lax.
func.func @nested(%c0: tensor<f32>, %xs: tensor<3xf32>) -> (tensor<f32>, tensor<f32>) {
  %c, %ys = lax.scan length = 3 carry(%c0) xs(%xs) : (tensor<f32>, tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>) {
  ^bb0(%cc: tensor<f32>, %x: tensor<f32>):
    %w = lax.while body_consts(%x) carry(%cc) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    cond {
    ^bb0(%v: tensor<f32>):
      %h = lax.constant dense<100.0> : tensor<f32>
      %t = lax.compare LT, %v, %h : tensor<f32>
      lax.yield %t : tensor<i1>
    } body {
    ^bb0(%k: tensor<f32>, %v: tensor<f32>):
      %m = lax.add %v, %k : tensor<f32>
      lax.yield %m : tensor<f32>
    }
    %zero = lax.constant dense<0.0> : tensor<f32>
    %pos = lax.compare GT, %x, %zero : tensor<f32>
    %y = lax.cond %pos (%w) : (tensor<i1>, tensor<f32>) -> tensor<f32>
    branch 0 {
    ^bb0(%u: tensor<f32>):
      %n = lax.neg %u : tensor<f32>
      lax.yield %n : tensor<f32>
    } branch 1 {
    ^bb0(%u: tensor<f32>):
      %e = lax.exp %u : tensor<f32>
      lax.yield %e : tensor<f32>
    }
    lax.yield %w, %y : tensor<f32>, tensor<f32>
  }
  %z = lax.constant dense<0> : tensor<i32>
  %s, %n = lax.while body_consts(%xs) carry(%c, %z) : (tensor<3xf32>, tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>)
  cond {
  ^bb0(%v: tensor<f32>, %i: tensor<i32>):
    %two = lax.constant dense<2> : tensor<i32>
    %t = lax.compare LT, %i, %two : tensor<i32>
    lax.yield %t : tensor<i1>
  } body {
  ^bb0(%zs: tensor<3xf32>, %v: tensor<f32>, %i: tensor<i32>):
    %sum, %unused = lax.scan length = 3 carry(%v) xs(%zs) : (tensor<f32>, tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>) {
    ^bb0(%acc: tensor<f32>, %q: tensor<f32>):
      %a = lax.add %acc, %q : tensor<f32>
      lax.yield %a, %a : tensor<f32>, tensor<f32>
    }
    %one = lax.constant dense<1> : tensor<i32>
    %j = lax.add %i, %one : tensor<i32>
    lax.yield %sum, %j : tensor<f32>, tensor<i32>
  }
  return %c, %s : tensor<f32>, tensor<f32>
}
