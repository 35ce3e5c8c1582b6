// lax.gather on values whose results are derived by hand (XLA's semantics,
// JAX's defaults, checked against jax 0.10 where noted), in the interpreter
// and in the JIT.
// RUN: kiln-run %s --random-inputs --entry clamp --interpret | FileCheck %s --check-prefix=CLAMP
// RUN: kiln-run %s --random-inputs --entry clamp | FileCheck %s --check-prefix=CLAMP
// RUN: kiln-run %s --random-inputs --entry fill --interpret | FileCheck %s --check-prefix=FILL
// RUN: kiln-run %s --random-inputs --entry fill | FileCheck %s --check-prefix=FILL
// RUN: kiln-run %s --random-inputs --entry batching --interpret | FileCheck %s --check-prefix=BATCH
// RUN: kiln-run %s --random-inputs --entry batching | FileCheck %s --check-prefix=BATCH
// RUN: kiln-run %s --random-inputs --entry dims --interpret | FileCheck %s --check-prefix=DIMS
// RUN: kiln-run %s --random-inputs --entry dims | FileCheck %s --check-prefix=DIMS

// x = [[0, 1], [10, 11], [20, 21], [30, 31]]. Rows 2, 5, -1: start indices
// are clamped into [0, 4 - 1] by promise_in_bounds (XLA) and clip alike.
// CLAMP: output 0: {{.*}} values [20, 21, 30, 31, 0, 1]
// CLAMP: output 1: {{.*}} values [20, 21, 30, 31, 0, 1]
// A window of 2 out of [0, 1, 2, 3, 4] clamps its start into [0, 3]: starts
// 3, 4, -1 read [3, 4], [3, 4], [0, 1].
// CLAMP: output 2: {{.*}} values [3, 4, 3, 4, 0, 1]
// ui32 indices are unsigned: 4294967295 clamps to 3, not to 0.
// CLAMP: output 3: {{.*}} values [3, 4, 1, 2]
func.func @clamp() -> (tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>, tensor<2x2xf32>) {
  %x = lax.constant dense<[[0.0, 1.0], [10.0, 11.0], [20.0, 21.0], [30.0, 31.0]]> : tensor<4x2xf32>
  %i = lax.constant dense<[[2], [5], [-1]]> : tensor<3x1xi32>
  %0 = lax.gather %x[%i] offset_dims = [1] collapsed_slice_dims = [0] start_index_map = [0]
      slice_sizes = [1, 2] mode = promise_in_bounds
      : (tensor<4x2xf32>, tensor<3x1xi32>) -> tensor<3x2xf32>
  %1 = lax.gather %x[%i] offset_dims = [1] collapsed_slice_dims = [0] start_index_map = [0]
      slice_sizes = [1, 2] mode = clip
      : (tensor<4x2xf32>, tensor<3x1xi32>) -> tensor<3x2xf32>
  %v = lax.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0]> : tensor<5xf32>
  %j = lax.constant dense<[[3], [4], [-1]]> : tensor<3x1xi64>
  %2 = lax.gather %v[%j] offset_dims = [1] collapsed_slice_dims = [] start_index_map = [0]
      slice_sizes = [2] mode = clip
      : (tensor<5xf32>, tensor<3x1xi64>) -> tensor<3x2xf32>
  %k = lax.constant dense<[[4294967295], [1]]> : tensor<2x1xui32>
  %3 = lax.gather %v[%k] offset_dims = [1] collapsed_slice_dims = [] start_index_map = [0]
      slice_sizes = [2] mode = clip
      : (tensor<5xf32>, tensor<2x1xui32>) -> tensor<2x2xf32>
  return %0, %1, %2, %3 : tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>, tensor<2x2xf32>
}

