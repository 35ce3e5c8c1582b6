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
// TDMA: bufferization.to_tensor %[[OUT]] restrict :

// The same with 16 systems per iteration as vector lanes (TDMA's body is
// arithmetic over strided rows, so it takes half of `vector-bits`: 1024
// gives 16 f32 lanes; the CPU pipeline's 512 gives 8, see HALF below):
// 1000 = 62 * 16 + 8, so the last vector is masked (only the valid lanes'
// rows are copied). Each
// system is a row, so the step loops run in blocks of 16 steps: before a
// block the diagonals' 16x16 blocks are transposed into [step, lane] tiles
// on the stack, cp/dp stay in [100, lane] tiles between the sweeps, and the
// solution leaves through a block tile after each block: the step loops
// move whole vectors. The rows of the next iteration are prefetched a block
// at a time (read for the diagonals, write for the solution).
// RUN: kiln-opt --kiln-fold-scan-layout --canonicalize --kiln-scan-to-parallel-loops=vector-bits=1024 --canonicalize %examples/seeds/seed003_tdma.mlir | FileCheck %s --check-prefix=LANES
// LANES: %[[OUT:.*]] = memref.alloc() : memref<1000x100xf32>
// LANES: scf.parallel (%[[P:[^ )]+]]) = (%{{.*}}) to (%c1000) step (%c16) {
// LANES: %[[LEFT:.*]] = arith.subi %c1000, %[[P]]
// LANES: %[[VALID:.*]] = arith.minsi %[[LEFT]], %c16
// The iteration's tiles are views of one stack buffer, each at a multiple
// of a cache line, so the code addresses them all from one pointer.
// LANES: %[[ARENA:.*]] = memref.alloca() {alignment = 64 : i64} : memref<17920xi8>
// LANES: %[[CP:.*]] = memref.view %[[ARENA]][%c0][] : memref<17920xi8> to memref<100x16xf32>
// LANES: %[[DP:.*]] = memref.view %[[ARENA]][%c6400][] : memref<17920xi8> to memref<100x16xf32>
// LANES: %[[A:.*]] = memref.view %[[ARENA]][%c12800][] : memref<17920xi8> to memref<16x16xf32>
// LANES: %[[FULL:.*]] = arith.cmpi eq, %[[VALID]], %c16
// Six whole blocks of 16 steps, then steps 96..99.
// LANES: scf.for %[[BLK:[^ ]+]] = %c0 to %c6 step %c1 iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>)
// LANES: %[[START:.*]] = arith.muli %[[BLK]], %c16
// With all 16 lanes inside the batch, the block goes through registers: the
// transpose's last stage (whole half rows) is done by the loads, 32 half
// rows read and joined by 16 shuffles, then 3 * 16 shuffles, 16 tile rows
// written. The rows are read through a 16 x 16 view of the block, each at
// a constant offset from its start.
// LANES: scf.if %[[FULL]] {
// LANES: %[[BLOCK:.*]] = memref.subview %{{.*}}[%[[P]], %[[START]]] [16, 16] [1, 1] : memref<1000x100xf32> to memref<16x16xf32, strided<[100, 1], offset: ?>>
// LANES: %[[ROW0:.*]] = vector.load %[[BLOCK]][%c0, %c0] : memref<16x16xf32, strided<[100, 1], offset: ?>>, vector<8xf32>
// LANES: vector.load %[[BLOCK]][%c8, %c0] : memref<16x16xf32, strided<[100, 1], offset: ?>>, vector<8xf32>
// LANES-NEXT: vector.shuffle {{.*}} [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] : vector<8xf32>, vector<8xf32>
// LANES-COUNT-63: vector.shuffle
// LANES: vector.store %{{.*}}, %[[A]][%c0, %c0] : memref<16x16xf32>, vector<16xf32>
// LANES: } else {
// LANES: scf.for %[[L:[^ ]+]] = %c0 to %[[VALID]]
// LANES: %[[ROW:.*]] = arith.addi %[[P]], %[[L]]
// LANES: scf.for %[[S:[^ ]+]] = %c0 to %c16
// LANES: %[[STEP:.*]] = arith.addi %[[START]], %[[S]]
// LANES: %[[X:.*]] = tensor.extract %arg0[%[[ROW]], %[[STEP]]]
// LANES: memref.store %[[X]], %[[A]][%[[S]], %[[L]]] : memref<16x16xf32>
// LANES: memref.collapse_shape %{{.*}} {{\[}}[0, 1]] : memref<1000x100xf32> into memref<100000xf32>
// LANES: memref.prefetch %{{.*}}, read, locality<2>, data : memref<100000xf32>
// LANES: scf.for %[[I:[^ ]+]] = %c0 to %c16 step %c1 iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>)
// LANES: %[[GLOBAL:.*]] = arith.addi %[[START]], %[[I]]
// LANES: vector.load %[[A]][%[[I]], %c0]
// LANES: arith.divf %{{.*}} : vector<16xf32>
// LANES: vector.store %{{.*}}, %[[CP]][%[[GLOBAL]], %c0] : memref<100x16xf32>, vector<16xf32>
// LANES: scf.for %{{.*}} = %c0 to %c4 step %c1 iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>)
// The back substitution runs backwards: steps 99..96 first, then the
// blocks from the last; each ends with the solution's block written out.
// LANES: %[[SOL:.*]] = memref.view %[[ARENA]][%c16896][] : memref<17920xi8> to memref<16x16xf32>
// LANES: %[[FLAT:.*]] = memref.collapse_shape %[[OUT]]
// LANES: memref.prefetch %[[FLAT]]{{.*}}, write, locality<2>, data
// LANES: scf.for %[[J:[^ ]+]] = %c0 to %c4 step %c1 iter_args({{.*}}) -> (vector<16xf32>)
// LANES: arith.subi %c3, %[[J]]
// LANES: %[[R:.*]] = arith.subi %c99, %[[J]]
// LANES: vector.load %[[CP]][%[[R]], %c0]
// LANES: vector.store %{{.*}}, %[[SOL]]
// LANES: memref.store %{{.*}}, %[[OUT]]
// LANES: scf.for %[[BLK2:[^ ]+]] = %c0 to %c6 step %c1 iter_args({{.*}}) -> (vector<16xf32>)
// LANES: arith.subi %c5, %[[BLK2]]
// LANES: %[[OUTBLOCK:.*]] = memref.subview %[[OUT]][%[[P]], %{{.*}}] [16, 16] [1, 1]
// LANES: vector.load %[[SOL]][%c0, %c0] : memref<16x16xf32>, vector<16xf32>
// LANES-COUNT-48: vector.shuffle
// LANES: vector.extract_strided_slice {{.*}} {offsets = [0], sizes = [8], strides = [1]} : vector<16xf32> to vector<8xf32>
// LANES-NEXT: vector.store %{{.*}}, %[[OUTBLOCK]][%c0, %c0] : memref<16x16xf32, strided<[100, 1], offset: ?>>, vector<8xf32>
// LANES-NOT: vector.gather
// LANES-NOT: vector.scatter

