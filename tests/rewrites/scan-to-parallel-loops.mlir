// RUN: kiln-opt --kiln-scan-to-parallel-loops --canonicalize -split-input-file %s | FileCheck %s

// Seed 003's TDMA after layout folding: both sweeps run in ONE parallel loop
// over the 1000 systems; each system's cp/dp go to scratch contiguous per
// system and the solution is written in place; no lax op and no per-step
// tensor is left.
// RUN: kiln-opt --kiln-fold-scan-layout --canonicalize --kiln-scan-to-parallel-loops --canonicalize %examples/seeds/seed003_tdma.mlir | FileCheck %s --check-prefix=TDMA
// TDMA-DAG: %[[CP:.*]] = memref.alloc() : memref<1000x100xf32>
// TDMA-DAG: %[[DP:.*]] = memref.alloc() : memref<1000x100xf32>
// TDMA-DAG: %[[OUT:.*]] = memref.alloc() : memref<1000x100xf32>
// TDMA: scf.parallel (%[[P:[^ )]+]]) = (%{{.*}}) to (%c1000) step (%{{.*}}) {
// TDMA: scf.for %[[I:[^ ]+]] = {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (f32, f32)
// TDMA: tensor.extract %arg0[%[[P]], %[[I]]]
// TDMA: arith.divf
// TDMA: memref.store %{{.*}}, %[[CP]][%[[P]], %[[I]]]
// TDMA: scf.for %[[J:[^ ]+]] = {{.*}} -> (f32)
// TDMA: %[[R:.*]] = arith.subi %c99, %[[J]]
// TDMA: memref.load %[[CP]][%[[P]], %[[R]]]
// TDMA: memref.store %{{.*}}, %[[OUT]][%[[P]], %[[R]]]
// TDMA-NOT: scf.parallel
// TDMA-NOT: lax.
// TDMA: bufferization.to_tensor %[[OUT]] restrict writable

// The same with 16 systems per iteration as vector lanes: 1000 = 62 * 16 + 8,
// so the last vector is masked (only the valid lanes' rows are copied). Each
// system is a row, so the diagonals are copied row by row into [step, lane]
// tiles on the stack, cp/dp stay in such tiles between the sweeps, and the
// solution leaves through one: the step loops move whole vectors.
// RUN: kiln-opt --kiln-fold-scan-layout --canonicalize --kiln-scan-to-parallel-loops=vector-bits=512 --canonicalize %examples/seeds/seed003_tdma.mlir | FileCheck %s --check-prefix=LANES
// LANES: %[[OUT:.*]] = memref.alloc() : memref<1000x100xf32>
// LANES: scf.parallel (%[[P:[^ )]+]]) = (%{{.*}}) to (%c1000) step (%c16) {
// LANES: %[[LEFT:.*]] = arith.subi %c1000, %[[P]]
// LANES: %[[VALID:.*]] = arith.minsi %[[LEFT]], %c16
// LANES: memref.alloca() : memref<100x16xf32>
// With all 16 lanes inside the batch, whole 16x16 blocks of the rows go
// through registers (read lanes x steps, transpose, write steps x lanes);
// steps 96..99 and a partial last vector are copied one scalar at a time.
// LANES: %[[FULL:.*]] = arith.cmpi eq, %[[VALID]], %c16
// LANES: scf.if %[[FULL]] {
// LANES: scf.for %[[SB:[^ ]+]] = %c0 to %c96 step %c16 {
// LANES: %[[BLOCK:.*]] = vector.transfer_read %{{.*}}[%[[P]], %[[SB]]], %{{.*}} {in_bounds = [true, true]} : memref<1000x100xf32>, vector<16x16xf32>
// LANES: %[[T:.*]] = vector.transpose %[[BLOCK]], [1, 0]
// LANES: vector.transfer_write %[[T]], %{{.*}}[%[[SB]], %c0] {in_bounds = [true, true]} : vector<16x16xf32>, memref<100x16xf32>
// LANES: scf.for %{{.*}} = %c96 to %c100 step %c1
// LANES: } else {
// LANES: scf.for %[[L:[^ ]+]] = %c0 to %[[VALID]]
// LANES: %[[ROW:.*]] = arith.addi %[[P]], %[[L]]
// LANES: scf.for %[[S:[^ ]+]] =
// LANES: %[[X:.*]] = tensor.extract %arg0[%[[ROW]], %[[S]]]
// LANES: memref.store %[[X]], %[[A:alloca[_0-9]*]][%[[S]], %[[L]]] : memref<100x16xf32>
// LANES: scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>)
// LANES: vector.load %[[A]]
// LANES: arith.divf %{{.*}} : vector<16xf32>
// LANES: vector.store %{{.*}}, %[[CP:alloca[_0-9]*]][%{{.*}}, %c0] : memref<100x16xf32>, vector<16xf32>
// LANES: %[[SOL:.*]] = memref.alloca() : memref<100x16xf32>
// LANES: scf.for {{.*}} -> (vector<16xf32>)
// LANES: vector.load %[[CP]]
// LANES: vector.store %{{.*}}, %[[SOL]]
// LANES: scf.for %[[L2:[^ ]+]] = %c0 to %[[VALID]]
// LANES: memref.load %[[SOL]]
// LANES: memref.store %{{.*}}, %[[OUT]]
// LANES-NOT: vector.gather
// LANES-NOT: vector.scatter

