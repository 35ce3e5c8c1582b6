// kiln-one-parallel-dimension: the first dimension with more than one
// iteration stays parallel (joined by the next ones, never the last, while
// it has fewer than 64 iterations), the others become loops inside it in
// order; small loops become loops only; the batch-parallel scans' loops are
// left.
// RUN: kiln-opt --kiln-one-parallel-dimension -split-input-file %s | FileCheck %s

// CHECK-LABEL: func.func @big
// CHECK: scf.parallel (%[[I:.*]]) = (%c0) to (%c64) step (%c1) {
// CHECK-NEXT: scf.for %[[J:.*]] = %c0 to %c8 step %c1 {
// CHECK-NEXT: scf.for %[[K:.*]] = %c0 to %c4096 step %c1 {
// CHECK-NEXT: memref.store %{{.*}}, %{{.*}}[%[[I]], %[[J]], %[[K]]]
func.func @big(%m: memref<64x8x4096xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %c4096 = arith.constant 4096 : index
  scf.parallel (%i, %j, %k) = (%c0, %c0, %c0) to (%c64, %c8, %c4096) step (%c1, %c1, %c1) {
    memref.store %v, %m[%i, %j, %k] : memref<64x8x4096xf32>
    scf.reduce
  }
  return
}

// -----

// A leading unit dimension is not the parallel one.
// CHECK-LABEL: func.func @unit_first
// CHECK: scf.parallel (%[[J:.*]]) = (%c0) to (%c512) step (%c1) {
// CHECK-NEXT: scf.for %[[I:.*]] = %c0 to %c1 step %c1 {
// CHECK-NEXT: scf.for %[[K:.*]] = %c0 to %c512 step %c1 {
// CHECK-NEXT: memref.store %{{.*}}, %{{.*}}[%[[I]], %[[J]], %[[K]]]
func.func @unit_first(%m: memref<1x512x512xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c512 = arith.constant 512 : index
  scf.parallel (%i, %j, %k) = (%c0, %c0, %c0) to (%c1, %c512, %c512) step (%c1, %c1, %c1) {
    memref.store %v, %m[%i, %j, %k] : memref<1x512x512xf32>
    scf.reduce
  }
  return
}

// -----

// 3 rows are too few to share among the cores evenly: rows and columns run
// as one parallel dimension of 3 * 40 iterations (row = i / 40, column =
// i mod 40, steps and lower bounds applied); the last dimension stays the
// innermost loop.
// CHECK-LABEL: func.func @joined
// CHECK: %[[C120:.*]] = arith.constant 120 : index
// CHECK: scf.parallel (%[[I:.*]]) = (%{{.*}}) to (%[[C120]]) step (%{{.*}}) {
// CHECK-NEXT: %[[C40:.*]] = arith.constant 40 : index
// CHECK-NEXT: %[[COLUMN:.*]] = arith.remui %[[I]], %[[C40]]
// CHECK-NEXT: %[[ROW:.*]] = arith.divui %[[I]], %[[C40]]
// CHECK-NEXT: %[[CS:.*]] = arith.muli %[[COLUMN]], %c2
// CHECK-NEXT: %[[J:.*]] = arith.addi %c0, %[[CS]]
// CHECK-NEXT: %[[RS:.*]] = arith.muli %[[ROW]], %c1
// CHECK-NEXT: %[[R:.*]] = arith.addi %c1, %[[RS]]
// CHECK-NEXT: scf.for %[[K:.*]] = %c0 to %c4096 step %c1 {
// CHECK-NEXT: memref.store %{{.*}}, %{{.*}}[%[[R]], %[[J]], %[[K]]]
func.func @joined(%m: memref<4x80x4096xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c80 = arith.constant 80 : index
  %c4096 = arith.constant 4096 : index
  scf.parallel (%i, %j, %k) = (%c1, %c0, %c0) to (%c4, %c80, %c4096) step (%c1, %c2, %c1) {
    memref.store %v, %m[%i, %j, %k] : memref<4x80x4096xf32>
    scf.reduce
  }
  return
}

// -----

// The work of a body is its nested loops' trips multiplied down the nest
// (a reduction over the last two axes of [64, 256, 512]: 8M iterations,
// not 64 * 512): it stays parallel.
// CHECK-LABEL: func.func @nested_reduction
// CHECK: scf.parallel (%{{.*}}) = (%c0) to (%c64) step (%c1) {
// CHECK-NEXT: scf.for
// CHECK-NEXT: scf.for
func.func @nested_reduction(%m: memref<64x256x512xf32>, %out: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %c512 = arith.constant 512 : index
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    scf.for %j = %c0 to %c256 step %c1 {
      scf.for %k = %c0 to %c512 step %c1 {
        %v = memref.load %m[%i, %j, %k] : memref<64x256x512xf32>
        %s = memref.load %out[%i] : memref<64xf32>
        %t = arith.addf %s, %v : f32
        memref.store %t, %out[%i] : memref<64xf32>
      }
    }
    scf.reduce
  }
  return
}

