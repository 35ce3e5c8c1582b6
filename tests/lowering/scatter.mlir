// lax.scatter -> a sequential scf.for nest over the scatter indices carrying
// the result; per index the window start is computed once, the window is
// skipped with scf.if unless it fits (clip clamps instead), and an inner nest
// combines each update with tensor.extract / tensor.insert.
// RUN: kiln-opt --kiln-lax-to-linalg %s | FileCheck %s
// The JIT against the interpreter on random inputs: indices in [-3, 3]
// (ui32: [0, 6]) into dimensions of 3 to 5 give duplicates, dropped and
// clamped windows. kiln-run compiles every public function of a file, so
// each runs alone (a public scatter function that is not the entry would
// return its argument's buffer, which the pipeline does not lower).
// RUN: kiln-opt %s --symbol-privatize=exclude=add --symbol-dce -o %t.add.mlir
// RUN: kiln-run %t.add.mlir --random-inputs --check | FileCheck %s --check-prefix=MATCH
// RUN: kiln-opt %s --symbol-privatize=exclude=kinds --symbol-dce -o %t.kinds.mlir
// RUN: kiln-run %t.kinds.mlir --random-inputs --check | FileCheck %s --check-prefix=MATCH
// RUN: kiln-opt %s --symbol-privatize=exclude=windows --symbol-dce -o %t.windows.mlir
// RUN: kiln-run %t.windows.mlir --random-inputs --check | FileCheck %s --check-prefix=MATCH
// RUN: kiln-opt %s --symbol-privatize=exclude=batched --symbol-dce -o %t.batched.mlir
// RUN: kiln-run %t.batched.mlir --random-inputs --check | FileCheck %s --check-prefix=MATCH
// RUN: kiln-opt %s --symbol-privatize=exclude=unsigned --symbol-dce -o %t.unsigned.mlir
// RUN: kiln-run %t.unsigned.mlir --random-inputs --check | FileCheck %s --check-prefix=MATCH
// RUN: kiln-opt %s --symbol-privatize=exclude=gathered --symbol-dce -o %t.gathered.mlir
// RUN: kiln-run %t.gathered.mlir --random-inputs --check | FileCheck %s --check-prefix=MATCH
// RUN: kiln-opt %t.gathered.mlir --kiln-lax-to-linalg --canonicalize | FileCheck %s --check-prefix=DEAD
// MATCH: check against the reference interpreter
// MATCH-NOT: DIFFERS
// MATCH: worst error

// CHECK-LABEL: func.func @add
// CHECK: %[[R:.*]] = scf.for %[[S:[a-z0-9]+]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:[a-z0-9]+]] = %arg0) -> (tensor<5xf32>)
// CHECK: %[[V:.*]] = tensor.extract %arg1[%[[S]], %{{.*}}] : tensor<6x1xi32>
// CHECK: %[[I:.*]] = arith.index_cast %[[V]] : i32 to index
// CHECK: %[[GE:.*]] = arith.cmpi sge, %[[I]]
// CHECK: %[[LE:.*]] = arith.cmpi sle, %[[I]]
// CHECK: %[[OK:.*]] = arith.andi %[[GE]], %[[LE]]
// CHECK: scf.if %[[OK]] -> (tensor<5xf32>)
// CHECK: %[[U:.*]] = tensor.extract %arg2[%[[S]]] : tensor<6xf32>
// CHECK: %[[OLD:.*]] = tensor.extract %[[ACC]][%[[I]]]
// CHECK: %[[NEW:.*]] = arith.addf %[[OLD]], %[[U]] : f32
// CHECK: tensor.insert %[[NEW]] into %[[ACC]][%[[I]]]
// CHECK: } else {
// CHECK: scf.yield %[[ACC]]
// clip: the start is clamped, every window is applied.
// CHECK: %[[C:.*]] = scf.for
// CHECK: arith.minsi
// CHECK: arith.maxsi
// CHECK-NOT: scf.if
// CHECK: arith.addf
// CHECK: return %[[R]], %[[C]]
func.func @add(%x: tensor<5xf32>, %i: tensor<6x1xi32>, %u: tensor<6xf32>) -> (tensor<5xf32>, tensor<5xf32>) {
  %r = lax.scatter add %x[%i], %u update_window_dims = [] inserted_window_dims = [0]
      scatter_dims_to_operand_dims = [0] mode = fill_or_drop
      : (tensor<5xf32>, tensor<6x1xi32>, tensor<6xf32>) -> tensor<5xf32>
  %c = lax.scatter add %x[%i], %u update_window_dims = [] inserted_window_dims = [0]
      scatter_dims_to_operand_dims = [0] mode = clip
      : (tensor<5xf32>, tensor<6x1xi32>, tensor<6xf32>) -> tensor<5xf32>
  return %r, %c : tensor<5xf32>, tensor<5xf32>
}

