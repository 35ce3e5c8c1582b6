// Found by tests/differential (generated program 0, reduced): a batch-
// parallel scan (--kiln-scan-to-parallel-loops, in the CPU pipeline) whose
// body yields a ys slice that is not batch-shaped crashed the JIT (segfault
// in ParallelScanEmitter::emitLoop: no per-element scalar for that value).
// Such scans, and those yielding a value defined outside the body (outer.mlir,
// which happened to work because the value was also the carry's init), now
// stay sequential loops; the JIT agrees with the reference interpreter.
// RUN: split-file %s %t
// RUN: kiln-run %t/ys.mlir --random-inputs --check --no-cache | FileCheck %s
// RUN: kiln-run %t/outer.mlir --random-inputs --check --no-cache | FileCheck %s
// CHECK-COUNT-2: matches (all equal)
// CHECK: worst error: 0 x bound

//--- ys.mlir
func.func @main(%x: tensor<2xi64>, %xs: tensor<5x2xi64>) -> (tensor<2xi64>, tensor<5x5xi1>) {
  %c, %ys = lax.scan length = 5 carry(%x) xs(%xs) : (tensor<2xi64>, tensor<5x2xi64>) -> (tensor<2xi64>, tensor<5x5xi1>) {
  ^bb0(%ci: tensor<2xi64>, %xi: tensor<2xi64>):
    %s = lax.add %ci, %xi : tensor<2xi64>
    %f = lax.constant dense<[false, true, false, false, true]> : tensor<5xi1>
    lax.yield %s, %f : tensor<2xi64>, tensor<5xi1>
  }
  return %c, %ys : tensor<2xi64>, tensor<5x5xi1>
}

//--- outer.mlir
func.func @main(%x: tensor<2xi64>, %xs: tensor<5x2xi64>) -> (tensor<2xi64>, tensor<5x2xi64>) {
  %c, %ys = lax.scan length = 5 carry(%x) xs(%xs) : (tensor<2xi64>, tensor<5x2xi64>) -> (tensor<2xi64>, tensor<5x2xi64>) {
  ^bb0(%ci: tensor<2xi64>, %xi: tensor<2xi64>):
    %s = lax.mul %ci, %xi : tensor<2xi64>
    lax.yield %x, %s : tensor<2xi64>, tensor<2xi64>
  }
  return %c, %ys : tensor<2xi64>, tensor<5x2xi64>
}
