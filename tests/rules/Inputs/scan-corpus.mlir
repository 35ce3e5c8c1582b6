// Programs for the region rules of rules/library/scan-pushup.yaml and loops.yaml
// (tests/rules/region-rules.mlir, tests/rules/verify-rules.test).

// A max over a reverse scan's ys: a carry starting at -inf.
func.func @max_reverse(%c0: tensor<4xf32>, %xs: tensor<6x4xf32>) -> tensor<4xf32> {
  %c, %ys = lax.scan length = 6 carry(%c0) xs(%xs) {reverse = true}
      : (tensor<4xf32>, tensor<6x4xf32>) -> (tensor<4xf32>, tensor<6x4xf32>) {
  ^bb0(%carry: tensor<4xf32>, %x: tensor<4xf32>):
    %s = lax.add %carry, %x : tensor<4xf32>
    %t = lax.tanh %s : tensor<4xf32>
    lax.yield %s, %t : tensor<4xf32>, tensor<4xf32>
  }
  %m = lax.reduce_max %ys axes = [0] : tensor<6x4xf32> -> tensor<4xf32>
  return %m : tensor<4xf32>
}

// A min over the slice axes and the scan axis (stacked along axis 1), and an
// integer sum: exact, no tag needed.
func.func @min_axis1(%xs: tensor<3x5x2xf32>) -> tensor<f32> {
  %ys = lax.scan length = 5 carry() xs(%xs) {xs_axes = array<i64: 1>, ys_axes = array<i64: 1>}
      : (tensor<3x5x2xf32>) -> tensor<3x5x2xf32> {
  ^bb0(%x: tensor<3x2xf32>):
    %e = lax.sin %x : tensor<3x2xf32>
    lax.yield %e : tensor<3x2xf32>
  }
  %m = lax.reduce_min %ys axes = [0, 1, 2] : tensor<3x5x2xf32> -> tensor<f32>
  return %m : tensor<f32>
}
func.func @int_sum(%xs: tensor<7x3xi32>) -> tensor<3xi32> {
  %ys = lax.scan length = 7 carry() xs(%xs) : (tensor<7x3xi32>) -> tensor<7x3xi32> {
  ^bb0(%x: tensor<3xi32>):
    %e = lax.mul %x, %x : tensor<3xi32>
    lax.yield %e : tensor<3xi32>
  }
  %s = lax.reduce_sum %ys axes = [0] : tensor<7x3xi32> -> tensor<3xi32>
  return %s : tensor<3xi32>
}

// Elementwise consumers with a splat, a scalar and a stacked operand.
func.func @sink(%xs: tensor<6x4xf32>, %y: tensor<6x4xf32>, %k: tensor<f32>) -> tensor<6x4xf32> {
  %ys = lax.scan length = 6 carry() xs(%xs) : (tensor<6x4xf32>) -> tensor<6x4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %e = lax.exp %x : tensor<4xf32>
    lax.yield %e : tensor<4xf32>
  }
  %two = lax.constant dense<2.0> : tensor<6x4xf32>
  %a = lax.mul %ys, %two : tensor<6x4xf32>
  %b = lax.sub %y, %a : tensor<6x4xf32>
  return %b : tensor<6x4xf32>
}

// exp(w) and its negation depend only on the const w: computed once.
func.func @hoist(%w: tensor<4xf32>, %c0: tensor<4xf32>, %xs: tensor<6x4xf32>) -> tensor<4xf32> {
  %c = lax.scan length = 6 consts(%w) carry(%c0) xs(%xs)
      : (tensor<4xf32>, tensor<4xf32>, tensor<6x4xf32>) -> tensor<4xf32> {
  ^bb0(%wc: tensor<4xf32>, %carry: tensor<4xf32>, %x: tensor<4xf32>):
    %e = lax.exp %wc : tensor<4xf32>
    %n = lax.neg %e : tensor<4xf32>
    %m = lax.mul %n, %x : tensor<4xf32>
    %s = lax.add %carry, %m : tensor<4xf32>
    lax.yield %s : tensor<4xf32>
  }
  return %c : tensor<4xf32>
}