// set writes the update without reading; mul, min, max combine like
// lax.mul, lax.min, lax.max (minimumf/maximumf: NaN-propagating).
// CHECK-LABEL: func.func @kinds
// CHECK-NOT: tensor.extract %{{.*}} : tensor<4xf32>
// CHECK: tensor.insert
// CHECK: arith.mulf
// CHECK: arith.minimumf
// CHECK: arith.maximumf
// CHECK: arith.maxsi %{{.*}}, %{{.*}} : i32
// CHECK: arith.addi %{{.*}}, %{{.*}} : i32
func.func @kinds(%x: tensor<4xf32>, %i: tensor<7x1xi64>, %u: tensor<7xf32>, %y: tensor<4xi32>,
                 %v: tensor<7xi32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xi32>) {
  %0 = lax.scatter set %x[%i], %u update_window_dims = [] inserted_window_dims = [0]
      scatter_dims_to_operand_dims = [0] mode = fill_or_drop
      : (tensor<4xf32>, tensor<7x1xi64>, tensor<7xf32>) -> tensor<4xf32>
  %1 = lax.scatter mul %x[%i], %u update_window_dims = [] inserted_window_dims = [0]
      scatter_dims_to_operand_dims = [0] mode = clip
      : (tensor<4xf32>, tensor<7x1xi64>, tensor<7xf32>) -> tensor<4xf32>
  %2 = lax.scatter min %x[%i], %u update_window_dims = [] inserted_window_dims = [0]
      scatter_dims_to_operand_dims = [0] mode = promise_in_bounds
      : (tensor<4xf32>, tensor<7x1xi64>, tensor<7xf32>) -> tensor<4xf32>
  %3 = lax.scatter max %x[%i], %u update_window_dims = [] inserted_window_dims = [0]
      scatter_dims_to_operand_dims = [0] mode = clip
      : (tensor<4xf32>, tensor<7x1xi64>, tensor<7xf32>) -> tensor<4xf32>
  %4 = lax.scatter max %y[%i], %v update_window_dims = [] inserted_window_dims = [0]
      scatter_dims_to_operand_dims = [0] mode = clip
      : (tensor<4xi32>, tensor<7x1xi64>, tensor<7xi32>) -> tensor<4xi32>
  %5 = lax.scatter add %y[%i], %v update_window_dims = [] inserted_window_dims = [0]
      scatter_dims_to_operand_dims = [0] mode = fill_or_drop
      : (tensor<4xi32>, tensor<7x1xi64>, tensor<7xi32>) -> tensor<4xi32>
  return %0, %1, %2, %3, %4, %5
      : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xi32>
}

// Windows of rows (segment_sum), windows along the first dimension with the
// scatter dimension last (order matters for set), a two-entry index vector
// with a scalar-per-index update.
// CHECK-LABEL: func.func @windows
// CHECK: scf.for %[[S:[a-z0-9]+]] = {{.*}} -> (tensor<3x4xf32>)
// CHECK: scf.if
// CHECK: scf.for %[[W:[a-z0-9]+]] = {{.*}} -> (tensor<3x4xf32>)
// CHECK: tensor.extract %arg2[%[[S]], %[[W]]] : tensor<6x4xf32>
func.func @windows(%x: tensor<3x4xf32>, %i: tensor<6x1xi32>, %u: tensor<6x4xf32>,
                   %j: tensor<3x2xi32>, %w: tensor<2x3xf32>, %k: tensor<5x2xi32>, %v: tensor<5xf32>)
    -> (tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>) {
  %0 = lax.scatter add %x[%i], %u update_window_dims = [1] inserted_window_dims = [0]
      scatter_dims_to_operand_dims = [0] mode = fill_or_drop
      : (tensor<3x4xf32>, tensor<6x1xi32>, tensor<6x4xf32>) -> tensor<3x4xf32>
  %1 = lax.scatter set %x[%j], %w update_window_dims = [0] inserted_window_dims = [1]
      scatter_dims_to_operand_dims = [0, 1] mode = clip
      : (tensor<3x4xf32>, tensor<3x2xi32>, tensor<2x3xf32>) -> tensor<3x4xf32>
  %2 = lax.scatter set %x[%k], %v update_window_dims = [] inserted_window_dims = [0, 1]
      scatter_dims_to_operand_dims = [1, 0] mode = fill_or_drop
      : (tensor<3x4xf32>, tensor<5x2xi32>, tensor<5xf32>) -> tensor<3x4xf32>
  return %0, %1, %2 : tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>
}

