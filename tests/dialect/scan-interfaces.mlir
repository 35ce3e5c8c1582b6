// lax.scan's upstream interfaces and what they let upstream passes do:
// loop-invariant code motion (LoopLikeOpInterface) and constant propagation
// through the carries (RegionBranchOpInterface), as for lax.while in
// control-flow.mlir.
// RUN: kiln-opt %s --loop-invariant-code-motion | FileCheck %s --check-prefix=LICM
// RUN: kiln-opt %s --sccp | FileCheck %s --check-prefix=SCCP
//
// The hoisted program computes the same values, bit for bit, in the
// reference interpreter as the original, and compiles (--check: the JIT
// against the interpreter).
// RUN: rm -rf %t && mkdir -p %t/before %t/after
// RUN: kiln-run %s --entry=licm --random-inputs --interpret --outputs=%t/before
// RUN: kiln-opt %s --loop-invariant-code-motion -o %t/licm.mlir
// RUN: kiln-run %t/licm.mlir --entry=licm --random-inputs --interpret --outputs=%t/after
// RUN: cmp %t/before/out0.npy %t/after/out0.npy
// RUN: cmp %t/before/out1.npy %t/after/out1.npy
// RUN: kiln-run %s --entry=licm_nested --random-inputs --interpret --outputs=%t/before
// RUN: kiln-run %t/licm.mlir --entry=licm_nested --random-inputs --interpret --outputs=%t/after
// RUN: cmp %t/before/out0.npy %t/after/out0.npy
// RUN: kiln-run %t/licm.mlir --entry=licm --random-inputs --check | FileCheck %s --check-prefix=JIT
// RUN: kiln-run %t/licm.mlir --entry=licm_nested --random-inputs --check | FileCheck %s --check-prefix=JIT
// RUN: kiln-run %t/licm.mlir --entry=licm_length_zero --random-inputs --check | FileCheck %s --check-prefix=JIT
// JIT: check against the reference interpreter
// JIT-NOT: DIFFERS
// JIT: matches
// JIT-NOT: DIFFERS

// Pure ops that read only values from outside the loop (a constant, an
// operand used directly) move out; those reading the consts' block argument,
// a carry or an xs slice stay.
// LICM-LABEL: func.func @licm
// LICM-DAG: %[[TWO:.*]] = lax.constant dense<2.000000e+00> : tensor<8xf32>
// LICM-DAG: %[[E:.*]] = lax.exp %arg0 : tensor<8xf32>
// LICM: %[[S:.*]] = lax.mul %[[E]], %[[TWO]] : tensor<8xf32>
// LICM: lax.scan length = 5
// LICM-NEXT: ^bb0(%[[K:.*]]: tensor<8xf32>, %[[C:.*]]: tensor<8xf32>, %[[X:.*]]: tensor<8xf32>):
// LICM-NEXT: %[[T:.*]] = lax.mul %[[K]], %[[X]]
// LICM-NEXT: %[[N:.*]] = lax.add %[[C]], %[[T]]
// LICM-NEXT: %[[Y:.*]] = lax.add %[[N]], %[[S]]
// LICM-NEXT: lax.yield %[[N]], %[[Y]]
func.func @licm(%k: tensor<8xf32>, %c0: tensor<8xf32>, %xs: tensor<5x8xf32>)
    -> (tensor<8xf32>, tensor<5x8xf32>) {
  %c, %ys = lax.scan length = 5 consts(%k) carry(%c0) xs(%xs)
      : (tensor<8xf32>, tensor<8xf32>, tensor<5x8xf32>) -> (tensor<8xf32>, tensor<5x8xf32>) {
  ^bb0(%kk: tensor<8xf32>, %c: tensor<8xf32>, %x: tensor<8xf32>):
    %two = lax.constant dense<2.0> : tensor<8xf32>
    %e = lax.exp %k : tensor<8xf32>
    %s = lax.mul %e, %two : tensor<8xf32>
    %t = lax.mul %kk, %x : tensor<8xf32>
    %n = lax.add %c, %t : tensor<8xf32>
    %y = lax.add %n, %s : tensor<8xf32>
    lax.yield %n, %y : tensor<8xf32>, tensor<8xf32>
  }
  return %c, %ys : tensor<8xf32>, tensor<5x8xf32>
}