// ys[-1] is the final carry; for a reverse scan ys[0] is.
func.func @last(%c0: tensor<4xf32>, %xs: tensor<6x4xf32>) -> tensor<4xf32> {
  %c, %ys = lax.scan length = 6 carry(%c0) xs(%xs)
      : (tensor<4xf32>, tensor<6x4xf32>) -> (tensor<4xf32>, tensor<6x4xf32>) {
  ^bb0(%carry: tensor<4xf32>, %x: tensor<4xf32>):
    %s = lax.mul %carry, %x : tensor<4xf32>
    lax.yield %s, %s : tensor<4xf32>, tensor<4xf32>
  }
  %l = lax.slice %ys start = [5, 0] limit = [6, 4] strides = [1, 1] : tensor<6x4xf32> -> tensor<1x4xf32>
  %q = lax.squeeze %l dims = [0] : tensor<1x4xf32> -> tensor<4xf32>
  return %q : tensor<4xf32>
}
func.func @first_of_reverse(%c0: tensor<4xf32>, %xs: tensor<4x6xf32>) -> tensor<4xf32> {
  %c, %ys = lax.scan length = 6 carry(%c0) xs(%xs) {reverse = true, xs_axes = array<i64: 1>, ys_axes = array<i64: 1>}
      : (tensor<4xf32>, tensor<4x6xf32>) -> (tensor<4xf32>, tensor<4x6xf32>) {
  ^bb0(%carry: tensor<4xf32>, %x: tensor<4xf32>):
    %s = lax.sub %x, %carry : tensor<4xf32>
    lax.yield %s, %s : tensor<4xf32>, tensor<4xf32>
  }
  %l = lax.slice %ys start = [0, 0] limit = [4, 1] strides = [1, 1] : tensor<4x6xf32> -> tensor<4x1xf32>
  %q = lax.squeeze %l dims = [1] : tensor<4x1xf32> -> tensor<4xf32>
  return %q : tensor<4xf32>
}
// Not the last slice: unchanged.
func.func @not_last(%c0: tensor<4xf32>, %xs: tensor<6x4xf32>) -> tensor<4xf32> {
  %c, %ys = lax.scan length = 6 carry(%c0) xs(%xs)
      : (tensor<4xf32>, tensor<6x4xf32>) -> (tensor<4xf32>, tensor<6x4xf32>) {
  ^bb0(%carry: tensor<4xf32>, %x: tensor<4xf32>):
    %s = lax.mul %carry, %x : tensor<4xf32>
    lax.yield %s, %s : tensor<4xf32>, tensor<4xf32>
  }
  %l = lax.slice %ys start = [4, 0] limit = [5, 4] strides = [1, 1] : tensor<6x4xf32> -> tensor<1x4xf32>
  %q = lax.squeeze %l dims = [0] : tensor<1x4xf32> -> tensor<4xf32>
  return %q : tensor<4xf32>
}

// A carry only feeding itself and a ys nobody reads go.
func.func @unused(%c0: tensor<4xf32>, %c1: tensor<4xf32>, %xs: tensor<6x4xf32>) -> tensor<4xf32> {
  %a, %b, %ys = lax.scan length = 6 carry(%c0, %c1) xs(%xs)
      : (tensor<4xf32>, tensor<4xf32>, tensor<6x4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<6x4xf32>) {
  ^bb0(%p: tensor<4xf32>, %q: tensor<4xf32>, %x: tensor<4xf32>):
    %s = lax.sin %p : tensor<4xf32>
    %t = lax.add %q, %x : tensor<4xf32>
    lax.yield %s, %t, %t : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  }
  return %b : tensor<4xf32>
}

// In a while loop: exp(k) and exp(k) * 2 depend only on the body const k and
// a value from outside; computed once before the loop.
func.func @while_hoist(%k: tensor<4xf32>, %x0: tensor<4xf32>, %limit: tensor<i32>) -> tensor<4xf32> {
  %zero = lax.constant dense<0> : tensor<i32>
  %two = lax.constant dense<2.0> : tensor<4xf32>
  %x, %n = lax.while cond_consts(%limit) body_consts(%k) carry(%x0, %zero)
      : (tensor<i32>, tensor<4xf32>, tensor<4xf32>, tensor<i32>) -> (tensor<4xf32>, tensor<i32>)
  cond {
  ^bb0(%l: tensor<i32>, %v: tensor<4xf32>, %i: tensor<i32>):
    %t = lax.compare LT, %i, %l : tensor<i32>
    lax.yield %t : tensor<i1>
  } body {
  ^bb0(%kc: tensor<4xf32>, %v: tensor<4xf32>, %i: tensor<i32>):
    %e = lax.exp %kc : tensor<4xf32>
    %e2 = lax.mul %e, %two : tensor<4xf32>
    %v2 = lax.mul %v, %e2 : tensor<4xf32>
    %one = lax.constant dense<1> : tensor<i32>
    %i2 = lax.add %i, %one : tensor<i32>
    lax.yield %v2, %i2 : tensor<4xf32>, tensor<i32>
  }
  return %x : tensor<4xf32>
}

