// Found by tests/differential (generated program 312901 of seeds
// 300000-319999, reduced by hand): the JIT crashed in LLVM's register
// coalescer. LLVM 22's O3 pipeline, for an AVX2 target, broke the module it
// was optimizing (SROA after the SLP vectorizer left a shufflevector used
// before its definition: "Instruction does not dominate all uses"), and code
// generation then ran on invalid IR. The compiler now verifies the optimized
// module and, when it is broken, optimizes it again without the SLP
// vectorizer (compiler/HostJit.cpp); an LLVM bug that survives that is an
// error, not a crash.
// RUN: kiln-run %s --random-inputs --check --no-cache | FileCheck %s
// CHECK: output 0: matches
// CHECK-NOT: output 1

func.func @main(%x: tensor<4x3x3xi32>) -> tensor<4x3x3xf32> {
  %c, %s = lax.scan length = 5 carry(%x, %x) xs() : (tensor<4x3x3xi32>, tensor<4x3x3xi32>) -> (tensor<4x3x3xi32>, tensor<4x3x3xi32>) {
  ^bb0(%a: tensor<4x3x3xi32>, %b: tensor<4x3x3xi32>):
    %shifted = lax.shift_left %b, %b : tensor<4x3x3xi32>
    lax.yield %b, %shifted : tensor<4x3x3xi32>, tensor<4x3x3xi32>
  }
  %f = lax.convert_element_type %s : tensor<4x3x3xi32> -> tensor<4x3x3xf32>
  return %f : tensor<4x3x3xf32>
}
