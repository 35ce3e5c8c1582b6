// Found by tests/differential (generated program 96, reduced): --canonicalize
// (and every pipeline) crashed with a segfault on a lax.cond whose index is a
// constant when the selected branch yields one of its block arguments: the
// InlineSelectedBranch pattern read the yielded values before inlining the
// block, so the result was replaced by a dangling block argument. Each
// index below (in range, negative, too large: the last branch) must give
// what the reference interpreter gives on the original program.
// RUN: rm -rf %t && mkdir -p %t
// RUN: kiln-run %s --random-inputs --interpret --outputs %t/ref
// RUN: kiln-opt %s --canonicalize -o %t/after.mlir
// RUN: FileCheck %s --input-file=%t/after.mlir
// RUN: kiln-run %t/after.mlir --random-inputs --interpret --expect %t/ref/out0.npy,%t/ref/out1.npy,%t/ref/out2.npy,%t/ref/out3.npy --check-k 0
// CHECK-NOT: lax.cond

func.func @main(%x: tensor<i32>) -> (tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) {
  %m3 = lax.constant dense<-3> : tensor<i32>
  %z = lax.constant dense<0> : tensor<i32>
  %one = lax.constant dense<1> : tensor<i32>
  %five = lax.constant dense<5> : tensor<i32>
  %a = lax.cond %m3 (%x) : (tensor<i32>, tensor<i32>) -> (tensor<i32>)
  branch 0 {
  ^bb0(%v: tensor<i32>):
    %c = lax.constant dense<7> : tensor<i32>
    lax.yield %c : tensor<i32>
  } branch 1 {
  ^bb0(%v: tensor<i32>):
    lax.yield %v : tensor<i32>
  }
  %b = lax.cond %z (%x) : (tensor<i32>, tensor<i32>) -> (tensor<i32>)
  branch 0 {
  ^bb0(%v: tensor<i32>):
    lax.yield %v : tensor<i32>
  } branch 1 {
  ^bb0(%v: tensor<i32>):
    %c = lax.constant dense<7> : tensor<i32>
    lax.yield %c : tensor<i32>
  }
  %r = lax.cond %one (%x, %x) : (tensor<i32>, tensor<i32>, tensor<i32>) -> (tensor<i32>)
  branch 0 {
  ^bb0(%v: tensor<i32>, %w: tensor<i32>):
    lax.yield %v : tensor<i32>
  } branch 1 {
  ^bb0(%v: tensor<i32>, %w: tensor<i32>):
    %s = lax.add %v, %w : tensor<i32>
    lax.yield %s : tensor<i32>
  }
  %d = lax.cond %five (%x) : (tensor<i32>, tensor<i32>) -> (tensor<i32>)
  branch 0 {
  ^bb0(%v: tensor<i32>):
    %c = lax.constant dense<7> : tensor<i32>
    lax.yield %c : tensor<i32>
  } branch 1 {
  ^bb0(%v: tensor<i32>):
    %n = lax.neg %v : tensor<i32>
    lax.yield %n : tensor<i32>
  }
  return %a, %b, %r, %d : tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>
}
