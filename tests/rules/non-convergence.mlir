// Rules that never stop: the error names every rule still firing, each with
// where it first fired, at a real location and without printing the module;
// the counts follow --rule-max-rewrites.
// RUN: not kiln-opt %s --rules=%S/Inputs/ping-pong.yaml --rule-max-rewrites=50 2>&1 | FileCheck %s
// CHECK: non-convergence.mlir:[[@LINE+11]]:8: error: rewrite rules did not converge after 10 iterations (at most 50 rewrites); rules still firing in one more round: 'cos-to-sin' ({{[0-9]+}}x, first at {{.*}}non-convergence.mlir:[[@LINE+11]]:8) 'sin-to-cos' ({{[0-9]+}}x, first at {{.*}}non-convergence.mlir:[[@LINE+11]]:8)
// CHECK-NOT: 1000x
// CHECK-NOT: "builtin.module"
// CHECK-NOT: func.func
//
// A rule that grows the IR forever stops at the growth bound (4 ops per
// input op + 10000), quickly, naming it:
// RUN: not kiln-opt %s --rules=%S/Inputs/grows.yaml 2>&1 | FileCheck %s --check-prefix=GROWS
// GROWS: error: rewrite rules grew the IR by more than {{[0-9]+}} ops (from {{[0-9]+}}); rules that fired: 'neg-grows' ({{[0-9]+}}x, first at {{.*}}non-convergence.mlir:[[@LINE+4]]:8)
//
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = lax.sin %x : tensor<4xf32>
  %1 = lax.neg %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// Bounds are positive: 0 applied nothing and exited 0, -1 let rules run
// forever.
// RUN: not kiln-opt %s --rules=%S/Inputs/ping-pong.yaml --rule-max-iterations=0 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not kiln-opt %s --rules=%S/Inputs/ping-pong.yaml --rule-max-iterations=-1 2>&1 | FileCheck %s --check-prefix=NEG
// RUN: not kiln-opt %s --rules=%S/Inputs/ping-pong.yaml --rule-max-rewrites=-1 2>&1 | FileCheck %s --check-prefix=NEGR
// ZERO: error: --rule-max-iterations must be positive (got 0)
// NEG: error: --rule-max-iterations must be positive (got -1)
// NEGR: error: --rule-max-rewrites must be positive (got -1)
