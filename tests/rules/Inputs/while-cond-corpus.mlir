// lax.while and lax.cond programs for the region rules of
// rules/library/loops.yaml (tests/rules/while-cond-rules.mlir). Loop bounds
// are constants: kiln-verify-rules' random inputs never make a loop long.

// The carry %junk is updated from %x but read by nothing else: not by the
// cond region, not by %x's or %n's update, not outside. It goes, with the
// ops that only fed it. %n is read only by the cond region: it stays.
func.func @while_unused_carry(%x0: tensor<4xf32>, %j0: tensor<4xf32>) -> tensor<4xf32> {
  %zero = lax.constant dense<0> : tensor<i32>
  %ten = lax.constant dense<10> : tensor<i32>
  %x, %n, %junk = lax.while cond_consts(%ten) carry(%x0, %zero, %j0)
      : (tensor<i32>, tensor<4xf32>, tensor<i32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<i32>, tensor<4xf32>)
  cond {
  ^bb0(%l: tensor<i32>, %v: tensor<4xf32>, %i: tensor<i32>, %j: tensor<4xf32>):
    %t = lax.compare LT, %i, %l : tensor<i32>
    lax.yield %t : tensor<i1>
  } body {
  ^bb0(%v: tensor<4xf32>, %i: tensor<i32>, %j: tensor<4xf32>):
    %s = lax.sin %v : tensor<4xf32>
    %jm = lax.mul %j, %v : tensor<4xf32>
    %j2 = lax.add %jm, %s : tensor<4xf32>
    %one = lax.constant dense<1> : tensor<i32>
    %i2 = lax.add %i, %one : tensor<i32>
    lax.yield %s, %i2, %j2 : tensor<4xf32>, tensor<i32>, tensor<4xf32>
  }
  return %x : tensor<4xf32>
}

// The same carry read by the cond region is observed (it decides the number
// of iterations): it stays. So does one whose final value is returned.
func.func @while_carry_in_cond(%x0: tensor<4xf32>, %y0: tensor<f32>) -> (tensor<4xf32>, tensor<f32>) {
  %zero = lax.constant dense<0> : tensor<i32>
  %x, %n, %y = lax.while carry(%x0, %zero, %y0)
      : (tensor<4xf32>, tensor<i32>, tensor<f32>) -> (tensor<4xf32>, tensor<i32>, tensor<f32>)
  cond {
  ^bb0(%v: tensor<4xf32>, %i: tensor<i32>, %y: tensor<f32>):
    %three = lax.constant dense<3> : tensor<i32>
    %t = lax.compare LT, %i, %three : tensor<i32>
    lax.yield %t : tensor<i1>
  } body {
  ^bb0(%v: tensor<4xf32>, %i: tensor<i32>, %y: tensor<f32>):
    %c = lax.cos %v : tensor<4xf32>
    %y2 = lax.neg %y : tensor<f32>
    %one = lax.constant dense<1> : tensor<i32>
    %i2 = lax.add %i, %one : tensor<i32>
    lax.yield %c, %i2, %y2 : tensor<4xf32>, tensor<i32>, tensor<f32>
  }
  return %x, %y : tensor<4xf32>, tensor<f32>
}

// exp(w) is loop-invariant in the body: hoisted (it runs even when the loop
// runs zero times, which is sound: lax ops are pure and do not trap); then
// the body const %w is read by nothing and goes.
func.func @while_hoist_then_const(%w: tensor<4xf32>, %x0: tensor<4xf32>, %n0: tensor<i32>) -> tensor<4xf32> {
  %four = lax.constant dense<4> : tensor<i32>
  %x, %n = lax.while cond_consts(%four) body_consts(%w) carry(%x0, %n0)
      : (tensor<i32>, tensor<4xf32>, tensor<4xf32>, tensor<i32>) -> (tensor<4xf32>, tensor<i32>)
  cond {
  ^bb0(%l: tensor<i32>, %v: tensor<4xf32>, %i: tensor<i32>):
    %t = lax.compare LT, %i, %l : tensor<i32>
    lax.yield %t : tensor<i1>
  } body {
  ^bb0(%wc: tensor<4xf32>, %v: tensor<4xf32>, %i: tensor<i32>):
    %e = lax.exp %wc : tensor<4xf32>
    %v2 = lax.add %v, %e : tensor<4xf32>
    %one = lax.constant dense<1> : tensor<i32>
    %i2 = lax.add %i, %one : tensor<i32>
    lax.yield %v2, %i2 : tensor<4xf32>, tensor<i32>
  }
  return %x : tensor<4xf32>
}

