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