// An RNN step's input projection x_t @ W (xs stacked along axis 1, W a
// const), a recurrent product h @ U, and two products that must stay: the
// xs slice times a value of the step (not invariant), and a batched one.
func.func @input_projection(%h0: tensor<4x8xf32>, %xs: tensor<4x5x3xf32>, %w: tensor<3x8xf32>,
                            %u: tensor<8x8xf32>, %bs: tensor<5x2x4x3xf32>) -> (tensor<4x8xf32>, tensor<5x3x8xf32>, tensor<5x2x4x4xf32>) {
  %r:3 = lax.scan length = 5 consts(%w, %u) carry(%h0) xs(%xs, %bs) {xs_axes = array<i64: 1, 0>}
      : (tensor<3x8xf32>, tensor<8x8xf32>, tensor<4x8xf32>, tensor<4x5x3xf32>, tensor<5x2x4x3xf32>) -> (tensor<4x8xf32>, tensor<5x3x8xf32>, tensor<5x2x4x4xf32>) {
  ^bb0(%cw: tensor<3x8xf32>, %cu: tensor<8x8xf32>, %h: tensor<4x8xf32>, %x: tensor<4x3xf32>, %b: tensor<2x4x3xf32>):
    %p = lax.dot_general %x, %cw contracting = [1] x [0] batch = [] x [] : (tensor<4x3xf32>, tensor<3x8xf32>) -> tensor<4x8xf32>
    %q = lax.dot_general %h, %cu contracting = [1] x [0] batch = [] x [] : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %s = lax.add %p, %q : tensor<4x8xf32>
    %t = lax.tanh %s : tensor<4x8xf32>
    %o = lax.dot_general %x, %t contracting = [0] x [0] batch = [] x [] : (tensor<4x3xf32>, tensor<4x8xf32>) -> tensor<3x8xf32>
    %g = lax.dot_general %b, %b contracting = [2] x [2] batch = [0] x [0] : (tensor<2x4x3xf32>, tensor<2x4x3xf32>) -> tensor<2x4x4xf32>
    lax.yield %t, %o, %g : tensor<4x8xf32>, tensor<3x8xf32>, tensor<2x4x4xf32>
  }
  return %r#0, %r#1, %r#2 : tensor<4x8xf32>, tensor<5x3x8xf32>, tensor<5x2x4x4xf32>
}

// An xs the body never reads is not sliced.
func.func @unused_xs(%c0: tensor<4xf32>, %xs: tensor<6x4xf32>, %ys: tensor<6x2xf32>) -> tensor<4xf32> {
  %r = lax.scan length = 6 carry(%c0) xs(%xs, %ys) : (tensor<4xf32>, tensor<6x4xf32>, tensor<6x2xf32>) -> tensor<4xf32> {
  ^bb0(%c: tensor<4xf32>, %x: tensor<4xf32>, %y: tensor<2xf32>):
    %s = lax.add %c, %x : tensor<4xf32>
    lax.yield %s : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// The projection as W x_t (the xs slice the rhs, stacked along axis 1).
func.func @input_projection_rhs(%h0: tensor<8x4xf32>, %xs: tensor<4x5x3xf32>, %w: tensor<8x3xf32>) -> tensor<8x4xf32> {
  %r = lax.scan length = 5 consts(%w) carry(%h0) xs(%xs) {xs_axes = array<i64: 1>} : (tensor<8x3xf32>, tensor<8x4xf32>, tensor<4x5x3xf32>) -> tensor<8x4xf32> {
  ^bb0(%cw: tensor<8x3xf32>, %h: tensor<8x4xf32>, %x: tensor<4x3xf32>):
    %p = lax.dot_general %cw, %x contracting = [1] x [1] batch = [] x [] : (tensor<8x3xf32>, tensor<4x3xf32>) -> tensor<8x4xf32>
    %s = lax.add %p, %h : tensor<8x4xf32>
    %t = lax.tanh %s : tensor<8x4xf32>
    lax.yield %t : tensor<8x4xf32>
  }
  return %r : tensor<8x4xf32>
}


// Projections of the stacked states after the scan: hs W (the states the
// lhs, stacked along axis 0) and V hs'^T (the rhs, stacked along axis 1).
func.func @output_projection(%h0: tensor<4x8xf32>, %xs: tensor<6x4x8xf32>, %w: tensor<8x3xf32>,
                             %v: tensor<2x8xf32>) -> (tensor<6x4x3xf32>, tensor<2x4x6xf32>) {
  %r:3 = lax.scan length = 6 carry(%h0) xs(%xs) {ys_axes = array<i64: 0, 1>}
      : (tensor<4x8xf32>, tensor<6x4x8xf32>) -> (tensor<4x8xf32>, tensor<6x4x8xf32>, tensor<4x6x8xf32>) {
  ^bb0(%h: tensor<4x8xf32>, %x: tensor<4x8xf32>):
    %s = lax.add %h, %x : tensor<4x8xf32>
    %t = lax.tanh %s : tensor<4x8xf32>
    lax.yield %t, %t, %t : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
  }
  %p = lax.dot_general %r#1, %w contracting = [2] x [0] batch = [] x [] : (tensor<6x4x8xf32>, tensor<8x3xf32>) -> tensor<6x4x3xf32>
  %q = lax.dot_general %v, %r#2 contracting = [1] x [2] batch = [] x [] : (tensor<2x8xf32>, tensor<4x6x8xf32>) -> tensor<2x4x6xf32>
  return %p, %q : tensor<6x4x3xf32>, tensor<2x4x6xf32>
}
