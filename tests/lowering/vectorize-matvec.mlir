// RUN: kiln-opt --kiln-vectorize-matvec=vector-bits=128 -split-input-file %s | FileCheck %s

// 6 rows of 4-lane vectors: one block of 4 rows whose accumulators one
// shuffle-and-add tree reduces together (2 stages, then the lanes put in
// row order), then rows 4 and 5 each summed on its own.
// CHECK-LABEL: func.func @matvec
// CHECK: scf.for %[[FIRST:.*]] = %c0 to %c4 step %c4 {
// CHECK:   %[[ACC:.*]]:4 = scf.for %[[K:.*]] = %c0 to %c8 step %c4 iter_args({{.*}}) -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>) {
// CHECK:     %[[X:.*]] = vector.load %arg1[%[[K]]] : memref<8xf32>, vector<4xf32>
// CHECK:     %[[W0:.*]] = vector.load %arg0[%[[FIRST]], %[[K]]]
// CHECK:     arith.mulf %[[W0]], %[[X]] fastmath<reassoc,contract> : vector<4xf32>
// CHECK-COUNT-3: vector.load %arg0
// CHECK:     scf.yield
// CHECK:   %[[L0:.*]] = vector.shuffle %[[ACC]]#0, %[[ACC]]#1 [0, 1, 4, 5]
// CHECK:   %[[H0:.*]] = vector.shuffle %[[ACC]]#0, %[[ACC]]#1 [2, 3, 6, 7]
// CHECK:   %[[S0:.*]] = arith.addf %[[L0]], %[[H0]] fastmath<reassoc,contract>
// CHECK:   %[[L1:.*]] = vector.shuffle %[[ACC]]#2, %[[ACC]]#3 [0, 1, 4, 5]
// CHECK:   %[[H1:.*]] = vector.shuffle %[[ACC]]#2, %[[ACC]]#3 [2, 3, 6, 7]
// CHECK:   %[[S1:.*]] = arith.addf %[[L1]], %[[H1]]
// CHECK:   %[[L2:.*]] = vector.shuffle %[[S0]], %[[S1]] [0, 4, 2, 6]
// CHECK:   %[[H2:.*]] = vector.shuffle %[[S0]], %[[S1]] [1, 5, 3, 7]
// CHECK:   %[[T:.*]] = arith.addf %[[L2]], %[[H2]]
// CHECK:   %[[ROWS:.*]] = vector.shuffle %[[T]], %[[T]] [0, 2, 1, 3]
// CHECK:   %[[Y:.*]] = vector.load %arg2[%[[FIRST]]] : memref<6xf32>, vector<4xf32>
// CHECK:   %[[NEW:.*]] = arith.addf %[[Y]], %[[ROWS]]
// CHECK:   vector.store %[[NEW]], %arg2[%[[FIRST]]]
// CHECK: %[[REST:.*]]:2 = scf.for
// CHECK: %[[Y4:.*]] = memref.load %arg2[%c4]
// CHECK: %[[R4:.*]] = vector.reduction <add>, %[[REST]]#0, %[[Y4]] fastmath<reassoc,contract> : vector<4xf32> into f32
// CHECK: memref.store %[[R4]], %arg2[%c4]
// CHECK: vector.reduction <add>, %[[REST]]#1
// CHECK-NOT: linalg.generic
#w = affine_map<(i, k) -> (i, k)>
#x = affine_map<(i, k) -> (k)>
#y = affine_map<(i, k) -> (i)>
func.func @matvec(%w: memref<6x8xf32>, %x: memref<8xf32>, %y: memref<6xf32>) {
  linalg.generic {indexing_maps = [#w, #x, #y], iterator_types = ["parallel", "reduction"]}
      ins(%w, %x : memref<6x8xf32>, memref<8xf32>) outs(%y : memref<6xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b fastmath<reassoc,contract> : f32
    %s = arith.addf %acc, %p fastmath<reassoc,contract> : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Left alone: without `reassoc` the sum must stay in order; K not a whole
// number of vectors; fewer rows than a vector. (W read column-major is the
// vector-matrix product below.)
// CHECK-LABEL: func.func @not_matvecs
// CHECK-COUNT-3: linalg.generic
// CHECK-NOT: vector.shuffle
#w = affine_map<(i, k) -> (i, k)>
#x = affine_map<(i, k) -> (k)>
#y = affine_map<(i, k) -> (i)>
func.func @not_matvecs(%w: memref<8x8xf32>, %v: memref<8x6xf32>, %u: memref<2x8xf32>,
                       %x: memref<8xf32>, %z: memref<6xf32>, %y: memref<8xf32>, %t: memref<2xf32>) {
  linalg.generic {indexing_maps = [#w, #x, #y], iterator_types = ["parallel", "reduction"]}
      ins(%w, %x : memref<8x8xf32>, memref<8xf32>) outs(%y : memref<8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#w, #x, #y], iterator_types = ["parallel", "reduction"]}
      ins(%v, %z : memref<8x6xf32>, memref<6xf32>) outs(%y : memref<8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b fastmath<reassoc> : f32
    %s = arith.addf %acc, %p fastmath<reassoc> : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#w, #x, #y], iterator_types = ["parallel", "reduction"]}
      ins(%u, %x : memref<2x8xf32>, memref<8xf32>) outs(%t : memref<2xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b fastmath<reassoc> : f32
    %s = arith.addf %acc, %p fastmath<reassoc> : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// x @ W with W row-major [K = 3, N = 8]: 4 outputs at a time, each vector
// accumulating x[k] * W[k, block] for k = 0, 1, 2 from y's value — the
// loop's own order, so no reassoc is needed (the add here has none).
// CHECK-LABEL: func.func @vecmat
// CHECK: scf.for %[[FIRST:.*]] = %c0 to %c8 step %c4 {
// CHECK:   %[[Y:.*]] = vector.load %arg2[%[[FIRST]]] : memref<8xf32>, vector<4xf32>
// CHECK:   %[[SUM:.*]] = scf.for %[[K:.*]] = %c0 to %c3 step %c1 iter_args(%[[ACC:.*]] = %[[Y]]) -> (vector<4xf32>) {
// CHECK:     %[[XK:.*]] = memref.load %arg1[%[[K]]] : memref<3xf32>
// CHECK:     %[[XS:.*]] = vector.broadcast %[[XK]] : f32 to vector<4xf32>
// CHECK:     %[[WS:.*]] = vector.load %arg0[%[[K]], %[[FIRST]]] : memref<3x8xf32>, vector<4xf32>
// CHECK:     %[[P:.*]] = arith.mulf %[[WS]], %[[XS]] : vector<4xf32>
// CHECK:     %[[N:.*]] = arith.addf %[[ACC]], %[[P]] : vector<4xf32>
// CHECK:     scf.yield %[[N]]
// CHECK:   vector.store %[[SUM]], %arg2[%[[FIRST]]]
// CHECK-NOT: linalg.generic
#wt = affine_map<(i, k) -> (k, i)>
#xk = affine_map<(i, k) -> (k)>
#yi = affine_map<(i, k) -> (i)>
func.func @vecmat(%w: memref<3x8xf32>, %x: memref<3xf32>, %y: memref<8xf32>) {
  linalg.generic {indexing_maps = [#wt, #xk, #yi], iterator_types = ["parallel", "reduction"]}
      ins(%w, %x : memref<3x8xf32>, memref<3xf32>) outs(%y : memref<8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// N = 6 is not a whole number of 4-lane vectors: left to the loop nest.
// CHECK-LABEL: func.func @vecmat_ragged
// CHECK: linalg.generic
#wt = affine_map<(i, k) -> (k, i)>
#xk = affine_map<(i, k) -> (k)>
#yi = affine_map<(i, k) -> (i)>
func.func @vecmat_ragged(%w: memref<3x6xf32>, %x: memref<3xf32>, %y: memref<6xf32>) {
  linalg.generic {indexing_maps = [#wt, #xk, #yi], iterator_types = ["parallel", "reduction"]}
      ins(%w, %x : memref<3x6xf32>, memref<3xf32>) outs(%y : memref<6xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}