// At 512 bits TDMA runs 8 f32 lanes (half: arithmetic over strided rows is
// bound by moving the rows), 8x8 blocks of 2 * 8 shuffles after 8 joining
// the half rows the loads read; a body with a
// transcendental keeps all 16 lanes (@strided_tanh below).
// RUN: kiln-opt --kiln-fold-scan-layout --canonicalize --kiln-scan-to-parallel-loops=vector-bits=512 --canonicalize %examples/seeds/seed003_tdma.mlir | FileCheck %s --check-prefix=HALF
// HALF: scf.parallel (%{{.*}}) = (%{{.*}}) to (%c1000) step (%c8) {
// HALF: memref.view %{{.*}} to memref<100x8xf32>
// HALF: memref.view %{{.*}} to memref<8x8xf32>
// HALF: scf.for %{{.*}} = %c0 to %c12 step %c1 iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>)
// HALF-COUNT-8: vector.shuffle {{.*}} : vector<4xf32>, vector<4xf32>
// HALF-COUNT-16: vector.shuffle {{.*}} : vector<8xf32>, vector<8xf32>
// HALF-NEXT: vector.store %{{.*}}[%c0, %c0] : memref<8x8xf32>, vector<8xf32>
// HALF: arith.divf %{{.*}} : vector<8xf32>

