// RUN: kiln-opt --kiln-lax-to-linalg %s | FileCheck %s

// CHECK-DAG: #[[$BCAST:.*]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK-DAG: #[[$REV:.*]] = affine_map<(d0, d1) -> (-d0 + 2, d1)>

// CHECK-LABEL: func.func @broadcast
// CHECK: linalg.generic {indexing_maps = [#[[$BCAST]], {{.*}}], iterator_types = ["parallel", "parallel", "parallel"]}
func.func @broadcast(%a: tensor<3x1xf32>) -> tensor<2x3x4xf32> {
  %0 = lax.broadcast_in_dim %a shape = [2, 3, 4] dims = [1, 2] : tensor<3x1xf32> -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// CHECK-LABEL: func.func @reshapes
// CHECK: tensor.collapse_shape {{.*}} {{\[}}[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// CHECK: tensor.expand_shape {{.*}} into tensor<6x1x4xf32>
// 2x3x4 -> 4x6 shares no run boundary but the whole: through 24.
// CHECK: tensor.collapse_shape {{.*}} into tensor<24xf32>
// CHECK: tensor.expand_shape {{.*}} into tensor<4x6xf32>
func.func @reshapes(%a: tensor<2x3x4xf32>) -> (tensor<6x4xf32>, tensor<6x1x4xf32>, tensor<4x6xf32>) {
  %0 = lax.reshape %a : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %1 = lax.expand_dims %0 dims = [1] : tensor<6x4xf32> -> tensor<6x1x4xf32>
  %2 = lax.reshape %a : tensor<2x3x4xf32> -> tensor<4x6xf32>
  return %0, %1, %2 : tensor<6x4xf32>, tensor<6x1x4xf32>, tensor<4x6xf32>
}

// CHECK-LABEL: func.func @transpose_rev
// CHECK: linalg.transpose ins({{.*}} : tensor<2x3xf32>) outs({{.*}} : tensor<3x2xf32>) permutation = [1, 0]
// CHECK: linalg.generic {indexing_maps = [#[[$REV]],
func.func @transpose_rev(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = lax.transpose %a permutation = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  %1 = lax.rev %0 dims = [0] : tensor<3x2xf32>
  return %1 : tensor<3x2xf32>
}

// CHECK-LABEL: func.func @slices
// CHECK: tensor.extract_slice %{{.*}}[1, 0] [2, 2] [1, 2]
// JAX clamps dynamic offsets into [0, dim - size].
// CHECK: tensor.extract
// CHECK: arith.index_cast
// CHECK: arith.minsi
// CHECK: arith.maxsi
// CHECK: tensor.extract_slice %{{.*}}[%{{.*}}, %{{.*}}] [2, 2] [1, 1]
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[%{{.*}}, %{{.*}}] [2, 2] [1, 1]
func.func @slices(%a: tensor<4x4xf32>, %i: tensor<i32>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<4x4xf32>) {
  %0 = lax.slice %a start = [1, 0] limit = [3, 4] strides = [1, 2] : tensor<4x4xf32> -> tensor<2x2xf32>
  %1 = lax.dynamic_slice %a [%i, %i] sizes = [2, 2] : (tensor<4x4xf32>, tensor<i32>, tensor<i32>) -> tensor<2x2xf32>
  %2 = lax.dynamic_update_slice %a [%i, %i], %0 : (tensor<4x4xf32>, tensor<2x2xf32>, tensor<i32>, tensor<i32>) -> tensor<4x4xf32>
  return %0, %1, %2 : tensor<2x2xf32>, tensor<2x2xf32>, tensor<4x4xf32>
}

// CHECK-LABEL: func.func @concat_iota_const
// CHECK: arith.constant dense<{{.*}}> : tensor<2xf32>
// CHECK: linalg.index 0
// One tensor.concat, not insert_slices into one tensor.empty (whose alias
// set made the one-shot analysis superlinear).
// CHECK: tensor.concat dim(0) %{{.*}}, %{{.*}} : (tensor<3xf32>, tensor<2xf32>) -> tensor<5xf32>
func.func @concat_iota_const(%a: tensor<3xf32>) -> tensor<5xf32> {
  %c = lax.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %i = lax.iota dimension = 0 : tensor<2xf32>
  %s = lax.add %c, %i : tensor<2xf32>
  %r = lax.concatenate %a, %s dim = 0 : (tensor<3xf32>, tensor<2xf32>) -> tensor<5xf32>
  return %r : tensor<5xf32>
}
