// Everything the host does in a GPU executable is launch, copy or call the
// runtime: buffers live in device memory (gpu.alloc), a full reduction runs
// as a one-thread kernel, a dynamic_slice index is copied to the host before
// it is read, a sequential scan's iterations queue on one stream (waited for
// once, after the loop), and the pipeline finishes with one gpu.binary.
// RUN: kiln-opt --kiln-lower-gpu=runtime-gemm-min-macs=1000 --mlir-disable-threading --mlir-print-ir-after=kiln-gpu-loop-streams %s 2>&1 >/dev/null | FileCheck %s
// RUN: kiln-opt --kiln-lower-gpu=runtime-gemm-min-macs=1000 %s | FileCheck %s --check-prefix=FINAL
// No event is synchronised or destroyed: every wait is on a stream.
// RUN: kiln-opt --kiln-lower-gpu=runtime-gemm-min-macs=1000 %s | FileCheck %s --check-prefix=NOEVENT
// NOEVENT-NOT: mgpuEvent

// CHECK-LABEL: func.func @mix
func.func @mix(%a: tensor<64x32xf32>, %w: tensor<32x16xf32>, %i: tensor<i32>)
    -> (tensor<64x16xf32>, tensor<f32>, tensor<4x32xf32>) {
  // CHECK: gpu.alloc async
  // CHECK: gpu.wait [%{{.*}}]
  // CHECK-NEXT: call @kiln_rt_sgemm(
  %d = lax.dot_general %a, %w contracting = [1] x [0] batch = [] x []
      : (tensor<64x32xf32>, tensor<32x16xf32>) -> tensor<64x16xf32>
  // The elementwise kernel runs over one flat dimension (the GEMM result is
  // [1, 64, 16]: tiling its unit leading dimension would leave threads idle).
  // CHECK: gpu.launch_func async {{.*}} blocks in (%{{.*}}, %c1{{.*}}, %c1{{.*}}) threads in (%{{.*}}, %c1{{.*}}, %c1{{.*}})
  %t = lax.tanh %d : tensor<64x16xf32>
  // The sum: per-row partial sums (a kernel over the rows), then the sum of
  // the partials (a one-thread kernel), each after its fill.
  // CHECK-COUNT-4: gpu.launch_func async
  %s = lax.reduce_sum %t axes = [0, 1] : tensor<64x16xf32> -> tensor<f32>
  // CHECK: %[[HOST:.*]] = memref.alloca() : memref<i32>
  // CHECK: gpu.memcpy async [%{{.*}}] %[[HOST]], %arg2
  // CHECK: gpu.wait
  // CHECK: memref.load %[[HOST]][]
  %z = lax.constant dense<0> : tensor<i32>
  %ds = lax.dynamic_slice %a[%i, %z] sizes = [4, 32]
      : (tensor<64x32xf32>, tensor<i32>, tensor<i32>) -> tensor<4x32xf32>
  // CHECK: gpu.launch_func async
  // CHECK: gpu.dealloc async
  // CHECK: return
  return %t, %s, %ds : tensor<64x16xf32>, tensor<f32>, tensor<4x32xf32>
}

// A scan that is not batch-parallel (a matrix-vector product mixes the
// carry) whose new carry is made while the old one is still read: the carry
// alternates between two device buffers, and every iteration queues on the
// stream of the token from before the loop (no wait inside the loop, one
// on that same token after it; a loop-carried token would be lowered as an
// event, FINAL-NOT below).
// CHECK-LABEL: func.func @carry
// CHECK: %[[STREAM:.*]] = gpu.launch_func async
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (memref<4xf32>, memref<4xf32>) {
// CHECK-NOT: gpu.wait
// CHECK: gpu.launch_func async [%[[STREAM]]]
// CHECK-NOT: gpu.wait
// CHECK: scf.yield %{{.*}}, %{{.*}} : memref<4xf32>, memref<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: gpu.wait [%[[STREAM]]]
func.func @carry(%c0: tensor<4xf32>, %w: tensor<4x4xf32>, %xs: tensor<8x4xf32>)
    -> (tensor<4xf32>, tensor<8xf32>) {
  %c, %ys = lax.scan length = 8 consts(%w) carry(%c0) xs(%xs)
      : (tensor<4x4xf32>, tensor<4xf32>, tensor<8x4xf32>) -> (tensor<4xf32>, tensor<8xf32>) {
  ^bb0(%ww: tensor<4x4xf32>, %cc: tensor<4xf32>, %x: tensor<4xf32>):
    %m = lax.dot_general %ww, %cc contracting = [1] x [0] batch = [] x []
        : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %c2 = lax.add %m, %x : tensor<4xf32>
    %y = lax.reduce_sum %cc axes = [0] : tensor<4xf32> -> tensor<f32>
    lax.yield %c2, %y : tensor<4xf32>, tensor<f32>
  }
  return %c, %ys : tensor<4xf32>, tensor<8xf32>
}

// Each kernel is a gpu.binary beside the host function that launches it.
// FINAL: llvm.func @mix(
// FINAL: llvm.call @kiln_rt_sgemm(
// FINAL: gpu.binary @mix_kernel
// FINAL: llvm.func @carry(
// FINAL: gpu.binary @carry_kernel
