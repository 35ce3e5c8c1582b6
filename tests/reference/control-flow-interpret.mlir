// kiln-run --interpret on lax.while and lax.cond; every expected value is
// derived by hand in the comments above its function.
// RUN: split-file %s %t
// RUN: kiln-run %t/collatz.mlir --random-inputs --interpret | FileCheck %s --check-prefix=COLLATZ
// RUN: kiln-run %t/consts.mlir --random-inputs --interpret | FileCheck %s --check-prefix=CONSTS
// RUN: kiln-run %t/switch.mlir --random-inputs --interpret | FileCheck %s --check-prefix=SWITCH
// RUN: kiln-run %t/lcg.mlir --random-inputs --interpret | FileCheck %s --check-prefix=LCG
// RUN: kiln-run %t/nested.mlir --random-inputs --interpret | FileCheck %s --check-prefix=NESTED

// Collatz from 6: 6 3 10 5 16 8 4 2 1, eight steps. A loop whose predicate
// is false at once returns its initial carries (1, 0).
// COLLATZ: output 0: tensor<i32> min 1 max 1 mean 1 values [1]
// COLLATZ: output 1: tensor<i32> min 8 max 8 mean 8 values [8]
// COLLATZ: output 2: tensor<i32> min 1 max 1 mean 1 values [1]
// COLLATZ: output 3: tensor<i32> min 0 max 0 mean 0 values [0]

// x *= k while x < limit from x = 1, k = 3, limit = 100: 1 3 9 27 81 243,
// five iterations; the cond const (limit) and the body const (k) differ.
// CONSTS: output 0: tensor<2xf32> min 243 max 243 mean 243 values [243, 243]
// CONSTS: output 1: tensor<i32> min 5 max 5 mean 5 values [5]

// Three branches (x + 10, x * 2, -x) at x = [1, 2]: index 0 runs branch 0,
// 1 branch 1; out of range, -5 and 9 run the last branch (as jax.jit does:
// not a clamp); an i1 index true runs branch 1 (x * x), false branch 0
// (x - 1). Two results from one cond.
// SWITCH: output 0: tensor<2xf32> min -2 max -1 mean -1.5 values [-1, -2]
// SWITCH: output 1: tensor<2xf32> min 2 max 4 mean 3 values [2, 4]
// SWITCH: output 2: tensor<2xf32> min -2 max -1 mean -1.5 values [-1, -2]
// SWITCH: output 3: tensor<2xf32> min 1 max 4 mean 2.5 values [1, 4]
// SWITCH: output 4: tensor<2xf32> min 0 max 1 mean 0.5 values [0, 1]
// SWITCH: output 5: tensor<i32> min 7 max 7 mean 7 values [7]
// SWITCH: output 6: tensor<2xf32> min 11 max 12 mean 11.5 values [11, 12]

// A ui32 carry: x = x * 1664525 + 1013904223 (mod 2^32) three times from 1:
// 1015568748, 1586005467, 2165703038 (exact integer arithmetic mod 2^32;
// the last is above 2^31, so a signed reading would be negative); then
// 2165703038 / 3 = 721901012 unsigned (signed it would be -709754752).
// The summary prints 6 digits; the exact values are checked as
// x / 65536 and x % 65536: 2165703038 = 33046 * 65536 + 382 and
// 721901012 = 11015 * 65536 + 21972.
// LCG: output 0: tensor<ui32> min 2.1657e+09 max 2.1657e+09
// LCG: output 1: tensor<ui32> min 33046 max 33046 mean 33046 values [33046]
// LCG: output 2: tensor<ui32> min 382 max 382 mean 382 values [382]
// LCG: output 3: tensor<ui32> min 11015 max 11015 mean 11015 values [11015]
// LCG: output 4: tensor<ui32> min 21972 max 21972 mean 21972 values [21972]

// A while and a cond in a scan body, a scan in a while body.
// Scan over xs = [2, 3, 4] from c = 1: the inner loop multiplies c by x
// while c < 100 x. x = 2: 1 2 4 8 16 32 64 128 256 (the first >= 200), so
// c = 256; x = 3: 256 < 300, c = 768; x = 4: 768 < 400 is false at once, c
// stays 768. ys = cond(x > 2.5, c - x, c + x) = [254, 771, 772].
// NESTED: output 0: tensor<f32> min 768 max 768 mean 768 values [768]
// NESTED: output 1: tensor<3xf32> min 254 max 772 mean 599 values [254, 771, 772]
// The outer loop runs twice over a sum-scan of [1, 2, 3] starting at its
// carry s: s = 0 -> 0+1+2+3 = 6 -> 6+6 = 12.
// NESTED: output 2: tensor<f32> min 12 max 12 mean 12 values [12]