// After the CPU pipeline's buffer passes, the iteration's tiles are freed at
// its end: the body is bracketed by a stack save/restore.
// RUN: kiln-opt --kiln-fold-scan-layout --canonicalize --kiln-scan-to-parallel-loops=vector-bits=512 --canonicalize %examples/seeds/seed003_tdma.mlir | kiln-opt --one-shot-bufferize --kiln-parallel-alloca-scopes | FileCheck %s --check-prefix=SCOPE
// SCOPE: scf.parallel
// SCOPE-NEXT: %[[SAVED:.*]] = llvm.intr.stacksave : !llvm.ptr
// SCOPE: memref.alloca()
// SCOPE: llvm.intr.stackrestore %[[SAVED]] : !llvm.ptr
// SCOPE-NEXT: scf.reduce

// f64 elements: 8 lanes at 512 bits; the batch (8) is contiguous in every
// buffer and is one whole vector, so loads and stores are plain vectors (and
// the one-iteration parallel loop folds away).
// RUN: kiln-opt --kiln-scan-to-parallel-loops=vector-bits=512 --canonicalize -split-input-file %s | FileCheck %s --check-prefix=F64
// F64-LABEL: func.func @single_f64
// F64: %[[K:.*]] = vector.load %{{.*}}[%c0] : memref<8xf64>, vector<8xf64>
// F64: scf.for {{.*}} -> (vector<8xf64>)
// F64: %[[STEP:.*]] = arith.subi %c4
// F64: vector.load %{{.*}}[%[[STEP]], %c0] : memref<5x8xf64>, vector<8xf64>
// F64: math.exp %{{.*}} : vector<8xf64>
// F64: arith.mulf %{{.*}}, %[[K]] : vector<8xf64>
// F64: vector.store %{{.*}}[%[[STEP]], %c0] : memref<5x8xf64>, vector<8xf64>
// F64: vector.store %{{.*}}[%c0] : memref<8xf64>, vector<8xf64>
// F64-NOT: vector.gather
// F64-NOT: vector.create_mask

// A single reversed scan with a const, a splat and a carry that is returned.
// CHECK-LABEL: func.func @single
// CHECK: %[[C:.*]] = memref.alloc() : memref<8xf32>
// CHECK: %[[YS:.*]] = memref.alloc() : memref<5x8xf32>
// CHECK: scf.parallel (%[[P:[^ )]+]]) =
// CHECK: %[[K:.*]] = tensor.extract %arg0[%[[P]]]
// CHECK: scf.for %[[I:[^ ]+]] = {{.*}} -> (f32)
// CHECK: %[[STEP:.*]] = arith.subi %c4, %[[I]]
// CHECK: tensor.extract %arg2[%[[STEP]], %[[P]]]
// CHECK: math.exp
// CHECK: memref.store %{{.*}}, %[[YS]][%[[STEP]], %[[P]]]
// CHECK: memref.store %{{.*}}, %[[C]][%[[P]]]
func.func @single(%k: tensor<8xf32>, %c0: tensor<8xf32>, %xs: tensor<5x8xf32>) -> (tensor<8xf32>, tensor<5x8xf32>) {
  %c:2 = lax.scan length = 5 consts(%k) carry(%c0) xs(%xs) {reverse = true}
      : (tensor<8xf32>, tensor<8xf32>, tensor<5x8xf32>) -> (tensor<8xf32>, tensor<5x8xf32>) {
  ^bb0(%kk: tensor<8xf32>, %a: tensor<8xf32>, %x: tensor<8xf32>):
    %two = lax.constant dense<2.0> : tensor<8xf32>
    %e = lax.exp %x : tensor<8xf32>
    %m = lax.mul %e, %two : tensor<8xf32>
    %s = lax.add %a, %m : tensor<8xf32>
    %t = lax.mul %s, %kk : tensor<8xf32>
    lax.yield %t, %s : tensor<8xf32>, tensor<8xf32>
  }
  return %c#0, %c#1 : tensor<8xf32>, tensor<5x8xf32>
}

// -----

func.func @single_f64(%k: tensor<8xf64>, %c0: tensor<8xf64>, %xs: tensor<5x8xf64>) -> (tensor<8xf64>, tensor<5x8xf64>) {
  %c:2 = lax.scan length = 5 consts(%k) carry(%c0) xs(%xs) {reverse = true}
      : (tensor<8xf64>, tensor<8xf64>, tensor<5x8xf64>) -> (tensor<8xf64>, tensor<5x8xf64>) {
  ^bb0(%kk: tensor<8xf64>, %a: tensor<8xf64>, %x: tensor<8xf64>):
    %two = lax.constant dense<2.0> : tensor<8xf64>
    %e = lax.exp %x : tensor<8xf64>
    %m = lax.mul %e, %two : tensor<8xf64>
    %s = lax.add %a, %m : tensor<8xf64>
    %t = lax.mul %s, %kk : tensor<8xf64>
    lax.yield %t, %s : tensor<8xf64>, tensor<8xf64>
  }
  return %c#0, %c#1 : tensor<8xf64>, tensor<5x8xf64>
}

// -----

// Not batch-parallel: a reduction in the body mixes batch elements.
// CHECK-LABEL: func.func @not_elementwise
// CHECK: lax.scan
// CHECK-NOT: scf.parallel
func.func @not_elementwise(%c0: tensor<f32>, %xs: tensor<5x8xf32>) -> tensor<f32> {
  %c = lax.scan length = 5 carry(%c0) xs(%xs) : (tensor<f32>, tensor<5x8xf32>) -> tensor<f32> {
  ^bb0(%a: tensor<f32>, %x: tensor<8xf32>):
    %r = lax.reduce_sum %x axes = [0] : tensor<8xf32> -> tensor<f32>
    %s = lax.add %a, %r : tensor<f32>
    lax.yield %s : tensor<f32>
  }
  return %c : tensor<f32>
}