// With 512-bit registers (register-bits=512, the JIT's on an AVX-512 host)
// an 8 x 8 block of f32 goes through four registers of two rows each: row k
// joined with row k + 4 as they are read, two stages of four two-input
// shuffles, four stores of two tile rows. Checked by hand: the first stage
// pairs rows k and k + 1 by pairs of columns (%[[S0]] = row 0 [0, 1], row 1
// [0, 1], row 0 [4, 5], row 1 [4, 5], then rows 4 and 5 alike); the second
// gathers tile rows 0 and 1 (steps 0 and 1 of the eight systems: row r [0]
// for r = 0..7, then row r [1]) from %[[S0]] and %[[S2]] (rows 2, 3, 6, 7).
// RUN: kiln-opt --kiln-fold-scan-layout --canonicalize "--kiln-scan-to-parallel-loops=vector-bits=512 register-bits=512" --canonicalize %examples/seeds/seed003_tdma.mlir | FileCheck %s --check-prefix=PAIRED
// PAIRED: scf.parallel (%{{.*}}) = (%{{.*}}) to (%c1000) step (%c8) {
// PAIRED: %[[BLOCK:.*]] = memref.subview %{{.*}} [8, 8] [1, 1] : memref<1000x100xf32> to memref<8x8xf32, strided<[100, 1], offset: ?>>
// PAIRED-NEXT: %[[TILE:.*]] = memref.collapse_shape %{{.*}} {{\[}}[0, 1]] : memref<8x8xf32> into memref<64xf32>
// PAIRED-NEXT: %[[R0:.*]] = vector.load %[[BLOCK]][%c0, %c0] : {{.*}}, vector<8xf32>
// PAIRED-NEXT: %[[R4:.*]] = vector.load %[[BLOCK]][%c4, %c0] : {{.*}}, vector<8xf32>
// PAIRED-NEXT: %[[P0:.*]] = vector.shuffle %[[R0]], %[[R4]] [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] : vector<8xf32>, vector<8xf32>
// PAIRED-NEXT: %[[R1:.*]] = vector.load %[[BLOCK]][%c1, %c0]
// PAIRED-NEXT: %[[R5:.*]] = vector.load %[[BLOCK]][%c5, %c0]
// PAIRED-NEXT: %[[P1:.*]] = vector.shuffle %[[R1]], %[[R5]] [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
// PAIRED-COUNT-2: vector.shuffle {{.*}} : vector<8xf32>, vector<8xf32>
// PAIRED-NEXT: %[[S0:.*]] = vector.shuffle %[[P0]], %[[P1]] [0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29] : vector<16xf32>, vector<16xf32>
// PAIRED-NEXT: vector.shuffle %[[P0]], %[[P1]] [2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27, 14, 15, 30, 31]
// PAIRED-NEXT: %[[S2:.*]] = vector.shuffle
// PAIRED-NEXT: vector.shuffle
// PAIRED-NEXT: %[[T01:.*]] = vector.shuffle %[[S0]], %[[S2]] [0, 2, 16, 18, 8, 10, 24, 26, 1, 3, 17, 19, 9, 11, 25, 27] : vector<16xf32>, vector<16xf32>
// PAIRED-COUNT-3: vector.shuffle {{.*}} : vector<16xf32>, vector<16xf32>
// PAIRED-NEXT: vector.store %[[T01]], %[[TILE]][%c0] : memref<64xf32>, vector<16xf32>
// PAIRED-NEXT: vector.store %{{.*}}, %[[TILE]][%c16] : memref<64xf32>, vector<16xf32>
// PAIRED-NEXT: vector.store %{{.*}}, %[[TILE]][%c32] : memref<64xf32>, vector<16xf32>
// PAIRED-NEXT: vector.store %{{.*}}, %[[TILE]][%c48] : memref<64xf32>, vector<16xf32>
// The way out (the solution's block) runs the stages backwards from four
// tile loads and stores each register's two rows.
// PAIRED: arith.divf %{{.*}} : vector<8xf32>
// PAIRED: %[[OUTBLOCK:.*]] = memref.subview %{{.*}} [8, 8] [1, 1] : memref<1000x100xf32> to memref<8x8xf32, strided<[100, 1], offset: ?>>
// PAIRED-NEXT: %[[SOL:.*]] = memref.collapse_shape %{{.*}} {{\[}}[0, 1]] : memref<8x8xf32> into memref<64xf32>
// PAIRED-COUNT-4: vector.load %[[SOL]][%{{.*}}] : memref<64xf32>, vector<16xf32>
// PAIRED-COUNT-8: vector.shuffle {{.*}} : vector<16xf32>, vector<16xf32>
// PAIRED-NEXT: %[[ROW0:.*]] = vector.extract_strided_slice {{.*}} {offsets = [0], sizes = [8], strides = [1]} : vector<16xf32> to vector<8xf32>
// PAIRED-NEXT: vector.store %[[ROW0]], %[[OUTBLOCK]][%c0, %c0]
// PAIRED-NEXT: %[[ROW4:.*]] = vector.extract_strided_slice {{.*}} {offsets = [8], sizes = [8], strides = [1]} : vector<16xf32> to vector<8xf32>
// PAIRED-NEXT: vector.store %[[ROW4]], %[[OUTBLOCK]][%c4, %c0]

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
// F64-LABEL: func.func @not_elementwise

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