//--- collatz.mlir
func.func @collatz() -> (tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) {
  %six = lax.constant dense<6> : tensor<i32>
  %one = lax.constant dense<1> : tensor<i32>
  %zero = lax.constant dense<0> : tensor<i32>
  %n, %steps = lax.while carry(%six, %zero) : (tensor<i32>, tensor<i32>) -> (tensor<i32>, tensor<i32>)
  cond {
  ^bb0(%v: tensor<i32>, %s: tensor<i32>):
    %c1 = lax.constant dense<1> : tensor<i32>
    %t = lax.compare NE, %v, %c1 : tensor<i32>
    lax.yield %t : tensor<i1>
  } body {
  ^bb0(%v: tensor<i32>, %s: tensor<i32>):
    %c1 = lax.constant dense<1> : tensor<i32>
    %c2 = lax.constant dense<2> : tensor<i32>
    %c3 = lax.constant dense<3> : tensor<i32>
    %r = lax.rem %v, %c2 : tensor<i32>
    %even = lax.compare NE, %r, %c1 : tensor<i32>
    %half = lax.div %v, %c2 : tensor<i32>
    %t3 = lax.mul %v, %c3 : tensor<i32>
    %up = lax.add %t3, %c1 : tensor<i32>
    // Even (true) picks case 1: halve; odd: 3v + 1.
    %next = lax.select_n %even, %up, %half : tensor<i1>, tensor<i32>, tensor<i32>
    %s1 = lax.add %s, %c1 : tensor<i32>
    lax.yield %next, %s1 : tensor<i32>, tensor<i32>
  }
  %n0, %s0 = lax.while carry(%one, %zero) : (tensor<i32>, tensor<i32>) -> (tensor<i32>, tensor<i32>)
  cond {
  ^bb0(%v: tensor<i32>, %s: tensor<i32>):
    %c1 = lax.constant dense<1> : tensor<i32>
    %t = lax.compare NE, %v, %c1 : tensor<i32>
    lax.yield %t : tensor<i1>
  } body {
  ^bb0(%v: tensor<i32>, %s: tensor<i32>):
    lax.yield %s, %v : tensor<i32>, tensor<i32>
  }
  return %n, %steps, %n0, %s0 : tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>
}

//--- consts.mlir
func.func @consts() -> (tensor<2xf32>, tensor<i32>) {
  %x0 = lax.constant dense<1.0> : tensor<2xf32>
  %k = lax.constant dense<3.0> : tensor<2xf32>
  %limit = lax.constant dense<100.0> : tensor<f32>
  %zero = lax.constant dense<0> : tensor<i32>
  %x, %n = lax.while cond_consts(%limit) body_consts(%k) carry(%x0, %zero)
      : (tensor<f32>, tensor<2xf32>, tensor<2xf32>, tensor<i32>) -> (tensor<2xf32>, tensor<i32>)
  cond {
  ^bb0(%l: tensor<f32>, %v: tensor<2xf32>, %i: tensor<i32>):
    %m = lax.reduce_max %v axes = [0] : tensor<2xf32> -> tensor<f32>
    %t = lax.compare LT, %m, %l : tensor<f32>
    lax.yield %t : tensor<i1>
  } body {
  ^bb0(%kk: tensor<2xf32>, %v: tensor<2xf32>, %i: tensor<i32>):
    %w = lax.mul %v, %kk : tensor<2xf32>
    %c1 = lax.constant dense<1> : tensor<i32>
    %j = lax.add %i, %c1 : tensor<i32>
    lax.yield %w, %j : tensor<2xf32>, tensor<i32>
  }
  return %x, %n : tensor<2xf32>, tensor<i32>
}