// Both branches compute exp(a) and neg(w) (a branch argument and a value
// from outside): computed once before the cond. The branches differ after.
func.func @cond_hoist(%i: tensor<i32>, %a0: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<4xf32> {
  %r = lax.cond %i (%a0) : (tensor<i32>, tensor<4xf32>) -> tensor<4xf32>
  branch 0 {
  ^bb0(%a: tensor<4xf32>):
    %e = lax.exp %a : tensor<4xf32>
    %n = lax.neg %w : tensor<4xf32>
    %m = lax.mul %e, %n : tensor<4xf32>
    lax.yield %m : tensor<4xf32>
  } branch 1 {
  ^bb0(%a: tensor<4xf32>):
    %n = lax.neg %w : tensor<4xf32>
    %e = lax.exp %a : tensor<4xf32>
    %s = lax.add %e, %n : tensor<4xf32>
    lax.yield %s : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// tanh(a) is in two of three branches: it stays (hoisting it would compute
// it when branch 2 runs). exp(a) is in all three: hoisted.
func.func @cond_not_in_every_branch(%i: tensor<i32>, %a0: tensor<4xf32>) -> tensor<4xf32> {
  %r = lax.cond %i (%a0) : (tensor<i32>, tensor<4xf32>) -> tensor<4xf32>
  branch 0 {
  ^bb0(%a: tensor<4xf32>):
    %e = lax.exp %a : tensor<4xf32>
    %t = lax.tanh %a : tensor<4xf32>
    %m = lax.mul %e, %t : tensor<4xf32>
    lax.yield %m : tensor<4xf32>
  } branch 1 {
  ^bb0(%a: tensor<4xf32>):
    %t = lax.tanh %a : tensor<4xf32>
    %e = lax.exp %a : tensor<4xf32>
    %s = lax.sub %e, %t : tensor<4xf32>
    lax.yield %s : tensor<4xf32>
  } branch 2 {
  ^bb0(%a: tensor<4xf32>):
    %e = lax.exp %a : tensor<4xf32>
    lax.yield %e : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// Only the first result is read: the second is not yielded, what computed
// it is gone, and the operand %b, then read by no branch, is not passed.
func.func @cond_unused_result(%i: tensor<i32>, %a0: tensor<4xf32>, %b0: tensor<4xf32>) -> tensor<4xf32> {
  %r, %u = lax.cond %i (%a0, %b0) : (tensor<i32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  branch 0 {
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
    %s = lax.sin %a : tensor<4xf32>
    %t = lax.mul %b, %b : tensor<4xf32>
    lax.yield %s, %t : tensor<4xf32>, tensor<4xf32>
  } branch 1 {
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
    %c = lax.cos %a : tensor<4xf32>
    %t = lax.abs %b : tensor<4xf32>
    lax.yield %c, %t : tensor<4xf32>, tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// Consts no region reads (a cond const and a body const) are not passed.
func.func @while_unused_const(%u: tensor<f32>, %w: tensor<4xf32>, %x0: tensor<4xf32>) -> tensor<4xf32> {
  %zero = lax.constant dense<0> : tensor<i32>
  %five = lax.constant dense<5> : tensor<i32>
  %x, %n = lax.while cond_consts(%u, %five) body_consts(%w) carry(%x0, %zero)
      : (tensor<f32>, tensor<i32>, tensor<4xf32>, tensor<4xf32>, tensor<i32>) -> (tensor<4xf32>, tensor<i32>)
  cond {
  ^bb0(%uc: tensor<f32>, %l: tensor<i32>, %v: tensor<4xf32>, %i: tensor<i32>):
    %t = lax.compare LT, %i, %l : tensor<i32>
    lax.yield %t : tensor<i1>
  } body {
  ^bb0(%wc: tensor<4xf32>, %v: tensor<4xf32>, %i: tensor<i32>):
    %v2 = lax.tanh %v : tensor<4xf32>
    %one = lax.constant dense<1> : tensor<i32>
    %i2 = lax.add %i, %one : tensor<i32>
    lax.yield %v2, %i2 : tensor<4xf32>, tensor<i32>
  }
  return %x : tensor<4xf32>
}

// No branch reads %b: it is not passed.
func.func @cond_unused_operand(%i: tensor<i1>, %a0: tensor<4xf32>, %b0: tensor<4xf32>) -> tensor<4xf32> {
  %r = lax.cond %i (%b0, %a0) : (tensor<i1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  branch 0 {
  ^bb0(%b: tensor<4xf32>, %a: tensor<4xf32>):
    %s = lax.sin %a : tensor<4xf32>
    lax.yield %s : tensor<4xf32>
  } branch 1 {
  ^bb0(%b: tensor<4xf32>, %a: tensor<4xf32>):
    %c = lax.cos %a : tensor<4xf32>
    lax.yield %c : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
