// RUN: kiln-opt --kiln-parallel-alloca-scopes -split-input-file %s | FileCheck %s

// An alloca_scope (what kiln-one-parallel-dimension puts around a parallel
// scan's body that it runs in sequence) becomes its body between a stack
// save and restore, so the scope survives convert-scf-to-cf.
// CHECK-LABEL: func.func @scope_in_loop
// CHECK: scf.for
// CHECK-NEXT: %[[SAVED:.*]] = llvm.intr.stacksave : !llvm.ptr
// CHECK-NEXT: %[[TILE:.*]] = memref.alloca() : memref<30x16xf32>
// CHECK-NEXT: memref.store %{{.*}}, %[[TILE]]
// CHECK-NEXT: llvm.intr.stackrestore %[[SAVED]] : !llvm.ptr
// CHECK-NEXT: }
// CHECK-NOT: memref.alloca_scope
func.func @scope_in_loop(%v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    memref.alloca_scope {
      %tile = memref.alloca() : memref<30x16xf32>
      memref.store %v, %tile[%c0, %c0] : memref<30x16xf32>
    }
  }
  return
}
