// lax.scatter on values whose results are derived by hand (XLA's semantics:
// updates in scatter-index order, out-of-bounds windows dropped whole; the
// cases marked "JAX" were checked against jax 0.10), in the interpreter and
// in the JIT.
// RUN: kiln-run %s --random-inputs --entry order --interpret | FileCheck %s --check-prefix=ORDER
// RUN: kiln-run %s --random-inputs --entry order | FileCheck %s --check-prefix=ORDER
// RUN: kiln-run %s --random-inputs --entry bounds --interpret | FileCheck %s --check-prefix=BOUNDS
// RUN: kiln-run %s --random-inputs --entry bounds | FileCheck %s --check-prefix=BOUNDS
// RUN: kiln-run %s --random-inputs --entry combine --interpret | FileCheck %s --check-prefix=COMBINE
// RUN: kiln-run %s --random-inputs --entry combine | FileCheck %s --check-prefix=COMBINE
// RUN: kiln-run %s --random-inputs --entry integers --interpret | FileCheck %s --check-prefix=INTS
// RUN: kiln-run %s --random-inputs --entry integers | FileCheck %s --check-prefix=INTS
// RUN: kiln-run %s --random-inputs --entry shapes --interpret | FileCheck %s --check-prefix=SHAPES
// RUN: kiln-run %s --random-inputs --entry shapes | FileCheck %s --check-prefix=SHAPES

// set with a duplicate index: the last update wins.
// ORDER: output 0: {{.*}} values [0, 30, 0, 20, 0]
// Windows of 2 (update_window_dims = [0]) at 0 and 1 both write element 1:
// XLA applies scatter index 1 after scatter index 0, so updates[0, 1] = 20
// wins over updates[1, 0] = 30 although it comes first in row-major order
// of the updates (JAX: [10, 20, 40]).
// ORDER: output 1: {{.*}} values [10, 20, 40]
// add in f32, one update after the other: 1e8 + 1 rounds to 1e8, - 1e8
// gives 0, + 1 gives 1 (a pairwise sum would give 0; JAX: 1).
// ORDER: output 2: {{.*}} values [1]
func.func @order() -> (tensor<5xf32>, tensor<3xf32>, tensor<1xf32>) {
  %z5 = lax.constant dense<0.0> : tensor<5xf32>
  %i = lax.constant dense<[[1], [3], [1]]> : tensor<3x1xi32>
  %u = lax.constant dense<[10.0, 20.0, 30.0]> : tensor<3xf32>
  %0 = lax.scatter set %z5[%i], %u update_window_dims = [] inserted_window_dims = [0]
      scatter_dims_to_operand_dims = [0] mode = fill_or_drop
      : (tensor<5xf32>, tensor<3x1xi32>, tensor<3xf32>) -> tensor<5xf32>
  %z3 = lax.constant dense<0.0> : tensor<3xf32>
  %j = lax.constant dense<[[0], [1]]> : tensor<2x1xi32>
  %w = lax.constant dense<[[10.0, 20.0], [30.0, 40.0]]> : tensor<2x2xf32>
  %1 = lax.scatter set %z3[%j], %w update_window_dims = [0] inserted_window_dims = []
      scatter_dims_to_operand_dims = [0] mode = fill_or_drop
      : (tensor<3xf32>, tensor<2x1xi32>, tensor<2x2xf32>) -> tensor<3xf32>
  %z1 = lax.constant dense<0.0> : tensor<1xf32>
  %k = lax.constant dense<0> : tensor<4x1xi32>
  %v = lax.constant dense<[1.0e8, 1.0, -1.0e8, 1.0]> : tensor<4xf32>
  %2 = lax.scatter add %z1[%k], %v update_window_dims = [] inserted_window_dims = [0]
      scatter_dims_to_operand_dims = [0] mode = fill_or_drop
      : (tensor<1xf32>, tensor<4x1xi32>, tensor<4xf32>) -> tensor<1xf32>
  return %0, %1, %2 : tensor<5xf32>, tensor<3xf32>, tensor<1xf32>
}

