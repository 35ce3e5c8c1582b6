// Parallel loops through the JIT against the interpreter: an elementwise op
// of 999 x 997 elements (rows split into ranges of the pool's threads,
// uneven at both ends) and a batch-parallel scan, on 2 threads, on 1, and
// with every threshold at its minimum (every loop dispatched).
// RUN: kiln-run %s --random-inputs --check --runtime-threads 2 | FileCheck %s
// RUN: kiln-run %s --random-inputs --check --runtime-threads 1 | FileCheck %s
// RUN: kiln-run %s --random-inputs --check --min-thresholds | FileCheck %s
// CHECK: output 0: matches
// CHECK: output 1: matches
func.func @main(%x: tensor<999x997xf32>, %y: tensor<999x997xf32>, %s: tensor<300x37xf32>) -> (tensor<999x997xf32>, tensor<300x37xf32>) {
  %t = lax.tanh %x : tensor<999x997xf32>
  %m = lax.mul %t, %y : tensor<999x997xf32>
  %zero = lax.constant dense<0.0> : tensor<37xf32>
  %c, %ys = lax.scan length = 300 carry(%zero) xs(%s)
      : (tensor<37xf32>, tensor<300x37xf32>) -> (tensor<37xf32>, tensor<300x37xf32>) {
  ^bb0(%carry: tensor<37xf32>, %xt: tensor<37xf32>):
    %n = lax.add %carry, %xt : tensor<37xf32>
    %h = lax.sin %n : tensor<37xf32>
    lax.yield %h, %h : tensor<37xf32>, tensor<37xf32>
  }
  return %m, %ys : tensor<999x997xf32>, tensor<300x37xf32>
}
