// Round trip of lax.gather and lax.scatter: parse, print, parse again, print
// identically (also through the generic form).
// RUN: kiln-opt %s | kiln-opt | FileCheck %s
// RUN: kiln-opt %s -mlir-print-op-generic | kiln-opt | FileCheck %s

// x[idx]: rows of a matrix.
// CHECK-LABEL: func.func @gather_rows
// CHECK: lax.gather %{{.*}}[%{{.*}}] offset_dims = [1] collapsed_slice_dims = [0] start_index_map = [0] slice_sizes = [1, 8] mode = promise_in_bounds : (tensor<10x8xf32>, tensor<5x1xi32>) -> tensor<5x8xf32>
func.func @gather_rows(%x: tensor<10x8xf32>, %i: tensor<5x1xi32>) -> tensor<5x8xf32> {
  %r = lax.gather %x[%i] offset_dims = [1] collapsed_slice_dims = [0]
      start_index_map = [0] slice_sizes = [1, 8] mode = promise_in_bounds
      : (tensor<10x8xf32>, tensor<5x1xi32>) -> tensor<5x8xf32>
  return %r : tensor<5x8xf32>
}

// take_along_axis: batching dimensions, a fill value; the defaults (no
// batching dimensions, no fill value) print nothing.
// CHECK-LABEL: func.func @gather_batched
// CHECK: lax.gather %{{.*}}[%{{.*}}] offset_dims = [] collapsed_slice_dims = [1] start_index_map = [1] batching_dims = [0] x [0] slice_sizes = [1, 1] mode = fill_or_drop fill(0x7FC00000 : f32) : (tensor<5x8xf32>, tensor<5x3x1xi64>) -> tensor<5x3xf32>
// CHECK: lax.gather %{{.*}}[%{{.*}}] offset_dims = [0] collapsed_slice_dims = [] start_index_map = [0] slice_sizes = [2] mode = clip : (tensor<6xui32>, tensor<1xui32>) -> tensor<2xui32>
// CHECK: lax.gather {{.*}} mode = fill_or_drop : (tensor<4xi1>, tensor<1xi32>) -> tensor<i1>
func.func @gather_batched(%x: tensor<5x8xf32>, %i: tensor<5x3x1xi64>, %u: tensor<6xui32>,
                          %j: tensor<1xui32>, %p: tensor<4xi1>, %k: tensor<1xi32>)
    -> (tensor<5x3xf32>, tensor<2xui32>, tensor<i1>) {
  %r = lax.gather %x[%i] offset_dims = [] collapsed_slice_dims = [1]
      start_index_map = [1] batching_dims = [0] x [0] slice_sizes = [1, 1]
      mode = fill_or_drop fill(0x7FC00000 : f32)
      : (tensor<5x8xf32>, tensor<5x3x1xi64>) -> tensor<5x3xf32>
  %s = lax.gather %u[%j] offset_dims = [0] collapsed_slice_dims = []
      start_index_map = [0] slice_sizes = [2] mode = clip
      : (tensor<6xui32>, tensor<1xui32>) -> tensor<2xui32>
  %t = lax.gather %p[%k] offset_dims = [] collapsed_slice_dims = [0]
      start_index_map = [0] slice_sizes = [1] mode = fill_or_drop
      : (tensor<4xi1>, tensor<1xi32>) -> tensor<i1>
  return %r, %s, %t : tensor<5x3xf32>, tensor<2xui32>, tensor<i1>
}

