// Issue #24's listed JIT defect: a self-recursive func.call made kiln-run
// loop forever (LLVM turns the self tail call into a loop; the interpreter
// reports calls nested deeper than 256). --kiln-lax-to-linalg now rejects a
// cycle of calls, direct or mutual, with a diagnostic at the call. A call
// graph with a shared callee (no cycle) still compiles and runs.
// RUN: split-file %s %t
// RUN: not kiln-run %t/self.mlir --random-inputs --no-cache 2>&1 | FileCheck %s --check-prefix=SELF
// RUN: not kiln-run %t/mutual.mlir --random-inputs --no-cache 2>&1 | FileCheck %s --check-prefix=MUTUAL
// RUN: kiln-run %t/diamond.mlir --random-inputs --check --no-cache | FileCheck %s --check-prefix=DIAMOND
// SELF: self.mlir":2:{{[0-9]+}}): recursive call of @f: the CPU pipeline does not compile recursion
// MUTUAL: recursive call of @{{[fg]}}: the CPU pipeline does not compile recursion
// DIAMOND: output 0: matches (all equal)

//--- self.mlir
func.func private @f(%x: tensor<i32>) -> tensor<i32> {
  %r = func.call @f(%x) : (tensor<i32>) -> tensor<i32>
  return %r : tensor<i32>
}
func.func @main(%x: tensor<i32>) -> tensor<i32> {
  %r = func.call @f(%x) : (tensor<i32>) -> tensor<i32>
  return %r : tensor<i32>
}

//--- mutual.mlir
func.func private @f(%x: tensor<i32>) -> tensor<i32> {
  %r = func.call @g(%x) : (tensor<i32>) -> tensor<i32>
  return %r : tensor<i32>
}
func.func private @g(%x: tensor<i32>) -> tensor<i32> {
  %r = func.call @f(%x) : (tensor<i32>) -> tensor<i32>
  return %r : tensor<i32>
}
func.func @main(%x: tensor<i32>) -> tensor<i32> {
  %r = func.call @f(%x) : (tensor<i32>) -> tensor<i32>
  return %r : tensor<i32>
}

//--- diamond.mlir
func.func private @h(%x: tensor<i32>) -> tensor<i32> {
  %r = lax.mul %x, %x : tensor<i32>
  return %r : tensor<i32>
}
func.func private @f(%x: tensor<i32>) -> tensor<i32> {
  %r = func.call @h(%x) : (tensor<i32>) -> tensor<i32>
  return %r : tensor<i32>
}
func.func private @g(%x: tensor<i32>) -> tensor<i32> {
  %a = func.call @h(%x) : (tensor<i32>) -> tensor<i32>
  %b = func.call @f(%a) : (tensor<i32>) -> tensor<i32>
  return %b : tensor<i32>
}
func.func @main(%x: tensor<i32>) -> tensor<i32> {
  %r = func.call @g(%x) : (tensor<i32>) -> tensor<i32>
  return %r : tensor<i32>
}
