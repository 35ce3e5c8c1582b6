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
// so the last vector is masked; cp/dp scratch holds [vector, step, lane] and
// is read back with plain vector loads; the strided diagonals are gathered
// and the solution scattered (lane stride 100, one system per row).
// RUN: kiln-opt --kiln-fold-scan-layout --canonicalize --kiln-scan-to-parallel-loops=vector-bits=512 --canonicalize %examples/seeds/seed003_tdma.mlir | FileCheck %s --check-prefix=LANES
// LANES-DAG: %[[STRIDE:.*]] = arith.constant dense<[0, 100, 200, {{.*}}, 1500]> : vector<16xi32>
// LANES-DAG: %[[CP:.*]] = memref.alloc() : memref<63x100x16xf32>
// LANES-DAG: %[[OUT:.*]] = memref.alloc() : memref<1000x100xf32>
// LANES-DAG: %[[FLATOUT:.*]] = memref.collapse_shape %[[OUT]] {{\[\[}}0, 1]]
// LANES: scf.parallel (%[[P:[^ )]+]]) = (%{{.*}}) to (%c1000) step (%c16) {
// LANES: %[[LEFT:.*]] = arith.subi %c1000, %[[P]]
// LANES: %[[MASK:.*]] = vector.create_mask %[[LEFT]] : vector<16xi1>
// LANES: scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>)
// LANES: vector.gather %{{.*}}[%{{.*}}] [%[[STRIDE]]], %[[MASK]]
// LANES: arith.divf %{{.*}} : vector<16xf32>
// LANES: vector.store %{{.*}}, %[[CP]][%{{.*}}, %{{.*}}, %c0] : memref<63x100x16xf32>, vector<16xf32>
// LANES: scf.for {{.*}} -> (vector<16xf32>)
// LANES: vector.load %[[CP]]
// LANES: vector.scatter %[[FLATOUT]][%{{.*}}] [%[[STRIDE]]], %[[MASK]]

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
