// lax.gather -> a linalg.generic over the result that extracts the index
// vector, clamps it and extracts the operand element.
// RUN: kiln-opt --kiln-lax-to-linalg %s | FileCheck %s
// The JIT against the interpreter on random inputs: integer indices are
// drawn from [-3, 3] (ui32: [0, 6]), so the small operands below see
// in-bounds, clamped and filled slices (seed 3 draws ui32 starts 5 and 6,
// past the last window of @unsigned).
// RUN: kiln-run %s --entry rows --random-inputs --check | FileCheck %s --check-prefix=MATCH
// RUN: kiln-run %s --entry fill --random-inputs --check | FileCheck %s --check-prefix=MATCH
// RUN: kiln-run %s --entry unsigned --random-inputs --seed 3 --check | FileCheck %s --check-prefix=MATCH
// RUN: kiln-run %s --entry batched --random-inputs --check | FileCheck %s --check-prefix=MATCH
// RUN: kiln-run %s --entry windows --random-inputs --check | FileCheck %s --check-prefix=MATCH
// MATCH: check against the reference interpreter
// MATCH-NOT: DIFFERS
// MATCH: worst error

// CHECK-LABEL: func.func @rows
// CHECK: %[[E:.*]] = tensor.empty() : tensor<5x3xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} outs(%[[E]] : tensor<5x3xf32>)
// CHECK: %[[B:.*]] = linalg.index 0
// CHECK: %[[O:.*]] = linalg.index 1
// CHECK: %[[V:.*]] = tensor.extract %arg1[%[[B]], %{{.*}}] : tensor<5x1xi32>
// CHECK: %[[I:.*]] = arith.index_cast %[[V]] : i32 to index
// CHECK: %[[LO:.*]] = arith.minsi %[[I]], %{{.*}}
// CHECK: %[[S:.*]] = arith.maxsi %[[LO]], %{{.*}}
// CHECK: %[[X:.*]] = tensor.extract %arg0[%[[S]], %[[O]]] : tensor<4x3xf32>
// CHECK: linalg.yield %[[X]]
func.func @rows(%x: tensor<4x3xf32>, %i: tensor<5x1xi32>) -> tensor<5x3xf32> {
  %r = lax.gather %x[%i] offset_dims = [1] collapsed_slice_dims = [0] start_index_map = [0]
      slice_sizes = [1, 3] mode = promise_in_bounds
      : (tensor<4x3xf32>, tensor<5x1xi32>) -> tensor<5x3xf32>
  return %r : tensor<5x3xf32>
}

// fill_or_drop selects the fill value where the start is out of range.
// CHECK-LABEL: func.func @fill
// CHECK: linalg.generic
// CHECK: arith.index_cast %{{.*}} : i64 to index
// CHECK: %[[GE:.*]] = arith.cmpi sge
// CHECK: %[[LE:.*]] = arith.cmpi sle
// CHECK: %[[OK:.*]] = arith.andi %[[GE]], %[[LE]] : i1
// CHECK: %[[X:.*]] = tensor.extract %arg0
// CHECK: %[[NAN:.*]] = arith.constant 0x7FC00000 : f32
// CHECK: arith.select %[[OK]], %[[X]], %[[NAN]] : f32
func.func @fill(%x: tensor<4x3xf32>, %i: tensor<2x2x1xi64>) -> (tensor<2x2x3xf32>, tensor<2x2x2xi32>) {
  %r = lax.gather %x[%i] offset_dims = [2] collapsed_slice_dims = [0] start_index_map = [0]
      slice_sizes = [1, 3] mode = fill_or_drop
      : (tensor<4x3xf32>, tensor<2x2x1xi64>) -> tensor<2x2x3xf32>
  %y = lax.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %j = lax.convert_element_type %i : tensor<2x2x1xi64> -> tensor<2x2x1xi32>
  // A window of 2 along the last dimension: starts beyond 1 are filled.
  %s = lax.gather %y[%j] offset_dims = [2] collapsed_slice_dims = [0] start_index_map = [1]
      slice_sizes = [1, 2] mode = fill_or_drop fill(-7 : i32)
      : (tensor<2x3xi32>, tensor<2x2x1xi32>) -> tensor<2x2x2xi32>
  return %r, %s : tensor<2x2x3xf32>, tensor<2x2x2xi32>
}

