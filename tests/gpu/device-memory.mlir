// kiln-gpu-device-memory on host functions after kernel outlining.
// RUN: kiln-opt --kiln-gpu-device-memory -split-input-file -verify-diagnostics %s | FileCheck %s

// A temporary becomes device memory, freed at the end; a returned buffer is
// not freed; a constant gets a device copy, freed at the end.
// CHECK-LABEL: func.func @buffers
// CHECK: %[[G:.*]] = memref.get_global @table : memref<4xf32>
// CHECK: %[[GD:.*]] = gpu.alloc () : memref<4xf32>
// CHECK: gpu.memcpy %[[GD]], %[[G]] : memref<4xf32>, memref<4xf32>
// CHECK: %[[T:.*]] = gpu.alloc () : memref<8xf32>
// CHECK: %[[R:.*]] = gpu.alloc () : memref<8xf32>
// CHECK: call @use(%[[T]], %[[R]], %[[GD]])
// CHECK: gpu.dealloc %[[T]] : memref<8xf32>
// CHECK-NOT: gpu.dealloc %[[R]]
// CHECK: gpu.dealloc %[[GD]] : memref<4xf32>
// CHECK: return %[[R]]
memref.global "private" constant @table : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
func.func private @use(memref<8xf32>, memref<8xf32>, memref<4xf32>)
func.func @buffers() -> memref<8xf32> {
  %t = memref.alloc() : memref<8xf32>
  %r = memref.alloc() : memref<8xf32>
  %g = memref.get_global @table : memref<4xf32>
  call @use(%t, %r, %g) : (memref<8xf32>, memref<8xf32>, memref<4xf32>) -> ()
  return %r : memref<8xf32>
}

// -----

// The host may not read a device buffer.
func.func @host_read(%i: index) -> f32 {
  %t = memref.alloc() : memref<8xf32>
  // expected-error @+1 {{kiln-lower-gpu: would access a device buffer on the host}}
  %v = memref.load %t[%i] : memref<8xf32>
  return %v : f32
}
