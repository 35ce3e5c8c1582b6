// --flush-subnormals runs the compiled code as XLA:CPU does: subnormal
// inputs read as zero (sign(1e-45) = 0, of the input's sign) and subnormal
// results written as zero (3e-39 * 0.5). Without it the results are IEEE
// 754's (numpy's float32 arithmetic computes them). Hand-derived values,
// compared exactly; --min-parallel-work=1 runs the loops on the parallel
// workers, which set the mode themselves.
// RUN: %python -c "import numpy as np; x = np.array([1e-45, -1e-45, 3e-39, 1.0, -2.5, 0.0], np.float32); np.save('%t.in.npy', x); np.save('%t.sign-flush.npy', np.array([0.0, -0.0, 0.0, 1.0, -1.0, 0.0], np.float32)); np.save('%t.half-flush.npy', np.array([0.0, -0.0, 0.0, 0.5, -1.25, 0.0], np.float32)); np.save('%t.sign-ieee.npy', np.sign(x)); np.save('%t.half-ieee.npy', x * np.float32(0.5))"
// RUN: kiln-run %s --inputs %t.in.npy --no-cache --flush-subnormals --expect %t.sign-flush.npy,%t.half-flush.npy --check-k 0 | FileCheck %s
// RUN: kiln-run %s --inputs %t.in.npy --no-cache --flush-subnormals --min-parallel-work=1 --expect %t.sign-flush.npy,%t.half-flush.npy --check-k 0 | FileCheck %s
// RUN: kiln-run %s --inputs %t.in.npy --no-cache --expect %t.sign-ieee.npy,%t.half-ieee.npy --check-k 0 | FileCheck %s
// CHECK-COUNT-2: output {{[01]}}: matches
//
// The reference interpreter computes IEEE subnormals, so --check cannot
// judge flushed results: refused.
// RUN: not kiln-run %s --inputs %t.in.npy --no-cache --flush-subnormals --check 2>&1 | FileCheck %s --check-prefix=REFUSED
// REFUSED: kiln-run: error: --check compares with the reference interpreter, which keeps IEEE subnormals: it cannot judge --flush-subnormals (compare with jax.jit's outputs through --expect)

func.func @main(%x: tensor<6xf32>) -> (tensor<6xf32>, tensor<6xf32>) {
  %half = lax.constant dense<0.5> : tensor<6xf32>
  %s = lax.sign %x : tensor<6xf32>
  %h = lax.mul %x, %half : tensor<6xf32>
  return %s, %h : tensor<6xf32>, tensor<6xf32>
}