// A ui32 operand (made signless by the pass) gathered with ui32 indices,
// which are zero-extended (index_castui); the default fill is 0xFFFFFFFF.
// CHECK-LABEL: func.func @unsigned
// CHECK-SAME: (%arg0: tensor<6xi32>, %arg1: tensor<3x1xi32>) -> (tensor<3x2xi32>, tensor<3x2xi32>)
// CHECK: arith.index_castui %{{.*}} : i32 to index
// CHECK: arith.index_castui %{{.*}} : i32 to index
// CHECK: %[[FILL:.*]] = arith.constant -1 : i32
// CHECK: arith.select %{{.*}}, %{{.*}}, %[[FILL]] : i32
func.func @unsigned(%x: tensor<6xui32>, %i: tensor<3x1xui32>) -> (tensor<3x2xui32>, tensor<3x2xui32>) {
  %r = lax.gather %x[%i] offset_dims = [1] collapsed_slice_dims = [] start_index_map = [0]
      slice_sizes = [2] mode = clip : (tensor<6xui32>, tensor<3x1xui32>) -> tensor<3x2xui32>
  %s = lax.gather %x[%i] offset_dims = [1] collapsed_slice_dims = [] start_index_map = [0]
      slice_sizes = [2] mode = fill_or_drop : (tensor<6xui32>, tensor<3x1xui32>) -> tensor<3x2xui32>
  return %r, %s : tensor<3x2xui32>, tensor<3x2xui32>
}

// Batching dimensions (take_along_axis): the batch position is the result's
// own index, not an extracted one.
// CHECK-LABEL: func.func @batched
// CHECK: %[[B:.*]] = linalg.index 0
// CHECK: %[[J:.*]] = linalg.index 1
// CHECK: tensor.extract %arg1[%[[B]], %[[J]], %{{.*}}] : tensor<3x4x1xi32>
// CHECK: tensor.extract %arg0[%[[B]], %{{.*}}] : tensor<3x5xf32>
func.func @batched(%x: tensor<3x5xf32>, %i: tensor<3x4x1xi32>) -> (tensor<3x4xf32>, tensor<3x4xf32>) {
  %r = lax.gather %x[%i] offset_dims = [] collapsed_slice_dims = [1] start_index_map = [1]
      batching_dims = [0] x [0] slice_sizes = [1, 1] mode = promise_in_bounds
      : (tensor<3x5xf32>, tensor<3x4x1xi32>) -> tensor<3x4xf32>
  %s = lax.gather %x[%i] offset_dims = [] collapsed_slice_dims = [1] start_index_map = [1]
      batching_dims = [0] x [0] slice_sizes = [1, 1] mode = fill_or_drop
      : (tensor<3x5xf32>, tensor<3x4x1xi32>) -> tensor<3x4xf32>
  return %r, %s : tensor<3x4xf32>, tensor<3x4xf32>
}

// Two-entry index vectors, windows with offset dimensions in front, f16.
// CHECK-LABEL: func.func @windows
func.func @windows(%x: tensor<4x5xf16>, %i: tensor<3x2xi32>) -> (tensor<2x3x3xf16>, tensor<3xf16>) {
  %r = lax.gather %x[%i] offset_dims = [0, 2] collapsed_slice_dims = [] start_index_map = [1, 0]
      slice_sizes = [2, 3] mode = clip : (tensor<4x5xf16>, tensor<3x2xi32>) -> tensor<2x3x3xf16>
  %s = lax.gather %x[%i] offset_dims = [] collapsed_slice_dims = [0, 1] start_index_map = [0, 1]
      slice_sizes = [1, 1] mode = fill_or_drop fill(2.5 : f16)
      : (tensor<4x5xf16>, tensor<3x2xi32>) -> tensor<3xf16>
  return %r, %s : tensor<2x3x3xf16>, tensor<3xf16>
}