// -----

// Too little work for a dispatch: loops only.
// CHECK-LABEL: func.func @small
// CHECK-NOT: scf.parallel
// CHECK: scf.for
// CHECK: scf.for
func.func @small(%m: memref<64x64xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c64) step (%c1, %c1) {
    memref.store %v, %m[%i, %j] : memref<64x64xf32>
    scf.reduce
  }
  return
}

// -----

// A batch-parallel scan's loop says its work (elements times steps): enough
// for a dispatch, it stays parallel; too little, it becomes loops, its
// per-iteration stack tiles in an alloca_scope.
// CHECK-LABEL: func.func @scan
// CHECK: scf.parallel (%{{.*}}) = (%c0) to (%c64) step (%c1) {
// CHECK: memref.alloca() : memref<100x16xf32>
// CHECK: } {kiln.parallel_scan = 102400 : i64}
func.func @scan(%m: memref<64xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %tile = memref.alloca() : memref<100x16xf32>
    memref.store %v, %m[%i] : memref<64xf32>
    scf.reduce
  } {kiln.parallel_scan = 102400 : i64}
  return
}

// -----

// CHECK-LABEL: func.func @small_scan
// CHECK-NOT: scf.parallel
// CHECK: scf.for %[[I:.*]] = %c0 to %c4 step %c1 {
// CHECK-NEXT: scf.for %[[J:.*]] = %c0 to %c8 step %c1 {
// CHECK-NEXT: memref.alloca_scope {
// CHECK-NEXT: memref.alloca() : memref<30x16xf32>
// CHECK-NEXT: memref.store %{{.*}}, %{{.*}}[%[[I]], %[[J]]]
func.func @small_scan(%m: memref<4x8xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) {
    %tile = memref.alloca() : memref<30x16xf32>
    memref.store %v, %m[%i, %j] : memref<4x8xf32>
    scf.reduce
  } {kiln.parallel_scan = 960 : i64}
  return
}

// -----

// A small matmul whose loop order puts a parallel dimension inside the
// reduction: once the outer loop is sequential, the inner parallel loop is
// small on its own and becomes a loop too (dispatching each of its 16
// iterations, 256 times, cost 15000x the work).
// CHECK-LABEL: func.func @nested_small
// CHECK-NOT: scf.parallel
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for
// CHECK-NOT: scf.parallel
func.func @nested_small(%a: memref<32x8xf32>, %b: memref<8x16xf32>, %c: memref<32x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  scf.parallel (%i) = (%c0) to (%c32) step (%c1) {
    scf.for %k = %c0 to %c8 step %c1 {
      scf.parallel (%j) = (%c0) to (%c16) step (%c1) {
        %x = memref.load %a[%i, %k] : memref<32x8xf32>
        %y = memref.load %b[%k, %j] : memref<8x16xf32>
        %z = memref.load %c[%i, %j] : memref<32x16xf32>
        %p = arith.mulf %x, %y : f32
        %s = arith.addf %z, %p : f32
        memref.store %s, %c[%i, %j] : memref<32x16xf32>
        scf.reduce
      }
    }
    scf.reduce
  }
  return
}

// -----

// The same nest with work for the cores: the outer loop stays parallel and
// the one nested in it runs in sequence. Dispatching both hung the JIT
// (each worker blocked awaiting its inner loop's tasks, with no worker left
// to run them: nested-parallel-loops.mlir).
// CHECK-LABEL: func.func @nested_big
// CHECK: scf.parallel (%{{.*}}) = (%c0) to (%c2048) step (%c1) {
// CHECK-NEXT: scf.for %{{.*}} = %c0 to %c64 step %c1 {
// CHECK-NEXT: scf.for %{{.*}} = %c0 to %c16 step %c1 {
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @nested_big(%a: memref<2048x64xf32>, %b: memref<64x16xf32>, %c: memref<20464x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c16 = arith.constant 16 : index
  %c2048 = arith.constant 2048 : index
  scf.parallel (%i) = (%c0) to (%c2048) step (%c1) {
    scf.for %k = %c0 to %c64 step %c1 {
      scf.parallel (%j) = (%c0) to (%c16) step (%c1) {
        %x = memref.load %a[%i, %k] : memref<2048x64xf32>
        %y = memref.load %b[%k, %j] : memref<64x16xf32>
        %z = memref.load %c[%i, %j] : memref<20464x16xf32>
        %p = arith.mulf %x, %y : f32
        %s = arith.addf %z, %p : f32
        memref.store %s, %c[%i, %j] : memref<20464x16xf32>
        scf.reduce
      }
    }
    scf.reduce
  }
  return
}
