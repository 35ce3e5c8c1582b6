// kiln-group-runtime-gemms on buffers: which runtime GEMM calls of a block
// become one group call, and which must stay apart.
// RUN: kiln-opt %s --kiln-group-runtime-gemms --split-input-file | FileCheck %s

!m = memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>
!d = memref<?x?x?xf64, strided<[?, ?, ?], offset: ?>>
func.func private @kiln_rt_sgemm(!m, !m, !m, i64, i64) attributes {llvm.emit_c_interface}
func.func private @kiln_rt_dgemm(!d, !d, !d, i64, i64) attributes {llvm.emit_c_interface}

// An RNN step: x W0 into c0, a bias added into t (reading c0), then h W1
// into c1. The second call reads neither c0 nor t and writes neither: it
// moves up past the bias loop, with the casts of its operands, and both
// become one call (operands, then flags, in call order), of a function
// declared for the C interface as the single GEMM is.
// CHECK: func.func private @kiln_rt_sgemm_group2(
// CHECK-SAME: attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @rnn_step
// CHECK-SAME: (%[[X:.*]]: memref<1x4x8xf32>, %[[W0:.*]]: memref<1x8x16xf32>, %[[H:.*]]: memref<1x4x8xf32>, %[[W1:.*]]: memref<1x8x16xf32>)
// CHECK: %[[C0:.*]] = memref.alloc() : memref<1x4x16xf32>
// CHECK: memref.alloc() : memref<1x4x16xf32>
// CHECK: %[[C1:.*]] = memref.alloc() : memref<1x4x16xf32>
// CHECK-DAG: %[[X_:.*]] = memref.cast %[[X]]
// CHECK-DAG: %[[W0_:.*]] = memref.cast %[[W0]]
// CHECK-DAG: %[[C0_:.*]] = memref.cast %[[C0]]
// CHECK-DAG: %[[H_:.*]] = memref.cast %[[H]]
// CHECK-DAG: %[[W1_:.*]] = memref.cast %[[W1]]
// CHECK-DAG: %[[C1_:.*]] = memref.cast %[[C1]]
// CHECK: call @kiln_rt_sgemm_group2(%[[X_]], %[[W0_]], %[[C0_]], %[[H_]], %[[W1_]], %[[C1_]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
// CHECK-NEXT: linalg.generic
// CHECK-NOT: call @kiln_rt_sgemm(
// CHECK: return
func.func @rnn_step(%x: memref<1x4x8xf32>, %w0: memref<1x8x16xf32>,
                    %h: memref<1x4x8xf32>, %w1: memref<1x8x16xf32>) -> memref<1x4x16xf32> {
  %f = arith.constant 0 : i64
  %c0 = memref.alloc() : memref<1x4x16xf32>
  %t = memref.alloc() : memref<1x4x16xf32>
  %c1 = memref.alloc() : memref<1x4x16xf32>
  %xc = memref.cast %x : memref<1x4x8xf32> to !m
  %w0c = memref.cast %w0 : memref<1x8x16xf32> to !m
  %c0c = memref.cast %c0 : memref<1x4x16xf32> to !m
  call @kiln_rt_sgemm(%xc, %w0c, %c0c, %f, %f) : (!m, !m, !m, i64, i64) -> ()
  linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>, affine_map<(i, j, k) -> (i, j, k)>],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%c0 : memref<1x4x16xf32>) outs(%t : memref<1x4x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %one = arith.constant 1.0 : f32
    %s = arith.addf %in, %one : f32
    linalg.yield %s : f32
  }
  %hc = memref.cast %h : memref<1x4x8xf32> to !m
  %w1c = memref.cast %w1 : memref<1x8x16xf32> to !m
  %c1c = memref.cast %c1 : memref<1x4x16xf32> to !m
  call @kiln_rt_sgemm(%hc, %w1c, %c1c, %f, %f) : (!m, !m, !m, i64, i64) -> ()
  return %c1 : memref<1x4x16xf32>
}

// -----

!m = memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>
func.func private @kiln_rt_sgemm(!m, !m, !m, i64, i64) attributes {llvm.emit_c_interface}

// A chain: the second product reads the first's result, so they stay two
// calls in order.
// CHECK-LABEL: func.func @chain
// CHECK: call @kiln_rt_sgemm(
// CHECK: call @kiln_rt_sgemm(
// CHECK-NOT: call @kiln_rt_sgemm_group
func.func @chain(%a: !m, %b: !m) -> memref<1x4x4xf32> {
  %f = arith.constant 0 : i64
  %c0 = memref.alloc() : memref<1x4x4xf32>
  %c1 = memref.alloc() : memref<1x4x4xf32>
  %c0c = memref.cast %c0 : memref<1x4x4xf32> to !m
  %c1c = memref.cast %c1 : memref<1x4x4xf32> to !m
  call @kiln_rt_sgemm(%a, %b, %c0c, %f, %f) : (!m, !m, !m, i64, i64) -> ()
  call @kiln_rt_sgemm(%c0c, %b, %c1c, %f, %f) : (!m, !m, !m, i64, i64) -> ()
  return %c1 : memref<1x4x4xf32>
}