// fill_or_drop: a slice with any start outside [0, dim - size] is all fill
// value. Rows 2, 4, -1 of x: NaN (JAX's default for floats) for the last two.
// FILL: output 0: {{.*}} values [20, 21, nan, nan, nan, nan]
// Windows of 2 at 3, 4, -1 with fill_value -1: only the first fits.
// FILL: output 1: {{.*}} values [3, 4, -1, -1, -1, -1]
// JAX's integer defaults (jnp: iinfo.min for signed, iinfo.max for
// unsigned, true for bool), compared exactly with the expected values.
// FILL: output 2: tensor<2xi1> {{.*}} values [1, 1]
// FILL: output 3: tensor<2xi1> {{.*}} values [1, 1]
// FILL: output 4: {{.*}} values [0, 1]
func.func @fill() -> (tensor<3x2xf32>, tensor<3x2xf32>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>) {
  %x = lax.constant dense<[[0.0, 1.0], [10.0, 11.0], [20.0, 21.0], [30.0, 31.0]]> : tensor<4x2xf32>
  %i = lax.constant dense<[[2], [4], [-1]]> : tensor<3x1xi32>
  %0 = lax.gather %x[%i] offset_dims = [1] collapsed_slice_dims = [0] start_index_map = [0]
      slice_sizes = [1, 2] mode = fill_or_drop
      : (tensor<4x2xf32>, tensor<3x1xi32>) -> tensor<3x2xf32>
  %v = lax.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0]> : tensor<5xf32>
  %j = lax.constant dense<[[3], [4], [-1]]> : tensor<3x1xi32>
  %1 = lax.gather %v[%j] offset_dims = [1] collapsed_slice_dims = [] start_index_map = [0]
      slice_sizes = [2] mode = fill_or_drop fill(-1.0 : f32)
      : (tensor<5xf32>, tensor<3x1xi32>) -> tensor<3x2xf32>
  %s = lax.constant dense<[5, 6, 7]> : tensor<3xi32>
  %k = lax.constant dense<[[-1], [2]]> : tensor<2x1xi64>
  %2 = lax.gather %s[%k] offset_dims = [] collapsed_slice_dims = [0] start_index_map = [0]
      slice_sizes = [1] mode = fill_or_drop : (tensor<3xi32>, tensor<2x1xi64>) -> tensor<2xi32>
  %e2 = lax.constant dense<[-2147483648, 7]> : tensor<2xi32>
  %c2 = lax.compare EQ, %2, %e2 : tensor<2xi32>
  %u = lax.constant dense<[5, 6, 7]> : tensor<3xui32>
  %l = lax.constant dense<[[1], [4294967295]]> : tensor<2x1xui32>
  %3 = lax.gather %u[%l] offset_dims = [] collapsed_slice_dims = [0] start_index_map = [0]
      slice_sizes = [1] mode = fill_or_drop : (tensor<3xui32>, tensor<2x1xui32>) -> tensor<2xui32>
  %e3 = lax.constant dense<[6, 4294967295]> : tensor<2xui32>
  %c3 = lax.compare EQ, %3, %e3 : tensor<2xui32>
  %p = lax.constant dense<[false, false]> : tensor<2xi1>
  %m = lax.constant dense<[[0], [2]]> : tensor<2x1xi32>
  %4 = lax.gather %p[%m] offset_dims = [] collapsed_slice_dims = [0] start_index_map = [0]
      slice_sizes = [1] mode = fill_or_drop : (tensor<2xi1>, tensor<2x1xi32>) -> tensor<2xi1>
  return %0, %1, %c2, %c3, %4 : tensor<3x2xf32>, tensor<3x2xf32>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>
}

