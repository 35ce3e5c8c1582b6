// RUN: kiln-opt %s --kiln-outline-large-functions=max-ops-per-function=3 | FileCheck %s
// RUN: kiln-opt %s --kiln-outline-large-functions=max-ops-per-function=0 | FileCheck %s --check-prefix=OFF

// A function of more than twice max-ops-per-function operations becomes
// calls of parts, in order. The stack allocation moves to the body's start
// and stays in the caller; constants and the subview are cloned into the
// parts that read them; a buffer a part allocates is its result; the
// fresh buffers' pointers (allocated, aligned) are noalias in a part whose
// memref arguments are all fresh buffers or the caller's arguments.

// CHECK-LABEL: func.func @f(
// CHECK-NEXT:    %[[S:.*]] = memref.alloca() : memref<2xf32>
// CHECK:         %[[P0:.*]]:2 = call @__kiln_outlined_f_0(%arg0) : (memref<8xf32>) -> (f32, memref<8xf32>)
// CHECK-NEXT:    %[[P1:.*]] = call @__kiln_outlined_f_1(%[[P0]]#0, %[[P0]]#1, %[[S]])
// CHECK:         call @__kiln_outlined_f_2(%[[S]], %[[P1]], %arg1)
// CHECK-NEXT:    call @__kiln_outlined_f_3(%[[P0]]#1, %arg1)
// CHECK-NEXT:    return

// CHECK: func.func private @__kiln_outlined_f_3(%{{.*}}: memref<8xf32>, %{{.*}}: memref<8xf32>) attributes {kiln.noalias_params = array<i64: 0, 1>}
// CHECK:   memref.dealloc
// CHECK: func.func private @__kiln_outlined_f_2(%{{.*}}: memref<2xf32>, %{{.*}}: f32, %{{.*}}: memref<8xf32>) attributes {kiln.noalias_params = array<i64: 0, 1>}
// CHECK: func.func private @__kiln_outlined_f_1(%{{.*}}: f32, %[[T:.*]]: memref<8xf32>, %{{.*}}: memref<2xf32>) -> f32 attributes {kiln.noalias_params = array<i64: 1, 2, 6, 7>}
// CHECK-NEXT: arith.constant 1 : index
// CHECK-NEXT: memref.subview %[[T]][2] [2] [1]
// CHECK: func.func private @__kiln_outlined_f_0(%{{.*}}: memref<8xf32>) -> (f32, memref<8xf32>) {
// CHECK:   %[[A:.*]] = memref.alloc() : memref<8xf32>
// CHECK:   return %{{.*}}, %[[A]] : f32, memref<8xf32>

// OFF-NOT: call
func.func @f(%a: memref<8xf32>, %out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = memref.load %a[%c0] : memref<8xf32>
  %t = memref.alloc() : memref<8xf32>
  memref.store %x, %t[%c0] : memref<8xf32>
  %y = arith.addf %x, %x : f32
  memref.store %y, %t[%c1] : memref<8xf32>
  %s = memref.alloca() : memref<2xf32>
  %v = memref.subview %t[2] [2] [1] : memref<8xf32> to memref<2xf32, strided<[1], offset: 2>>
  memref.copy %v, %s : memref<2xf32, strided<[1], offset: 2>> to memref<2xf32>
  %z = memref.load %s[%c1] : memref<2xf32>
  %w = arith.mulf %z, %y : f32
  memref.store %w, %out[%c0] : memref<8xf32>
  %u = memref.load %t[%c1] : memref<8xf32>
  memref.store %u, %out[%c1] : memref<8xf32>
  memref.dealloc %t : memref<8xf32>
  return
}