//--- switch.mlir
func.func @switch() -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<i32>, tensor<2xf32>) {
  %x = lax.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %m5 = lax.constant dense<-5> : tensor<i32>
  %one = lax.constant dense<1> : tensor<i32>
  %nine = lax.constant dense<9> : tensor<i32>
  %true = lax.constant dense<true> : tensor<i1>
  %false = lax.constant dense<false> : tensor<i1>
  %a = lax.cond %m5 (%x) : (tensor<i32>, tensor<2xf32>) -> tensor<2xf32>
  branch 0 {
  ^bb0(%v: tensor<2xf32>):
    %ten = lax.constant dense<10.0> : tensor<2xf32>
    %r = lax.add %v, %ten : tensor<2xf32>
    lax.yield %r : tensor<2xf32>
  } branch 1 {
  ^bb0(%v: tensor<2xf32>):
    %r = lax.add %v, %v : tensor<2xf32>
    lax.yield %r : tensor<2xf32>
  } branch 2 {
  ^bb0(%v: tensor<2xf32>):
    %r = lax.neg %v : tensor<2xf32>
    lax.yield %r : tensor<2xf32>
  }
  %b = lax.cond %one (%x) : (tensor<i32>, tensor<2xf32>) -> tensor<2xf32>
  branch 0 {
  ^bb0(%v: tensor<2xf32>):
    %ten = lax.constant dense<10.0> : tensor<2xf32>
    %r = lax.add %v, %ten : tensor<2xf32>
    lax.yield %r : tensor<2xf32>
  } branch 1 {
  ^bb0(%v: tensor<2xf32>):
    %r = lax.add %v, %v : tensor<2xf32>
    lax.yield %r : tensor<2xf32>
  } branch 2 {
  ^bb0(%v: tensor<2xf32>):
    %r = lax.neg %v : tensor<2xf32>
    lax.yield %r : tensor<2xf32>
  }
  %c = lax.cond %nine (%x) : (tensor<i32>, tensor<2xf32>) -> tensor<2xf32>
  branch 0 {
  ^bb0(%v: tensor<2xf32>):
    %ten = lax.constant dense<10.0> : tensor<2xf32>
    %r = lax.add %v, %ten : tensor<2xf32>
    lax.yield %r : tensor<2xf32>
  } branch 1 {
  ^bb0(%v: tensor<2xf32>):
    %r = lax.add %v, %v : tensor<2xf32>
    lax.yield %r : tensor<2xf32>
  } branch 2 {
  ^bb0(%v: tensor<2xf32>):
    %r = lax.neg %v : tensor<2xf32>
    lax.yield %r : tensor<2xf32>
  }
  %d = lax.cond %true (%x) : (tensor<i1>, tensor<2xf32>) -> tensor<2xf32>
  branch 0 {
  ^bb0(%v: tensor<2xf32>):
    %c1 = lax.constant dense<1.0> : tensor<2xf32>
    %r = lax.sub %v, %c1 : tensor<2xf32>
    lax.yield %r : tensor<2xf32>
  } branch 1 {
  ^bb0(%v: tensor<2xf32>):
    %r = lax.mul %v, %v : tensor<2xf32>
    lax.yield %r : tensor<2xf32>
  }
  %e, %f = lax.cond %false (%x, %one) : (tensor<i1>, tensor<2xf32>, tensor<i32>) -> (tensor<2xf32>, tensor<i32>)
  branch 0 {
  ^bb0(%v: tensor<2xf32>, %i: tensor<i32>):
    %c1 = lax.constant dense<1.0> : tensor<2xf32>
    %r = lax.sub %v, %c1 : tensor<2xf32>
    %s = lax.constant dense<7> : tensor<i32>
    lax.yield %r, %s : tensor<2xf32>, tensor<i32>
  } branch 1 {
  ^bb0(%v: tensor<2xf32>, %i: tensor<i32>):
    %r = lax.mul %v, %v : tensor<2xf32>
    lax.yield %r, %i : tensor<2xf32>, tensor<i32>
  }
  %zero = lax.constant dense<0> : tensor<i32>
  %g = lax.cond %zero (%x) : (tensor<i32>, tensor<2xf32>) -> tensor<2xf32>
  branch 0 {
  ^bb0(%v: tensor<2xf32>):
    %ten = lax.constant dense<10.0> : tensor<2xf32>
    %r = lax.add %v, %ten : tensor<2xf32>
    lax.yield %r : tensor<2xf32>
  } branch 1 {
  ^bb0(%v: tensor<2xf32>):
    %r = lax.add %v, %v : tensor<2xf32>
    lax.yield %r : tensor<2xf32>
  } branch 2 {
  ^bb0(%v: tensor<2xf32>):
    %r = lax.neg %v : tensor<2xf32>
    lax.yield %r : tensor<2xf32>
  }
  return %a, %b, %c, %d, %e, %f, %g : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<i32>, tensor<2xf32>
}

