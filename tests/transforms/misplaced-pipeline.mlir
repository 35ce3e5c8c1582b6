// Kiln's pipelines hold module passes. Nested under another op they aborted
// with "LLVM ERROR: Can't add pass ... restricted to 'builtin.module'"; they
// report where they belong instead (kiln-misplaced-pipeline).
// RUN: not kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-optimize))' 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: not kiln-opt %s --pass-pipeline='builtin.module(inline{default-pipeline=kiln-lower-cpu})' 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: not kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-lower-gpu))' 2>&1 | FileCheck %s --check-prefix=GPU
// RUN: kiln-opt %s --pass-pipeline='builtin.module(kiln-optimize)' | FileCheck %s --check-prefix=MODULE
// OPT: error: 'kiln-optimize' is a pipeline of module passes: run it on builtin.module (--pass-pipeline='builtin.module(kiln-optimize)'), not nested under 'func.func'
// CPU: error: 'kiln-lower-cpu' is a pipeline of module passes
// GPU: error: 'kiln-lower-gpu' is a pipeline of module passes
// MODULE: lax.neg

func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = lax.neg %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
