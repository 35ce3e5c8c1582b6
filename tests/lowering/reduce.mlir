// RUN: kiln-opt --kiln-lax-to-linalg %s | FileCheck %s
// RUN: kiln-opt --kiln-lax-to-linalg %s | FileCheck %s --check-prefix=DECL
// RUN: kiln-opt --kiln-lax-to-linalg=use-runtime-gemm=false %s | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @reductions
// A float sum starts from -0.0, as the interpreter's (a sum of -0 terms is -0).
// CHECK: arith.constant -0.000000e+00 : f32
// CHECK: linalg.fill
// CHECK: linalg.reduce ins({{.*}} : tensor<2x3x4xf32>) outs({{.*}} : tensor<3xf32>) dimensions = [0, 2]
// CHECK: arith.addf
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: linalg.reduce
// CHECK: arith.maximumf
func.func @reductions(%a: tensor<2x3x4xf32>) -> (tensor<3xf32>, tensor<2x4xf32>) {
  %0 = lax.reduce_sum %a axes = [2, 0] : tensor<2x3x4xf32> -> tensor<3xf32>
  %1 = lax.reduce_max %a axes = [1] : tensor<2x3x4xf32> -> tensor<2x4xf32>
  return %0, %1 : tensor<3xf32>, tensor<2x4xf32>
}

// argmax: (value, index) pairs, a reduction over the axis; first index wins.
// CHECK-LABEL: func.func @argmax
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf uno
// CHECK: linalg.index 1
func.func @argmax(%a: tensor<3x4xf32>) -> tensor<3xi32> {
  %0 = lax.argmax %a axes = [1] : tensor<3x4xf32> -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

// Seed 000 f2: a GEMM [3200, 821] x [821, 600]^T through the runtime.
// CHECK-LABEL: func.func @seed000_f2
// CHECK: tensor.collapse_shape {{.*}} {{\[}}[0, 1], [2]] : tensor<32x100x821xf32> into tensor<3200x821xf32>
// CHECK: tensor.expand_shape {{.*}} {{\[}}[0, 1], [2]] output_shape [1, 3200, 821]
// CHECK: bufferization.to_buffer {{.*}} read_only
// CHECK: memref.alloc() : memref<1x3200x600xf32>
// CHECK: %[[T:.*]] = arith.constant 1 : i64
// CHECK: call @kiln_rt_sgemm({{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[T]])
// CHECK: bufferization.to_tensor {{.*}} restrict writable
// CHECK: tensor.collapse_shape {{.*}} into tensor<3200x600xf32>
// CHECK: tensor.expand_shape {{.*}} into tensor<32x100x600xf32>
// DECL: func.func private @kiln_rt_sgemm(memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, {{.*}}) attributes {llvm.emit_c_interface}
// GENERIC-LABEL: func.func @seed000_f2
// GENERIC: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// GENERIC: arith.mulf
// GENERIC: arith.addf
func.func @seed000_f2(%w: tensor<600x821xf32>, %a: tensor<32x100x821xf32>) -> tensor<32x100x600xf32> {
  %f = lax.dot_general %a, %w contracting = [2] x [1] batch = [] x []
      : (tensor<32x100x821xf32>, tensor<600x821xf32>) -> tensor<32x100x600xf32>
  return %f : tensor<32x100x600xf32>
}

// Integer contractions and tiny ones stay in linalg.
// CHECK-LABEL: func.func @int_dot
// CHECK: linalg.generic
// CHECK: arith.muli
// CHECK-NOT: call @
func.func @int_dot(%a: tensor<2x3x4xi32>, %b: tensor<2x4xi32>) -> tensor<2x3xi32> {
  %0 = lax.dot_general %a, %b contracting = [2] x [1] batch = [0] x [0]
      : (tensor<2x3x4xi32>, tensor<2x4xi32>) -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

// A large full reduction is split: per-row partial sums (a parallel
// dimension for the CPU's cores), then the sum of the partials.
// RUN: kiln-opt --kiln-lax-to-linalg -split-input-file %s | FileCheck %s --check-prefix=SPLIT
// SPLIT-LABEL: func.func @split_sum
// SPLIT: %[[PARTIAL:.*]] = linalg.reduce ins(%{{.*}} : tensor<512x256xf32>) outs(%{{.*}} : tensor<512xf32>) dimensions = [1]
// SPLIT: linalg.reduce ins(%[[PARTIAL]] : tensor<512xf32>) outs(%{{.*}} : tensor<f32>) dimensions = [0]
func.func @split_sum(%a: tensor<512x256xf32>) -> tensor<f32> {
  %s = lax.reduce_sum %a axes = [0, 1] : tensor<512x256xf32> -> tensor<f32>
  return %s : tensor<f32>
}