// -----

// A body with a transcendental is bound by computing it, not by moving its
// strided rows: it keeps all of `vector-bits` (16 f32 lanes at 512).
// RUN: kiln-opt --kiln-scan-to-parallel-loops=vector-bits=512 --canonicalize -split-input-file %s | FileCheck %s --check-prefix=TANH
// CHECK-LABEL: func.func @strided_tanh
// TANH-LABEL: func.func @strided_tanh
// TANH: scf.parallel (%{{.*}}) = (%{{.*}}) to (%c32) step (%c16) {
// TANH: memref.view %{{.*}} to memref<16x16xf32>
// TANH: math.tanh %{{.*}} : vector<16xf32>
func.func @strided_tanh(%c0: tensor<32xf32>, %xs: tensor<32x20xf32>) -> tensor<32xf32> {
  %c = lax.scan length = 20 carry(%c0) xs(%xs) {xs_axes = array<i64: 1>}
      : (tensor<32xf32>, tensor<32x20xf32>) -> tensor<32xf32> {
  ^bb0(%p: tensor<32xf32>, %x: tensor<32xf32>):
    %s = lax.add %p, %x : tensor<32xf32>
    %t = lax.tanh %s : tensor<32xf32>
    lax.yield %t : tensor<32xf32>
  }
  return %c : tensor<32xf32>
}

// -----

// Lane groups: each iteration runs `lane-groups` groups of lanes side by
// side, each step once per group, op by op across the groups (independent
// dependence chains). Group 1 starts 16 elements after p; 40 is not a
// multiple of 32, so every group's lanes are counted (group 1's may be none
// in the last iteration: clamped at 0) and masked.
// RUN: kiln-opt --kiln-scan-to-parallel-loops="vector-bits=512 lane-groups=2" --canonicalize -split-input-file %s | FileCheck %s --check-prefix=GROUPS
// GROUPS-LABEL: func.func @two_groups
// GROUPS: scf.parallel (%[[P:[^ )]+]]) = (%{{.*}}) to (%c40) step (%c32) {
// GROUPS: %[[VALID0:.*]] = arith.minsi %{{.*}}, %c16
// GROUPS: %[[MASK0:.*]] = vector.create_mask %[[VALID0]] : vector<16xi1>
// GROUPS: %[[P1:.*]] = arith.addi %[[P]], %c16
// GROUPS: %[[LEFT1:.*]] = arith.minsi %{{.*}}, %c16
// GROUPS: %[[VALID1:.*]] = arith.maxsi %[[LEFT1]], %c0
// GROUPS: %[[MASK1:.*]] = vector.create_mask %[[VALID1]] : vector<16xi1>
// GROUPS: scf.for %{{.*}} iter_args(%[[H0:.*]] = %{{.*}}, %[[H1:.*]] = %{{.*}}) -> (vector<16xf32>, vector<16xf32>)
// GROUPS: %[[X0:.*]] = vector.maskedload %{{.*}}[%{{.*}}, %[[P]]], %[[MASK0]]
// GROUPS: %[[X1:.*]] = vector.maskedload %{{.*}}[%{{.*}}, %[[P1]]], %[[MASK1]]
// GROUPS: %[[S0:.*]] = arith.addf %[[H0]], %[[X0]] : vector<16xf32>
// GROUPS-NEXT: %[[S1:.*]] = arith.addf %[[H1]], %[[X1]] : vector<16xf32>
// GROUPS-NEXT: %[[T0:.*]] = math.tanh %[[S0]] : vector<16xf32>
// GROUPS-NEXT: %[[T1:.*]] = math.tanh %[[S1]] : vector<16xf32>
// GROUPS: scf.yield %[[T0]], %[[T1]]
// GROUPS: vector.maskedstore %{{.*}}[%[[P]]], %[[MASK0]]
// GROUPS: vector.maskedstore %{{.*}}[%[[P1]]], %[[MASK1]]
func.func @two_groups(%c0: tensor<40xf32>, %xs: tensor<20x40xf32>) -> tensor<40xf32> {
  %c = lax.scan length = 20 carry(%c0) xs(%xs)
      : (tensor<40xf32>, tensor<20x40xf32>) -> tensor<40xf32> {
  ^bb0(%p: tensor<40xf32>, %x: tensor<40xf32>):
    %s = lax.add %p, %x : tensor<40xf32>
    %t = lax.tanh %s : tensor<40xf32>
    lax.yield %t : tensor<40xf32>
  }
  return %c : tensor<40xf32>
}

// -----

