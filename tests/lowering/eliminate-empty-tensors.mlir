// RUN: kiln-opt --kiln-eliminate-empty-tensors %s | FileCheck %s

// The tensor.empty in the scf.if's branch stays: the slice of the
// destination that would replace it reads the scf.if's own result, which is
// not in scope inside the scf.if (upstream's eliminate-empty-tensors
// replaced it there: tests/differential/regressions/cond-update-own-result.mlir).
// CHECK-LABEL: func.func @update_own_result
// CHECK: scf.if
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<3xi1>
// CHECK-NEXT: linalg.generic {{.*}} outs(%[[E]] : tensor<3xi1>)
func.func @update_own_result(%c: i1, %x: tensor<3xi64>, %y: tensor<3xi1>, %o: index) -> tensor<3xi1> {
  %z = arith.constant 0 : i64
  %r = scf.if %c -> (tensor<3xi1>) {
    %e = tensor.empty() : tensor<3xi1>
    %g = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<3xi64>) outs(%e : tensor<3xi1>) {
    ^bb0(%in: i64, %out: i1):
      %t = arith.cmpi ne, %in, %z : i64
      linalg.yield %t : i1
    } -> tensor<3xi1>
    scf.yield %g : tensor<3xi1>
  } else {
    scf.yield %y : tensor<3xi1>
  }
  %u = tensor.insert_slice %r into %r[%o] [3] [1] : tensor<3xi1> into tensor<3xi1>
  return %u : tensor<3xi1>
}

// Where the destination is in scope the empty tensor becomes its slice, as
// upstream's pass does.
// CHECK-LABEL: func.func @in_scope
// CHECK: %[[S:.*]] = tensor.extract_slice %arg1[%arg2] [3] [1]
// CHECK: linalg.generic {{.*}} outs(%[[S]] : tensor<3xi1>)
func.func @in_scope(%x: tensor<3xi64>, %d: tensor<8xi1>, %o: index) -> tensor<8xi1> {
  %z = arith.constant 0 : i64
  %e = tensor.empty() : tensor<3xi1>
  %g = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<3xi64>) outs(%e : tensor<3xi1>) {
  ^bb0(%in: i64, %out: i1):
    %t = arith.cmpi ne, %in, %z : i64
    linalg.yield %t : i1
  } -> tensor<3xi1>
  %u = tensor.insert_slice %g into %d[%o] [3] [1] : tensor<3xi1> into tensor<8xi1>
  return %u : tensor<8xi1>
}

// One tensor.empty that CSE shared between two ops becomes one per use
// (shared, every result aliased every other in the One-Shot analysis: cubic
// compile time on unrolled loops), and an unused one stays as it is.
// CHECK-LABEL: func.func @shared_empty
// CHECK-COUNT-2: tensor.empty() : tensor<4xf32>
// CHECK-NEXT: tensor.empty() : tensor<2xf32>
// CHECK: linalg.generic {{.*}} outs(%[[O1:[0-9a-z_]+]] : tensor<4xf32>)
// CHECK-NOT: outs(%[[O1]] :
// CHECK: return
func.func @shared_empty(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<4xf32>
  %unused = tensor.empty() : tensor<2xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = arith.negf %in : f32
    linalg.yield %t : f32
  } -> tensor<4xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = arith.addf %in, %in : f32
    linalg.yield %t : f32
  } -> tensor<4xf32>
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}
