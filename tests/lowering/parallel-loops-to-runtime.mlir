// A parallel loop runs on the runtime's pool: kiln-outline-parallel-loops
// makes its body a function of a range of iterations and leaves a
// placeholder call with the trip count; kiln-parallel-loops-to-runtime (on
// the LLVM dialect) stores the captures in a stack struct and calls
// kiln_rt_parallel_for with a task that loads them.
// RUN: kiln-opt --kiln-outline-parallel-loops %s | FileCheck %s --check-prefix=OUTLINE
// RUN: kiln-opt --kiln-outline-parallel-loops --convert-scf-to-cf --finalize-memref-to-llvm \
// RUN:   --convert-arith-to-llvm --convert-index-to-llvm --convert-cf-to-llvm --convert-func-to-llvm \
// RUN:   --reconcile-unrealized-casts --kiln-parallel-loops-to-runtime %s | FileCheck %s --check-prefix=LLVM

// Iterations 2, 5, 8, ... below %n: trips = ceil(max(n - 2, 0) / 3); the
// body runs i = 2 + 3k for k in [begin, end).
// OUTLINE-LABEL: func.func @main(%arg0: memref<?xf32>, %arg1: index, %arg2: f32)
// OUTLINE-DAG: %[[C2:.*]] = arith.constant 2 : index
// OUTLINE-DAG: %[[C3:.*]] = arith.constant 3 : index
// OUTLINE-DAG: %[[C0:.*]] = arith.constant 0 : index
// OUTLINE: %[[SPAN:.*]] = arith.subi %arg1, %[[C2]]
// OUTLINE: %[[POS:.*]] = arith.maxsi %[[SPAN]], %[[C0]]
// OUTLINE: %[[C1:.*]] = arith.constant 1 : index
// OUTLINE: %[[STEP1:.*]] = arith.subi %[[C3]], %[[C1]]
// OUTLINE: %[[UP:.*]] = arith.addi %[[POS]], %[[STEP1]]
// OUTLINE: %[[TRIPS:.*]] = arith.divui %[[UP]], %[[C3]]
// OUTLINE: call @__kiln_parallel_for_main_0(%[[TRIPS]], %arg0, %arg2) : (index, memref<?xf32>, f32) -> ()
// OUTLINE-NOT: scf.parallel
// OUTLINE-LABEL: func.func private @__kiln_parallel_body_main_0(%arg0: index, %arg1: index, %arg2: memref<?xf32>, %arg3: f32)
// OUTLINE: scf.for %[[K:.*]] = %arg0 to %arg1 step
// OUTLINE: %[[SCALED:.*]] = arith.muli %[[K]], %{{.*}}
// OUTLINE: %[[I:.*]] = arith.addi %{{.*}}, %[[SCALED]]
// OUTLINE: memref.load %arg2[%[[I]]]
// OUTLINE: arith.mulf %{{.*}}, %arg3
// OUTLINE: memref.store %{{.*}}, %arg2[%[[I]]]
// OUTLINE: func.func private @__kiln_parallel_for_main_0(index, memref<?xf32>, f32) attributes {kiln.parallel_body = @__kiln_parallel_body_main_0}

// LLVM: llvm.func @kiln_rt_parallel_for(!llvm.ptr, !llvm.ptr, i64)
// LLVM-LABEL: llvm.func @main
// LLVM-NEXT: %[[ONE:.*]] = llvm.mlir.constant(1 : i64) : i64
// LLVM-NEXT: %[[CTX:.*]] = llvm.alloca %[[ONE]] x !llvm.struct<(ptr, ptr, i64, i64, i64, f32)>
// LLVM-COUNT-6: llvm.store
// LLVM: %[[TASK:.*]] = llvm.mlir.addressof @__kiln_parallel_task_main_0
// LLVM: llvm.call @kiln_rt_parallel_for(%[[TASK]], %[[CTX]], %{{.*}})
// LLVM-NOT: __kiln_parallel_for_main_0
// LLVM-LABEL: llvm.func internal @__kiln_parallel_body_main_0(%arg0: i64, %arg1: i64,
// LLVM-LABEL: llvm.func internal @__kiln_parallel_task_main_0(%arg0: !llvm.ptr, %arg1: i64, %arg2: i64)
// LLVM-COUNT-6: llvm.load
// LLVM: llvm.call @__kiln_parallel_body_main_0(%arg1, %arg2,
func.func @main(%buf: memref<?xf32>, %n: index, %s: f32) {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  scf.parallel (%i) = (%c2) to (%n) step (%c3) {
    %v = memref.load %buf[%i] : memref<?xf32>
    %w = arith.mulf %v, %s : f32
    memref.store %w, %buf[%i] : memref<?xf32>
    scf.reduce
  }
  return
}