// jnp.take_along_axis(x, idx, axis=1) as JAX prints it: operand and index
// batching dimension 0. x = [[0, 1, 2, 3], [10, 11, 12, 13]], idx =
// [[3, 0, 3], [1, 1, 9]]: 9 is filled (0.5), or clamped to 3.
// BATCH: output 0: {{.*}} values [3, 0, 3, 11, 11, 0.5]
// BATCH: output 1: {{.*}} values [3, 0, 3, 11, 11, 13]
// vmap of x[i] over a batch of matrices (100 b + 10 r + c): row 2 of batch
// 0, row 1 of batch 1; batching and offset dimensions together.
// BATCH: output 2: {{.*}} values [20, 21, 22, 110, 111, 112]
func.func @batching() -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %x = lax.constant dense<[[0.0, 1.0, 2.0, 3.0], [10.0, 11.0, 12.0, 13.0]]> : tensor<2x4xf32>
  %i = lax.constant dense<[[[3], [0], [3]], [[1], [1], [9]]]> : tensor<2x3x1xi32>
  %0 = lax.gather %x[%i] offset_dims = [] collapsed_slice_dims = [1] start_index_map = [1]
      batching_dims = [0] x [0] slice_sizes = [1, 1] mode = fill_or_drop fill(0.5 : f32)
      : (tensor<2x4xf32>, tensor<2x3x1xi32>) -> tensor<2x3xf32>
  %1 = lax.gather %x[%i] offset_dims = [] collapsed_slice_dims = [1] start_index_map = [1]
      batching_dims = [0] x [0] slice_sizes = [1, 1] mode = promise_in_bounds
      : (tensor<2x4xf32>, tensor<2x3x1xi32>) -> tensor<2x3xf32>
  %y = lax.constant dense<[[[0.0, 1.0, 2.0], [10.0, 11.0, 12.0], [20.0, 21.0, 22.0]],
                           [[100.0, 101.0, 102.0], [110.0, 111.0, 112.0], [120.0, 121.0, 122.0]]]>
      : tensor<2x3x3xf32>
  %j = lax.constant dense<[[2], [1]]> : tensor<2x1xi32>
  %2 = lax.gather %y[%j] offset_dims = [1] collapsed_slice_dims = [1] start_index_map = [1]
      batching_dims = [0] x [0] slice_sizes = [1, 1, 3] mode = promise_in_bounds
      : (tensor<2x3x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
  return %0, %1, %2 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// x = 10 r + c (3x4). Index vectors of two entries, (2, 3), (0, 1), (1, -5):
// start_index_map [0, 1] reads x[2, 3], x[0, 1], x[1, 0] (-5 clamped); [1, 0]
// swaps the roles: x[2 (3 clamped), 2], x[1, 0], x[0 (-5), 1].
// DIMS: output 0: {{.*}} values [23, 1, 10]
// DIMS: output 1: {{.*}} values [22, 10, 1]
// Columns 2 and 0 with the offset dimension first: result[r, b] = x[r, idx[b]].
// DIMS: output 2: {{.*}} values [2, 0, 12, 10, 22, 20]
func.func @dims() -> (tensor<3xf32>, tensor<3xf32>, tensor<3x2xf32>) {
  %x = lax.constant dense<[[0.0, 1.0, 2.0, 3.0], [10.0, 11.0, 12.0, 13.0], [20.0, 21.0, 22.0, 23.0]]>
      : tensor<3x4xf32>
  %i = lax.constant dense<[[2, 3], [0, 1], [1, -5]]> : tensor<3x2xi32>
  %0 = lax.gather %x[%i] offset_dims = [] collapsed_slice_dims = [0, 1] start_index_map = [0, 1]
      slice_sizes = [1, 1] mode = clip : (tensor<3x4xf32>, tensor<3x2xi32>) -> tensor<3xf32>
  %1 = lax.gather %x[%i] offset_dims = [] collapsed_slice_dims = [0, 1] start_index_map = [1, 0]
      slice_sizes = [1, 1] mode = clip : (tensor<3x4xf32>, tensor<3x2xi32>) -> tensor<3xf32>
  %j = lax.constant dense<[[2], [0]]> : tensor<2x1xi32>
  %2 = lax.gather %x[%j] offset_dims = [0] collapsed_slice_dims = [1] start_index_map = [1]
      slice_sizes = [3, 1] mode = promise_in_bounds
      : (tensor<3x4xf32>, tensor<2x1xi32>) -> tensor<3x2xf32>
  return %0, %1, %2 : tensor<3xf32>, tensor<3xf32>, tensor<3x2xf32>
}