// -----

!m = memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>
func.func private @kiln_rt_sgemm(!m, !m, !m, i64, i64) attributes {llvm.emit_c_interface}

// An op between writes the second call's A (through a subview): the call
// may not move above it.
// CHECK-LABEL: func.func @operand_written_between
// CHECK: call @kiln_rt_sgemm(
// CHECK: linalg.fill
// CHECK: call @kiln_rt_sgemm(
// CHECK-NOT: call @kiln_rt_sgemm_group
func.func @operand_written_between(%a: !m, %b: !m) -> memref<1x4x4xf32> {
  %f = arith.constant 0 : i64
  %zero = arith.constant 0.0 : f32
  %c0 = memref.alloc() : memref<1x4x4xf32>
  %a1 = memref.alloc() : memref<1x4x4xf32>
  %c1 = memref.alloc() : memref<1x4x4xf32>
  %c0c = memref.cast %c0 : memref<1x4x4xf32> to !m
  call @kiln_rt_sgemm(%a, %b, %c0c, %f, %f) : (!m, !m, !m, i64, i64) -> ()
  %row = memref.subview %a1[0, 0, 0] [1, 2, 4] [1, 1, 1] : memref<1x4x4xf32> to memref<1x2x4xf32, strided<[16, 4, 1]>>
  linalg.fill ins(%zero : f32) outs(%row : memref<1x2x4xf32, strided<[16, 4, 1]>>)
  %a1c = memref.cast %a1 : memref<1x4x4xf32> to !m
  %c1c = memref.cast %c1 : memref<1x4x4xf32> to !m
  call @kiln_rt_sgemm(%a1c, %b, %c1c, %f, %f) : (!m, !m, !m, i64, i64) -> ()
  return %c1 : memref<1x4x4xf32>
}

// -----

!m = memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>
!d = memref<?x?x?xf64, strided<[?, ?, ?], offset: ?>>
func.func private @kiln_rt_sgemm(!m, !m, !m, i64, i64) attributes {llvm.emit_c_interface}
func.func private @kiln_rt_dgemm(!d, !d, !d, i64, i64) attributes {llvm.emit_c_interface}

// Three f32 products of a backward step (their results allocated between
// them) become one call of three; the f64 product between (on buffers of
// its own) is not of the group and stays where it was; two function
// arguments may alias, so a product writing an argument that the group
// reads stays alone.
// CHECK-LABEL: func.func @backward_step
// CHECK: call @kiln_rt_sgemm_group3(%[[A:[^,]*]], %[[B:[^,]*]], %{{[^,]*}}, %[[A]], %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %[[B]], %{{[^,]*}}, %c0_i64, %c0_i64, %c1_i64, %c0_i64, %c0_i64, %c1_i64)
// CHECK: call @kiln_rt_dgemm(
// CHECK: call @kiln_rt_sgemm(%[[A]], %[[B]], %[[OUT:.*]], %c0_i64, %c0_i64)
// CHECK-NOT: call @kiln_rt_sgemm_group
// CHECK: return
func.func @backward_step(%a: !m, %b: !m, %e: !m, %out: !m) -> (memref<1x4x4xf32>, memref<1x4x4xf32>, memref<1x4x4xf32>, memref<2x2x2xf64>) {
  %f = arith.constant 0 : i64
  %t = arith.constant 1 : i64
  %pq = memref.alloc() : memref<2x2x2xf64>
  %r = memref.alloc() : memref<2x2x2xf64>
  %pqc = memref.cast %pq : memref<2x2x2xf64> to !d
  %rc = memref.cast %r : memref<2x2x2xf64> to !d
  %c0 = memref.alloc() : memref<1x4x4xf32>
  %c0c = memref.cast %c0 : memref<1x4x4xf32> to !m
  call @kiln_rt_sgemm(%a, %b, %c0c, %f, %f) : (!m, !m, !m, i64, i64) -> ()
  call @kiln_rt_dgemm(%pqc, %pqc, %rc, %f, %f) : (!d, !d, !d, i64, i64) -> ()
  %c1 = memref.alloc() : memref<1x4x4xf32>
  %c1c = memref.cast %c1 : memref<1x4x4xf32> to !m
  call @kiln_rt_sgemm(%a, %e, %c1c, %t, %f) : (!m, !m, !m, i64, i64) -> ()
  %c2 = memref.alloc() : memref<1x4x4xf32>
  %c2c = memref.cast %c2 : memref<1x4x4xf32> to !m
  call @kiln_rt_sgemm(%e, %b, %c2c, %f, %t) : (!m, !m, !m, i64, i64) -> ()
  call @kiln_rt_sgemm(%a, %b, %out, %f, %f) : (!m, !m, !m, i64, i64) -> ()
  return %c0, %c1, %c2, %r : memref<1x4x4xf32>, memref<1x4x4xf32>, memref<1x4x4xf32>, memref<2x2x2xf64>
}
