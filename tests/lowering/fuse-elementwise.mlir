// RUN: kiln-opt --kiln-fuse-elementwise -split-input-file %s | FileCheck %s

// An elementwise chain fuses into one generic, as upstream fuses it.
// CHECK-LABEL: func.func @chain
// CHECK: linalg.generic
// CHECK: math.exp
// CHECK: arith.addf
// CHECK-NOT: linalg.generic
#id = affine_map<(i) -> (i)>
func.func @chain(%a: tensor<64xf32>, %b: tensor<64xf32>) -> tensor<64xf32> {
  %e = tensor.empty() : tensor<64xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = math.exp %x : f32
    linalg.yield %y : f32
  } -> tensor<64xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%0, %b : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %1 : tensor<64xf32>
}

// -----

// relu(h + b) feeding a matvec stays its own loop: fused, it would be
// recomputed for each of the 64 rows (the vector's map leaves out i).
// CHECK-LABEL: func.func @layer
// CHECK: %[[ACT:.*]] = linalg.generic
// CHECK: arith.maximumf
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %[[ACT]] :
// CHECK-NOT: arith.maximumf
#id = affine_map<(i) -> (i)>
#w = affine_map<(i, k) -> (i, k)>
#x = affine_map<(i, k) -> (k)>
#y = affine_map<(i, k) -> (i)>
func.func @layer(%h: tensor<64xf32>, %b: tensor<64xf32>, %w: tensor<64x64xf32>,
                 %init: tensor<64xf32>) -> tensor<64xf32> {
  %e = tensor.empty() : tensor<64xf32>
  %zero = arith.constant 0.0 : f32
  %act = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%h, %b : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%x: f32, %c: f32, %o: f32):
    %s = arith.addf %x, %c : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %out = linalg.generic {indexing_maps = [#w, #x, #y], iterator_types = ["parallel", "reduction"]}
      ins(%w, %act : tensor<64x64xf32>, tensor<64xf32>) outs(%init : tensor<64xf32>) {
  ^bb0(%a: f32, %x: f32, %acc: f32):
    %p = arith.mulf %a, %x fastmath<reassoc,contract> : f32
    %s = arith.addf %acc, %p fastmath<reassoc,contract> : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %out : tensor<64xf32>
}

// -----

// A producer that only moves data (here a broadcast) still fuses: reading
// its input again costs what reading its result would.
// CHECK-LABEL: func.func @broadcast
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel"]
// CHECK-SAME: ins(%arg0, %arg1 : tensor<8xf32>, tensor<4x8xf32>)
// CHECK-NOT: linalg.generic
#row = affine_map<(i, j) -> (j)>
#id2 = affine_map<(i, j) -> (i, j)>
func.func @broadcast(%v: tensor<8xf32>, %m: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %bc = linalg.generic {indexing_maps = [#row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%v : tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<4x8xf32>
  %sum = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%bc, %m : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %sum : tensor<4x8xf32>
}