// Batching dimensions (vmap of x.at[i].add(u)): the batch position is the
// loop's own index.
// CHECK-LABEL: func.func @batched
// CHECK: scf.for %[[B:[a-z0-9]+]] =
// CHECK: scf.for %[[J:[a-z0-9]+]] =
// CHECK: tensor.extract %arg1[%[[B]], %[[J]], %{{.*}}] : tensor<3x4x1xi32>
// CHECK: tensor.extract %{{.*}}[%[[B]], %{{.*}}] : tensor<3x5xf32>
func.func @batched(%x: tensor<3x5xf32>, %i: tensor<3x4x1xi32>, %u: tensor<3x4xf32>) -> tensor<3x5xf32> {
  %r = lax.scatter add %x[%i], %u update_window_dims = [] inserted_window_dims = [1]
      scatter_dims_to_operand_dims = [1] batching_dims = [0] x [0] mode = fill_or_drop
      : (tensor<3x5xf32>, tensor<3x4x1xi32>, tensor<3x4xf32>) -> tensor<3x5xf32>
  return %r : tensor<3x5xf32>
}

// ui32 elements and indices: the pass makes them signless; indices are
// zero-extended, max and min compare unsigned.
// CHECK-LABEL: func.func @unsigned
// CHECK-SAME: (%arg0: tensor<5xi32>, %arg1: tensor<6x1xi32>, %arg2: tensor<6xi32>)
// CHECK: arith.index_castui
// CHECK: arith.maxui
// CHECK: arith.index_castui
// CHECK: arith.minui
func.func @unsigned(%x: tensor<5xui32>, %i: tensor<6x1xui32>, %u: tensor<6xui32>)
    -> (tensor<5xui32>, tensor<5xui32>) {
  %0 = lax.scatter max %x[%i], %u update_window_dims = [] inserted_window_dims = [0]
      scatter_dims_to_operand_dims = [0] mode = fill_or_drop
      : (tensor<5xui32>, tensor<6x1xui32>, tensor<6xui32>) -> tensor<5xui32>
  %1 = lax.scatter min %x[%i], %u update_window_dims = [] inserted_window_dims = [0]
      scatter_dims_to_operand_dims = [0] mode = clip
      : (tensor<5xui32>, tensor<6x1xui32>, tensor<6xui32>) -> tensor<5xui32>
  return %0, %1 : tensor<5xui32>, tensor<5xui32>
}

// Updates gathered for the scatter alone (a GNN's segment_sum of
// h[senders]): no gathered tensor; per scatter index the gather's index is
// read, clamped and checked once (fill_or_drop), and the window loop reads
// h where the scatter reads the update. A gather with another user stays
// (after canonicalization the unused gather's linalg.generic is gone, the
// other one stays).
// DEAD-COUNT-1: linalg.generic
// DEAD-NOT: linalg.generic
// CHECK-LABEL: func.func @gathered
// CHECK: scf.for %[[S:[a-z0-9]+]] =
// CHECK: tensor.extract %arg2[%[[S]], %{{.*}}] : tensor<6x1xi32>
// CHECK: scf.if
// CHECK: tensor.extract %arg1[%[[S]], %{{.*}}] : tensor<6x1xi32>
// CHECK: arith.minsi
// CHECK: scf.for %[[W:[a-z0-9]+]] =
// CHECK-NOT: tensor.extract %arg1
// CHECK: %[[G:.*]] = tensor.extract %arg0[%{{.*}}, %{{.*}}] : tensor<4x3xf32>
// CHECK: %[[GS:.*]] = arith.select %{{.*}}, %[[G]], %{{.*}} : f32
// CHECK: arith.addf %{{.*}}, %[[GS]] : f32
// CHECK: linalg.generic
// CHECK: return
func.func @gathered(%h: tensor<4x3xf32>, %send: tensor<6x1xi32>, %recv: tensor<6x1xi32>)
    -> (tensor<5x3xf32>, tensor<5x3xf32>, tensor<6x3xf32>) {
  %z = lax.constant dense<0.0> : tensor<5x3xf32>
  %g = lax.gather %h[%send] offset_dims = [1] collapsed_slice_dims = [0] start_index_map = [0]
      slice_sizes = [1, 3] mode = fill_or_drop : (tensor<4x3xf32>, tensor<6x1xi32>) -> tensor<6x3xf32>
  %r = lax.scatter add %z[%recv], %g update_window_dims = [1] inserted_window_dims = [0]
      scatter_dims_to_operand_dims = [0] mode = fill_or_drop
      : (tensor<5x3xf32>, tensor<6x1xi32>, tensor<6x3xf32>) -> tensor<5x3xf32>
  %g2 = lax.gather %h[%send] offset_dims = [1] collapsed_slice_dims = [0] start_index_map = [0]
      slice_sizes = [1, 3] mode = clip : (tensor<4x3xf32>, tensor<6x1xi32>) -> tensor<6x3xf32>
  %r2 = lax.scatter add %z[%recv], %g2 update_window_dims = [1] inserted_window_dims = [0]
      scatter_dims_to_operand_dims = [0] mode = fill_or_drop
      : (tensor<5x3xf32>, tensor<6x1xi32>, tensor<6x3xf32>) -> tensor<5x3xf32>
  return %r, %r2, %g2 : tensor<5x3xf32>, tensor<5x3xf32>, tensor<6x3xf32>
}