// x = [1, 1, 1, 1, 1] += [1, 2, 100, 100, 3] at [0, 0, 7, -1, 4]:
// fill_or_drop and promise_in_bounds drop 7 and -1; clip sends them to 4
// and 0.
// BOUNDS: output 0: {{.*}} values [4, 1, 1, 1, 4]
// BOUNDS: output 1: {{.*}} values [4, 1, 1, 1, 4]
// BOUNDS: output 2: {{.*}} values [104, 1, 1, 1, 104]
// Windows of 2 into 4 zeros at 3, 1, -1 ([1, 2], [3, 4], [5, 6]): a window
// that does not fit is dropped whole (JAX: [0, 3, 4, 0]); clip moves 3 to 2
// and -1 to 0 (JAX: [5, 9, 5, 2]).
// BOUNDS: output 3: {{.*}} values [0, 3, 4, 0]
// BOUNDS: output 4: {{.*}} values [5, 9, 5, 2]
func.func @bounds() -> (tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<4xf32>, tensor<4xf32>) {
  %x = lax.constant dense<1.0> : tensor<5xf32>
  %i = lax.constant dense<[[0], [0], [7], [-1], [4]]> : tensor<5x1xi32>
  %u = lax.constant dense<[1.0, 2.0, 100.0, 100.0, 3.0]> : tensor<5xf32>
  %0 = lax.scatter add %x[%i], %u update_window_dims = [] inserted_window_dims = [0]
      scatter_dims_to_operand_dims = [0] mode = fill_or_drop
      : (tensor<5xf32>, tensor<5x1xi32>, tensor<5xf32>) -> tensor<5xf32>
  %1 = lax.scatter add %x[%i], %u update_window_dims = [] inserted_window_dims = [0]
      scatter_dims_to_operand_dims = [0] mode = promise_in_bounds
      : (tensor<5xf32>, tensor<5x1xi32>, tensor<5xf32>) -> tensor<5xf32>
  %2 = lax.scatter add %x[%i], %u update_window_dims = [] inserted_window_dims = [0]
      scatter_dims_to_operand_dims = [0] mode = clip
      : (tensor<5xf32>, tensor<5x1xi32>, tensor<5xf32>) -> tensor<5xf32>
  %z = lax.constant dense<0.0> : tensor<4xf32>
  %j = lax.constant dense<[[3], [1], [-1]]> : tensor<3x1xi64>
  %w = lax.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %3 = lax.scatter add %z[%j], %w update_window_dims = [1] inserted_window_dims = []
      scatter_dims_to_operand_dims = [0] mode = fill_or_drop
      : (tensor<4xf32>, tensor<3x1xi64>, tensor<3x2xf32>) -> tensor<4xf32>
  %4 = lax.scatter add %z[%j], %w update_window_dims = [1] inserted_window_dims = []
      scatter_dims_to_operand_dims = [0] mode = clip
      : (tensor<4xf32>, tensor<3x1xi64>, tensor<3x2xf32>) -> tensor<4xf32>
  return %0, %1, %2, %3, %4 : tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<4xf32>, tensor<4xf32>
}