//--- lcg.mlir
func.func @lcg() -> (tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>) {
  %x0 = lax.constant dense<1> : tensor<ui32>
  %zero = lax.constant dense<0> : tensor<i32>
  %x, %n = lax.while carry(%x0, %zero) : (tensor<ui32>, tensor<i32>) -> (tensor<ui32>, tensor<i32>)
  cond {
  ^bb0(%v: tensor<ui32>, %i: tensor<i32>):
    %c3 = lax.constant dense<3> : tensor<i32>
    %t = lax.compare LT, %i, %c3 : tensor<i32>
    lax.yield %t : tensor<i1>
  } body {
  ^bb0(%v: tensor<ui32>, %i: tensor<i32>):
    %a = lax.constant dense<1664525> : tensor<ui32>
    %c = lax.constant dense<1013904223> : tensor<ui32>
    %m = lax.mul %v, %a : tensor<ui32>
    %w = lax.add %m, %c : tensor<ui32>
    %c1 = lax.constant dense<1> : tensor<i32>
    %j = lax.add %i, %c1 : tensor<i32>
    lax.yield %w, %j : tensor<ui32>, tensor<i32>
  }
  %three = lax.constant dense<3> : tensor<ui32>
  %q = lax.div %x, %three : tensor<ui32>
  %base = lax.constant dense<65536> : tensor<ui32>
  %xh = lax.div %x, %base : tensor<ui32>
  %xl = lax.rem %x, %base : tensor<ui32>
  %qh = lax.div %q, %base : tensor<ui32>
  %ql = lax.rem %q, %base : tensor<ui32>
  return %x, %xh, %xl, %qh, %ql : tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>
}

//--- nested.mlir
func.func @nested() -> (tensor<f32>, tensor<3xf32>, tensor<f32>) {
  %c0 = lax.constant dense<1.0> : tensor<f32>
  %xs = lax.constant dense<[2.0, 3.0, 4.0]> : tensor<3xf32>
  %c, %ys = lax.scan length = 3 carry(%c0) xs(%xs) : (tensor<f32>, tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>) {
  ^bb0(%cc: tensor<f32>, %x: tensor<f32>):
    %hundred = lax.constant dense<100.0> : tensor<f32>
    %limit = lax.mul %x, %hundred : tensor<f32>
    %w = lax.while cond_consts(%limit) body_consts(%x) carry(%cc) : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<f32>
    cond {
    ^bb0(%l: tensor<f32>, %v: tensor<f32>):
      %t = lax.compare LT, %v, %l : tensor<f32>
      lax.yield %t : tensor<i1>
    } body {
    ^bb0(%k: tensor<f32>, %v: tensor<f32>):
      %m = lax.mul %v, %k : tensor<f32>
      lax.yield %m : tensor<f32>
    }
    %half = lax.constant dense<2.5> : tensor<f32>
    %big = lax.compare GT, %x, %half : tensor<f32>
    %y = lax.cond %big (%w, %x) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
    branch 0 {
    ^bb0(%u: tensor<f32>, %v: tensor<f32>):
      %d = lax.sub %u, %v : tensor<f32>
      lax.yield %d : tensor<f32>
    } branch 1 {
    ^bb0(%u: tensor<f32>, %v: tensor<f32>):
      %d = lax.add %u, %v : tensor<f32>
      lax.yield %d : tensor<f32>
    }
    lax.yield %w, %y : tensor<f32>, tensor<f32>
  }
  %zero = lax.constant dense<0.0> : tensor<f32>
  %izero = lax.constant dense<0> : tensor<i32>
  %xs2 = lax.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %s, %n = lax.while body_consts(%xs2) carry(%zero, %izero) : (tensor<3xf32>, tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>)
  cond {
  ^bb0(%v: tensor<f32>, %i: tensor<i32>):
    %two = lax.constant dense<2> : tensor<i32>
    %t = lax.compare LT, %i, %two : tensor<i32>
    lax.yield %t : tensor<i1>
  } body {
  ^bb0(%zs: tensor<3xf32>, %v: tensor<f32>, %i: tensor<i32>):
    %sum, %unused = lax.scan length = 3 carry(%v) xs(%zs) : (tensor<f32>, tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>) {
    ^bb0(%acc: tensor<f32>, %z: tensor<f32>):
      %a = lax.add %acc, %z : tensor<f32>
      lax.yield %a, %a : tensor<f32>, tensor<f32>
    }
    %c1 = lax.constant dense<1> : tensor<i32>
    %j = lax.add %i, %c1 : tensor<i32>
    lax.yield %sum, %j : tensor<f32>, tensor<i32>
  }
  return %c, %ys, %s : tensor<f32>, tensor<3xf32>, tensor<f32>
}
