// kiln-run --entry names a function that does not exist: the error lists the
// public functions (and does not print the module).
// RUN: not kiln-run %s --entry=nope --random-inputs 2>&1 | FileCheck %s --check-prefix=NOPE --implicit-check-not=func.func
// RUN: not kiln-run %s --entry=decl --random-inputs 2>&1 | FileCheck %s --check-prefix=DECL --implicit-check-not=func.func
// RUN: not kiln-run %s --random-inputs 2>&1 | FileCheck %s --check-prefix=TWO --implicit-check-not=func.func
// RUN: kiln-run %s --entry=g --random-inputs --interpret | FileCheck %s --check-prefix=G

// NOPE: entry.mlir:{{[0-9]+:[0-9]+}}: error: no function named 'nope' (public functions: @f, @g)
// DECL: entry.mlir:{{[0-9]+:[0-9]+}}: error: no function named 'decl' with a body (public functions: @f, @g)
// TWO: entry.mlir:{{[0-9]+:[0-9]+}}: error: the module has 2 public functions: choose one with --entry (public functions: @f, @g)
// G: output 0

func.func @f(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}
func.func @g(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = lax.neg %x : tensor<3xf32>
  return %0 : tensor<3xf32>
}
func.func private @h(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}
func.func private @decl(%x: tensor<3xf32>) -> tensor<3xf32>
