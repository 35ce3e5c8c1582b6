// A temporary too large for the machine (1 TiB of stacked scan outputs):
// the compiled code's failed allocation is an error of the call, with the
// size, and kiln-run exits 1 -- not a segfault through a null pointer.
// (ASan would report the size itself: it is asked to return null.)
// RUN: env ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 not kiln-run %s --random-inputs --no-cache 2>&1 | FileCheck %s
// CHECK: kiln-run: error: out of memory: the compiled code could not allocate 1099511627776 bytes for a temporary

func.func @f(%c0: tensor<1048576xf32>) -> tensor<f32> {
  %c, %ys = lax.scan length = 262144 carry(%c0) xs()
      : (tensor<1048576xf32>) -> (tensor<1048576xf32>, tensor<262144x1048576xf32>) {
  ^bb0(%carry: tensor<1048576xf32>):
    %s = lax.sin %carry : tensor<1048576xf32>
    lax.yield %s, %s : tensor<1048576xf32>, tensor<1048576xf32>
  }
  %r = lax.reduce_max %ys axes = [0, 1] : tensor<262144x1048576xf32> -> tensor<f32>
  return %r : tensor<f32>
}