// mul: [1, 2, 3] times 2 and 3 at 0, -1 at 2.
// COMBINE: output 0: {{.*}} values [6, 2, -3]
// max and min propagate NaN and order -0 < +0 (lax.max/lax.min; JAX):
// max(-0, +0) = +0 and min(+0, -0) = -0, shown through 1 / r.
// COMBINE: output 1: {{.*}} values [nan, inf, 0.2]
// COMBINE: output 2: {{.*}} values [nan, -inf, 0.25]
func.func @combine() -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %x = lax.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %i = lax.constant dense<[[0], [0], [2]]> : tensor<3x1xi32>
  %u = lax.constant dense<[2.0, 3.0, -1.0]> : tensor<3xf32>
  %0 = lax.scatter mul %x[%i], %u update_window_dims = [] inserted_window_dims = [0]
      scatter_dims_to_operand_dims = [0] mode = fill_or_drop
      : (tensor<3xf32>, tensor<3x1xi32>, tensor<3xf32>) -> tensor<3xf32>
  %one = lax.constant dense<1.0> : tensor<3xf32>
  %j = lax.constant dense<[[0], [1], [2]]> : tensor<3x1xi32>
  %a = lax.constant dense<[1.0, -0.0, 5.0]> : tensor<3xf32>
  %v = lax.constant dense<[0x7FC00000, 0.0, 4.0]> : tensor<3xf32>
  %1 = lax.scatter max %a[%j], %v update_window_dims = [] inserted_window_dims = [0]
      scatter_dims_to_operand_dims = [0] mode = fill_or_drop
      : (tensor<3xf32>, tensor<3x1xi32>, tensor<3xf32>) -> tensor<3xf32>
  %r1 = lax.div %one, %1 : tensor<3xf32>
  %b = lax.constant dense<[1.0, 0.0, 5.0]> : tensor<3xf32>
  %w = lax.constant dense<[0x7FC00000, -0.0, 4.0]> : tensor<3xf32>
  %2 = lax.scatter min %b[%j], %w update_window_dims = [] inserted_window_dims = [0]
      scatter_dims_to_operand_dims = [0] mode = fill_or_drop
      : (tensor<3xf32>, tensor<3x1xi32>, tensor<3xf32>) -> tensor<3xf32>
  %r2 = lax.div %one, %2 : tensor<3xf32>
  return %0, %r1, %r2 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

// Integers, compared exactly with the expected values: i32 add wraps
// (2147483647 + 1), mul wraps (65536 * 65536 = 0); ui32 max and min compare
// unsigned (4294967295 is the largest); bool max is `or`, min is `and`.
// INTS: output 0: tensor<3xi1> {{.*}} values [1, 1, 1]
// INTS: output 1: tensor<2xi1> {{.*}} values [1, 1]
// INTS: output 2: tensor<2xi1> {{.*}} values [1, 1]
// INTS: output 3: {{.*}} values [1, 1]
// INTS: output 4: {{.*}} values [0, 0]
func.func @integers() -> (tensor<3xi1>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>) {
  %j3 = lax.constant dense<[[0], [1], [2]]> : tensor<3x1xi32>
  %j2 = lax.constant dense<[[0], [1]]> : tensor<2x1xi32>
  %x = lax.constant dense<[2147483647, 0, 65536]> : tensor<3xi32>
  %u = lax.constant dense<[1, -5, 0]> : tensor<3xi32>
  %0 = lax.scatter add %x[%j3], %u update_window_dims = [] inserted_window_dims = [0]
      scatter_dims_to_operand_dims = [0] mode = fill_or_drop
      : (tensor<3xi32>, tensor<3x1xi32>, tensor<3xi32>) -> tensor<3xi32>
  %m = lax.constant dense<[[2]]> : tensor<1x1xi32>
  %mu = lax.constant dense<[65536]> : tensor<1xi32>
  %mm = lax.scatter mul %0[%m], %mu update_window_dims = [] inserted_window_dims = [0]
      scatter_dims_to_operand_dims = [0] mode = fill_or_drop
      : (tensor<3xi32>, tensor<1x1xi32>, tensor<1xi32>) -> tensor<3xi32>
  %e0 = lax.constant dense<[-2147483648, -5, 0]> : tensor<3xi32>
  %c0 = lax.compare EQ, %mm, %e0 : tensor<3xi32>
  %y = lax.constant dense<[5, 7]> : tensor<2xui32>
  %v = lax.constant dense<[4294967295, 1]> : tensor<2xui32>
  %1 = lax.scatter max %y[%j2], %v update_window_dims = [] inserted_window_dims = [0]
      scatter_dims_to_operand_dims = [0] mode = fill_or_drop
      : (tensor<2xui32>, tensor<2x1xi32>, tensor<2xui32>) -> tensor<2xui32>
  %e1 = lax.constant dense<[4294967295, 7]> : tensor<2xui32>
  %c1 = lax.compare EQ, %1, %e1 : tensor<2xui32>
  %2 = lax.scatter min %y[%j2], %v update_window_dims = [] inserted_window_dims = [0]
      scatter_dims_to_operand_dims = [0] mode = fill_or_drop
      : (tensor<2xui32>, tensor<2x1xi32>, tensor<2xui32>) -> tensor<2xui32>
  %e2 = lax.constant dense<[5, 1]> : tensor<2xui32>
  %c2 = lax.compare EQ, %2, %e2 : tensor<2xui32>
  %p = lax.constant dense<[false, true]> : tensor<2xi1>
  %q = lax.constant dense<[true, false]> : tensor<2xi1>
  %3 = lax.scatter max %p[%j2], %q update_window_dims = [] inserted_window_dims = [0]
      scatter_dims_to_operand_dims = [0] mode = fill_or_drop
      : (tensor<2xi1>, tensor<2x1xi32>, tensor<2xi1>) -> tensor<2xi1>
  %4 = lax.scatter min %p[%j2], %q update_window_dims = [] inserted_window_dims = [0]
      scatter_dims_to_operand_dims = [0] mode = fill_or_drop
      : (tensor<2xi1>, tensor<2x1xi32>, tensor<2xi1>) -> tensor<2xi1>
  return %c0, %c1, %c2, %3, %4 : tensor<3xi1>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>
}