// By default a scan whose lanes are contiguous in memory runs 16 groups,
// fewer when the batch would leave under 64 iterations: 4096 / (16 * 4) =
// 64. Strided arithmetic (TDMA, HALF above) runs 1.
// RUN: kiln-opt --kiln-scan-to-parallel-loops=vector-bits=512 --canonicalize -split-input-file %s | FileCheck %s --check-prefix=AUTO
// AUTO-LABEL: func.func @sixteen_groups
// AUTO: scf.parallel (%[[P:[^ )]+]]) = (%{{.*}}) to (%c16384) step (%c256) {
// AUTO: arith.addi %[[P]], %c240
// AUTO-LABEL: func.func @four_groups
// AUTO: scf.parallel (%{{.*}}) = (%{{.*}}) to (%c4096) step (%c64) {
// AUTO: scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// AUTO-LABEL: func.func @two_groups_small_batch
// AUTO: scf.parallel (%{{.*}}) = (%{{.*}}) to (%c2048) step (%c32) {
func.func @sixteen_groups(%c0: tensor<16384xf32>, %xs: tensor<20x16384xf32>) -> tensor<16384xf32> {
  %c = lax.scan length = 20 carry(%c0) xs(%xs)
      : (tensor<16384xf32>, tensor<20x16384xf32>) -> tensor<16384xf32> {
  ^bb0(%p: tensor<16384xf32>, %x: tensor<16384xf32>):
    %s = lax.mul %p, %x : tensor<16384xf32>
    lax.yield %s : tensor<16384xf32>
  }
  return %c : tensor<16384xf32>
}
func.func @four_groups(%c0: tensor<4096xf32>, %xs: tensor<20x4096xf32>) -> tensor<4096xf32> {
  %c = lax.scan length = 20 carry(%c0) xs(%xs)
      : (tensor<4096xf32>, tensor<20x4096xf32>) -> tensor<4096xf32> {
  ^bb0(%p: tensor<4096xf32>, %x: tensor<4096xf32>):
    %s = lax.mul %p, %x : tensor<4096xf32>
    lax.yield %s : tensor<4096xf32>
  }
  return %c : tensor<4096xf32>
}
func.func @two_groups_small_batch(%c0: tensor<2048xf32>, %xs: tensor<20x2048xf32>) -> tensor<2048xf32> {
  %c = lax.scan length = 20 carry(%c0) xs(%xs)
      : (tensor<2048xf32>, tensor<20x2048xf32>) -> tensor<2048xf32> {
  ^bb0(%p: tensor<2048xf32>, %x: tensor<2048xf32>):
    %s = lax.mul %p, %x : tensor<2048xf32>
    lax.yield %s : tensor<2048xf32>
  }
  return %c : tensor<2048xf32>
}

// -----

// A fused producer/consumer keeps the producer's ys in stack tiles of the
// iteration, [length, lanes] per group. Here one group's tile would take
// 9000 * 16 * 4 bytes, past the 256 KiB budget (a long scan overflowed the
// thread's stack): the two scans are not fused, the ys go through memory.
// RUN: kiln-opt --kiln-scan-to-parallel-loops=vector-bits=512 --canonicalize -split-input-file %s | FileCheck %s --check-prefix=LONG
// LONG-LABEL: func.func @long_pair
// (The batch is one vector, so each scan's parallel loop folds away.)
// LONG: %[[YS:.*]] = memref.alloc() : memref<9000x16xf32>
// LONG-NOT: memref.alloca
// LONG: vector.store %{{.*}}, %[[YS]]
// LONG-NOT: memref.alloca
// LONG: vector.load %[[YS]]
func.func @long_pair(%c0: tensor<16xf32>, %xs: tensor<9000x16xf32>) -> tensor<16xf32> {
  %c, %ys = lax.scan length = 9000 carry(%c0) xs(%xs)
      : (tensor<16xf32>, tensor<9000x16xf32>) -> (tensor<16xf32>, tensor<9000x16xf32>) {
  ^bb0(%p: tensor<16xf32>, %x: tensor<16xf32>):
    %s = lax.mul %p, %x : tensor<16xf32>
    lax.yield %s, %s : tensor<16xf32>, tensor<16xf32>
  }
  %d = lax.scan length = 9000 carry(%c0) xs(%ys) {reverse = true}
      : (tensor<16xf32>, tensor<9000x16xf32>) -> tensor<16xf32> {
  ^bb0(%p: tensor<16xf32>, %y: tensor<16xf32>):
    %s = lax.add %p, %y : tensor<16xf32>
    lax.yield %s : tensor<16xf32>
  }
  return %d : tensor<16xf32>
}
