// RUN: kiln-opt --pass-pipeline='builtin.module(func.func(kiln-outputs-in-place))' -split-input-file %s | FileCheck %s

// A result written in place into a private buffer (what
// kiln-scan-to-parallel-loops emits) and then copied into the caller's
// output: the output replaces the buffer and the copy goes.
// CHECK-LABEL: func.func @buffer_written_in_place
// CHECK-SAME: %[[X:[^:]+]]: memref<8xf32>, %[[OUT:[^:]+]]: memref<8xf32>
// CHECK-NOT: memref.alloc
// CHECK: scf.for %[[I:[^ ]+]] =
// CHECK: %[[V:.*]] = memref.load %[[X]][%[[I]]]
// CHECK: memref.store %[[V]], %[[OUT]][%[[I]]]
// CHECK-NOT: memref.copy
// CHECK: return
func.func @buffer_written_in_place(%x: memref<8xf32>, %out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %buf = memref.alloc() : memref<8xf32>
  scf.for %i = %c0 to %c8 step %c1 {
    %v = memref.load %x[%i] : memref<8xf32>
    memref.store %v, %buf[%i] : memref<8xf32>
  }
  memref.copy %buf, %out : memref<8xf32> to memref<8xf32>
  return
}

// -----

// The buffer is written again after the copy: the output must keep the
// values at the copy, so nothing changes.
// CHECK-LABEL: func.func @written_after_the_copy
// CHECK: %[[BUF:.*]] = memref.alloc() : memref<8xf32>
// CHECK: memref.copy %[[BUF]], %{{.*}}
// CHECK: memref.store %{{.*}}, %[[BUF]]
func.func @written_after_the_copy(%x: memref<8xf32>, %out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %f = arith.constant 1.0 : f32
  %buf = memref.alloc() : memref<8xf32>
  memref.copy %x, %buf : memref<8xf32> to memref<8xf32>
  memref.copy %buf, %out : memref<8xf32> to memref<8xf32>
  memref.store %f, %buf[%c0] : memref<8xf32>
  return
}

// -----

// A freed buffer, and one whose type differs from the output's: unchanged.
// CHECK-LABEL: func.func @freed_or_other_type
// CHECK: memref.alloc() : memref<8xf32>
// CHECK: memref.copy
// CHECK: memref.dealloc
// CHECK: memref.alloc() : memref<8xf32, strided<[1], offset: 4>>
// CHECK: memref.copy
func.func @freed_or_other_type(%x: memref<8xf32>, %out: memref<8xf32>, %out2: memref<8xf32>) {
  %buf = memref.alloc() : memref<8xf32>
  memref.copy %x, %buf : memref<8xf32> to memref<8xf32>
  memref.copy %buf, %out : memref<8xf32> to memref<8xf32>
  memref.dealloc %buf : memref<8xf32>
  %other = memref.alloc() : memref<8xf32, strided<[1], offset: 4>>
  memref.copy %x, %other : memref<8xf32> to memref<8xf32, strided<[1], offset: 4>>
  memref.copy %other, %out2 : memref<8xf32, strided<[1], offset: 4>> to memref<8xf32>
  return
}

// -----

// A runtime call's result (kiln-lax-to-linalg's GEMM: a [1, 6, 4] buffer
// reshaped to the [2, 3, 4] result): the call writes the output, seen with
// the buffer's shape.
// CHECK-LABEL: func.func @reshaped_call_result
// CHECK-SAME: %[[OUT:[^:]+]]: memref<2x3x4xf32>
// CHECK: %[[VIEW:.*]] = memref.reinterpret_cast %[[OUT]] to offset: [0], sizes: [1, 6, 4], strides: [24, 4, 1] : memref<2x3x4xf32> to memref<1x6x4xf32>
// CHECK-NOT: memref.alloc
// CHECK: %[[CAST:.*]] = memref.cast %[[VIEW]]
// CHECK: call @fill(%[[CAST]])
// CHECK-NOT: memref.copy
func.func private @fill(memref<?x?x?xf32>)
func.func @reshaped_call_result(%out: memref<2x3x4xf32>) {
  %buf = memref.alloc() : memref<1x6x4xf32>
  %cast = memref.cast %buf : memref<1x6x4xf32> to memref<?x?x?xf32>
  call @fill(%cast) : (memref<?x?x?xf32>) -> ()
  %t = bufferization.to_tensor %buf restrict writable : memref<1x6x4xf32> to tensor<1x6x4xf32>
  %c = tensor.collapse_shape %t [[0, 1], [2]] : tensor<1x6x4xf32> into tensor<6x4xf32>
  %e = tensor.expand_shape %c [[0, 1], [2]] output_shape [2, 3, 4] : tensor<6x4xf32> into tensor<2x3x4xf32>
  %m = bufferization.to_buffer %e read_only : tensor<2x3x4xf32> to memref<2x3x4xf32, strided<[?, ?, ?], offset: ?>>
  memref.copy %m, %out : memref<2x3x4xf32, strided<[?, ?, ?], offset: ?>> to memref<2x3x4xf32>
  return
}