// vmap of x.at[i].add(u) (batching dimensions): row 0 gets 1 + 2 at column
// 0, row 1 gets 3 at column 2 and drops column 5.
// SHAPES: output 0: {{.*}} values [3, 0, 0, 0, 0, 3]
// x.at[1, 0].max(10) as JAX prints it: a rank-1 index vector, a scalar
// update.
// SHAPES: output 1: {{.*}} values [1, 2, 10, 4]
// Windows of rows (segment_sum): update rows 0 and 2 go to row 1, update
// row 1 to row 0.
// SHAPES: output 2: {{.*}} values [1, 1, 2, 2]
func.func @shapes() -> (tensor<2x3xi32>, tensor<2x2xf32>, tensor<2x2xf32>) {
  %x = lax.constant dense<0> : tensor<2x3xi32>
  %i = lax.constant dense<[[[0], [0]], [[2], [5]]]> : tensor<2x2x1xi32>
  %u = lax.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %0 = lax.scatter add %x[%i], %u update_window_dims = [] inserted_window_dims = [1]
      scatter_dims_to_operand_dims = [1] batching_dims = [0] x [0] mode = fill_or_drop
      : (tensor<2x3xi32>, tensor<2x2x1xi32>, tensor<2x2xi32>) -> tensor<2x3xi32>
  %y = lax.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %j = lax.constant dense<[1, 0]> : tensor<2xi32>
  %ten = lax.constant dense<10.0> : tensor<f32>
  %1 = lax.scatter max %y[%j], %ten update_window_dims = [] inserted_window_dims = [0, 1]
      scatter_dims_to_operand_dims = [0, 1] mode = fill_or_drop
      : (tensor<2x2xf32>, tensor<2xi32>, tensor<f32>) -> tensor<2x2xf32>
  %z = lax.constant dense<0.0> : tensor<2x2xf32>
  %k = lax.constant dense<[[1], [0], [1]]> : tensor<3x1xi32>
  %w = lax.constant dense<[[1.0, 1.0], [1.0, 1.0], [1.0, 1.0]]> : tensor<3x2xf32>
  %2 = lax.scatter add %z[%k], %w update_window_dims = [1] inserted_window_dims = [0]
      scatter_dims_to_operand_dims = [0] mode = fill_or_drop
      : (tensor<2x2xf32>, tensor<3x1xi32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  return %0, %1, %2 : tensor<2x3xi32>, tensor<2x2xf32>, tensor<2x2xf32>
}
