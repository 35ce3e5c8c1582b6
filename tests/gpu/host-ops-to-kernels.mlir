// kiln-gpu-host-ops-to-kernels on bufferized host functions.
// RUN: kiln-opt --kiln-gpu-host-ops-to-kernels -split-input-file -verify-diagnostics %s | FileCheck %s

// A host copy becomes linalg.copy; a rank-0 op runs in a one-iteration
// parallel loop; a host read of a small buffer reads a host copy of it.
// CHECK-LABEL: func.func @host_work
// CHECK: linalg.copy ins(%arg0 : memref<4x8xf32>) outs(%arg1 : memref<4x8xf32>)
// CHECK: scf.parallel (%{{.*}}) = (%c0) to (%c1) step (%c1) {
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%arg2 : memref<f32>)
// CHECK: %[[H:.*]] = memref.alloca() : memref<i32>
// CHECK-NEXT: gpu.memcpy %[[H]], %arg3 : memref<i32>, memref<i32>
// CHECK-NEXT: memref.load %[[H]][] : memref<i32>
func.func @host_work(%a: memref<4x8xf32>, %b: memref<4x8xf32>, %s: memref<f32>, %i: memref<i32>) -> i32 {
  %zero = arith.constant 0.0 : f32
  memref.copy %a, %b : memref<4x8xf32> to memref<4x8xf32>
  linalg.fill ins(%zero : f32) outs(%s : memref<f32>)
  %v = memref.load %i[] : memref<i32>
  return %v : i32
}

// -----

// A scalar loop over buffers (a scan over a scalar carry) becomes a
// one-thread kernel: the run of scalar ops is wrapped whole.
// CHECK-LABEL: func.func @scalar_run
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) {
// CHECK: memref.load %arg0[]
// CHECK: scf.for
// CHECK: memref.store
// CHECK: scf.reduce
func.func @scalar_run(%c0: memref<f32>, %xs: memref<8xf32>, %out: memref<f32>) {
  %lb = arith.constant 0 : index
  %ub = arith.constant 8 : index
  %st = arith.constant 1 : index
  %init = memref.load %c0[] : memref<f32>
  %r = scf.for %k = %lb to %ub step %st iter_args(%acc = %init) -> (f32) {
    %x = memref.load %xs[%k] : memref<8xf32>
    %n = arith.addf %acc, %x : f32
    scf.yield %n : f32
  }
  memref.store %r, %out[] : memref<f32>
  return
}

// -----

// A host store whose value the host needs afterwards cannot move into a
// kernel: reported.
func.func @host_store(%out: memref<f32>, %v: f32) -> f32 {
  %w = arith.addf %v, %v : f32
  // expected-error @+1 {{kiln-lower-gpu: a host store into a device buffer is not supported}}
  memref.store %w, %out[] : memref<f32>
  %u = arith.mulf %w, %w : f32
  return %u : f32
}