// The five update computations, a batched scatter, a scalar update.
// CHECK-LABEL: func.func @scatters
// CHECK: lax.scatter set %{{.*}}[%{{.*}}], %{{.*}} update_window_dims = [1] inserted_window_dims = [0] scatter_dims_to_operand_dims = [0] mode = fill_or_drop : (tensor<4x3xf32>, tensor<12x1xi32>, tensor<12x3xf32>) -> tensor<4x3xf32>
// CHECK: lax.scatter add {{.*}} mode = clip
// CHECK: lax.scatter mul {{.*}} mode = promise_in_bounds
// CHECK: lax.scatter min
// CHECK: lax.scatter max %{{.*}}[%{{.*}}], %{{.*}} update_window_dims = [] inserted_window_dims = [0, 1] scatter_dims_to_operand_dims = [0, 1] mode = fill_or_drop : (tensor<4x3xf32>, tensor<2xi32>, tensor<f32>) -> tensor<4x3xf32>
// CHECK: lax.scatter add %{{.*}}[%{{.*}}], %{{.*}} update_window_dims = [] inserted_window_dims = [1] scatter_dims_to_operand_dims = [1] batching_dims = [0] x [0] mode = fill_or_drop : (tensor<4x3xi32>, tensor<4x2x1xi64>, tensor<4x2xi32>) -> tensor<4x3xi32>
func.func @scatters(%x: tensor<4x3xf32>, %i: tensor<12x1xi32>, %u: tensor<12x3xf32>,
                    %p: tensor<2xi32>, %v: tensor<f32>, %y: tensor<4x3xi32>,
                    %j: tensor<4x2x1xi64>, %w: tensor<4x2xi32>) {
  %0 = lax.scatter set %x[%i], %u update_window_dims = [1] inserted_window_dims = [0]
      scatter_dims_to_operand_dims = [0] mode = fill_or_drop
      : (tensor<4x3xf32>, tensor<12x1xi32>, tensor<12x3xf32>) -> tensor<4x3xf32>
  %1 = lax.scatter add %x[%i], %u update_window_dims = [1] inserted_window_dims = [0]
      scatter_dims_to_operand_dims = [0] mode = clip
      : (tensor<4x3xf32>, tensor<12x1xi32>, tensor<12x3xf32>) -> tensor<4x3xf32>
  %2 = lax.scatter mul %x[%i], %u update_window_dims = [1] inserted_window_dims = [0]
      scatter_dims_to_operand_dims = [0] mode = promise_in_bounds
      : (tensor<4x3xf32>, tensor<12x1xi32>, tensor<12x3xf32>) -> tensor<4x3xf32>
  %3 = lax.scatter min %x[%i], %u update_window_dims = [1] inserted_window_dims = [0]
      scatter_dims_to_operand_dims = [0] mode = fill_or_drop
      : (tensor<4x3xf32>, tensor<12x1xi32>, tensor<12x3xf32>) -> tensor<4x3xf32>
  %4 = lax.scatter max %x[%p], %v update_window_dims = [] inserted_window_dims = [0, 1]
      scatter_dims_to_operand_dims = [0, 1] mode = fill_or_drop
      : (tensor<4x3xf32>, tensor<2xi32>, tensor<f32>) -> tensor<4x3xf32>
  %5 = lax.scatter add %y[%j], %w update_window_dims = [] inserted_window_dims = [1]
      scatter_dims_to_operand_dims = [1] batching_dims = [0] x [0] mode = fill_or_drop
      : (tensor<4x3xi32>, tensor<4x2x1xi64>, tensor<4x2xi32>) -> tensor<4x3xi32>
  return
}

// Fill values of integer element types.
// CHECK-LABEL: func.func @gather_fill_values
// CHECK: mode = fill_or_drop fill(true) : (tensor<4xi1>, tensor<1xi32>) -> tensor<i1>
// CHECK: mode = fill_or_drop fill(4294967295 : ui32) : (tensor<6xui32>, tensor<1xi32>) -> tensor<ui32>
// CHECK: mode = fill_or_drop fill(-7 : i64) : (tensor<6xi64>, tensor<1xi32>) -> tensor<i64>
func.func @gather_fill_values(%p: tensor<4xi1>, %u: tensor<6xui32>, %l: tensor<6xi64>,
                              %k: tensor<1xi32>) -> (tensor<i1>, tensor<ui32>, tensor<i64>) {
  %0 = lax.gather %p[%k] offset_dims = [] collapsed_slice_dims = [0]
      start_index_map = [0] slice_sizes = [1] mode = fill_or_drop fill(true)
      : (tensor<4xi1>, tensor<1xi32>) -> tensor<i1>
  %1 = lax.gather %u[%k] offset_dims = [] collapsed_slice_dims = [0]
      start_index_map = [0] slice_sizes = [1] mode = fill_or_drop fill(4294967295 : ui32)
      : (tensor<6xui32>, tensor<1xi32>) -> tensor<ui32>
  %2 = lax.gather %l[%k] offset_dims = [] collapsed_slice_dims = [0]
      start_index_map = [0] slice_sizes = [1] mode = fill_or_drop fill(-7 : i64)
      : (tensor<6xi64>, tensor<1xi32>) -> tensor<i64>
  return %0, %1, %2 : tensor<i1>, tensor<ui32>, tensor<i64>
}