// A scan or a cond that reads only values from outside the loop moves out
// whole: both always end, and their regions are pure (RecursivelySpeculatable).
// A while may not end, so it stays.
// LICM-LABEL: func.func @licm_nested
// LICM: lax.scan length = 3
// LICM: lax.cond
// LICM: lax.scan length = 6
// LICM-NOT: lax.scan
// LICM-NOT: lax.cond
// LICM: lax.while
// LICM: return
func.func @licm_nested(%a: tensor<4xf32>, %i: tensor<i32>, %xs: tensor<6x4xf32>)
    -> tensor<4xf32> {
  %c = lax.scan length = 6 carry(%a) xs(%xs)
      : (tensor<4xf32>, tensor<6x4xf32>) -> tensor<4xf32> {
  ^bb0(%c: tensor<4xf32>, %x: tensor<4xf32>):
    %p = lax.scan length = 3 carry(%a) xs() : (tensor<4xf32>) -> tensor<4xf32> {
    ^bb0(%q: tensor<4xf32>):
      %r = lax.mul %q, %a : tensor<4xf32>
      lax.yield %r : tensor<4xf32>
    }
    %s = lax.cond %i (%a) : (tensor<i32>, tensor<4xf32>) -> tensor<4xf32>
    branch 0 {
    ^bb0(%b: tensor<4xf32>):
      %t = lax.sin %b : tensor<4xf32>
      lax.yield %t : tensor<4xf32>
    } branch 1 {
    ^bb0(%b: tensor<4xf32>):
      lax.yield %b : tensor<4xf32>
    }
    %zero = lax.constant dense<0> : tensor<i32>
    %w = lax.while carry(%zero) : (tensor<i32>) -> tensor<i32>
    cond {
    ^bb0(%k: tensor<i32>):
      %more = lax.compare LT, %k, %i : tensor<i32>
      lax.yield %more : tensor<i1>
    } body {
    ^bb0(%k: tensor<i32>):
      %one = lax.constant dense<1> : tensor<i32>
      %k1 = lax.add %k, %one : tensor<i32>
      lax.yield %k1 : tensor<i32>
    }
    %wf = lax.convert_element_type %w : tensor<i32> -> tensor<f32>
    %wv = lax.broadcast_in_dim %wf shape = [4] dims = [] : tensor<f32> -> tensor<4xf32>
    %n = lax.add %c, %p : tensor<4xf32>
    %m = lax.add %n, %s : tensor<4xf32>
    %o = lax.add %m, %x : tensor<4xf32>
    %y = lax.add %o, %wv : tensor<4xf32>
    lax.yield %y : tensor<4xf32>
  }
  return %c : tensor<4xf32>
}

// A body that never runs: hoisting a pure op out of it is still sound (its
// value is unused).
// LICM-LABEL: func.func @licm_length_zero
// LICM: lax.exp %arg0
// LICM: lax.scan length = 0
// LICM-NOT: lax.exp
// LICM: return
func.func @licm_length_zero(%k: tensor<4xf32>, %c0: tensor<4xf32>, %xs: tensor<0x4xf32>)
    -> tensor<4xf32> {
  %c = lax.scan length = 0 carry(%c0) xs(%xs)
      : (tensor<4xf32>, tensor<0x4xf32>) -> tensor<4xf32> {
  ^bb0(%c: tensor<4xf32>, %x: tensor<4xf32>):
    %e = lax.exp %k : tensor<4xf32>
    %n = lax.add %c, %e : tensor<4xf32>
    %m = lax.add %n, %x : tensor<4xf32>
    lax.yield %m : tensor<4xf32>
  }
  return %c : tensor<4xf32>
}

// A carry the body passes through unchanged keeps its constant initial
// value; one the body changes does not; the ys are stacked, not forwarded,
// so they are never taken for a yielded value.
// SCCP-LABEL: func.func @sccp_carries
// SCCP-DAG: %[[ONE:.*]] = lax.constant dense<1.000000e+00> : tensor<f32>
// SCCP: %[[R:.*]]:3 = lax.scan length = 3
// SCCP: return %[[ONE]], %[[R]]#1, %[[R]]#2
func.func @sccp_carries(%xs: tensor<3xf32>) -> (tensor<f32>, tensor<f32>, tensor<3xf32>) {
  %one = lax.constant dense<1.0> : tensor<f32>
  %same, %sum, %ys = lax.scan length = 3 carry(%one, %one) xs(%xs)
      : (tensor<f32>, tensor<f32>, tensor<3xf32>) -> (tensor<f32>, tensor<f32>, tensor<3xf32>) {
  ^bb0(%p: tensor<f32>, %q: tensor<f32>, %x: tensor<f32>):
    %n = lax.add %q, %x : tensor<f32>
    lax.yield %p, %n, %p : tensor<f32>, tensor<f32>, tensor<f32>
  }
  return %same, %sum, %ys : tensor<f32>, tensor<f32>, tensor<3xf32>
}

// A scan of length 0 never enters its body: its carries are its initial
// values.
// SCCP-LABEL: func.func @sccp_length_zero
// SCCP-NEXT: %[[ONE:.*]] = lax.constant dense<1.000000e+00> : tensor<f32>
// SCCP-NEXT: return %[[ONE]]
func.func @sccp_length_zero(%xs: tensor<0xf32>) -> tensor<f32> {
  %one = lax.constant dense<1.0> : tensor<f32>
  %c = lax.scan length = 0 carry(%one) xs(%xs)
      : (tensor<f32>, tensor<0xf32>) -> tensor<f32> {
  ^bb0(%p: tensor<f32>, %x: tensor<f32>):
    %n = lax.add %p, %x : tensor<f32>
    lax.yield %n : tensor<f32>
  }
  return %c : tensor<f32>
}
