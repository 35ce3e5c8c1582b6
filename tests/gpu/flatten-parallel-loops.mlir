// kiln-gpu-flatten-parallel-loops: a loop nest becomes one flat dimension
// whose index is split back row-major (the innermost index varies fastest,
// so neighbouring threads touch neighbouring elements).
// RUN: kiln-opt --kiln-gpu-flatten-parallel-loops %s | FileCheck %s

// CHECK-LABEL: func.func @fill
// CHECK: scf.parallel (%[[I:.*]]) = (%{{.*}}) to (%[[N:.*]]) step (%{{.*}}) {
// CHECK: %[[COL:.*]] = arith.remsi %[[I]], %{{.*}} : index
// CHECK: %[[ROW:.*]] = arith.divsi %[[I]], %{{.*}} : index
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[ROW]], %[[COL]]] : memref<3x40xf32>
// CHECK-NOT: scf.parallel
func.func @fill(%m: memref<3x40xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c40 = arith.constant 40 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c3, %c40) step (%c1, %c1) {
    memref.store %v, %m[%i, %j] : memref<3x40xf32>
    scf.reduce
  }
  return
}
