// lax.host_callback: a call of the runtime's kiln_rt_host_callback with a
// stack table of addresses (operands, then fresh result buffers), inside
// the branch that guards it; a callback without results (a print) stays.
// The C++ tools have no host program: they refuse it, naming it.
// RUN: kiln-opt %s --kiln-lax-to-linalg | FileCheck %s
// CHECK: func.func private @kiln_rt_host_callback(i64, memref<?xindex>) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @main
// CHECK: scf.if
// CHECK: bufferization.to_buffer
// CHECK: memref.extract_aligned_pointer_as_index
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<4xf32>
// CHECK: memref.extract_aligned_pointer_as_index %[[OUT]]
// CHECK: memref.alloca_scope
// CHECK: memref.alloca() : memref<2xindex>
// CHECK-COUNT-2: memref.store
// CHECK: %[[INDEX:.*]] = arith.constant 3 : i64
// CHECK: call @kiln_rt_host_callback(%[[INDEX]], %{{.*}}) : (i64, memref<?xindex>) -> ()
// CHECK: bufferization.to_tensor %[[OUT]] restrict writable
// CHECK: } else {
// CHECK: arith.constant 4 : i64
// CHECK: call @kiln_rt_host_callback
// RUN: not kiln-run %s --random-inputs --interpret 2>&1 | FileCheck %s --check-prefix=INTERP
// INTERP: error: the interpreter cannot run host callback
// INTERP-SAME: callbacks call back into the Python program that kiln.jit compiled
// RUN: not kiln-run %s --random-inputs 2>&1 | FileCheck %s --check-prefix=TOOL
// RUN: not kiln-compile %s -o %t.o 2>&1 | FileCheck %s --check-prefix=TOOL
// TOOL-NOT: Stack dump
// TOOL: host-callback.mlir:{{[0-9]+}}:{{[0-9]+}}: error: kiln-{{run|compile}} cannot run host callback
func.func @main(%p: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = lax.cond %p (%x) : (tensor<i1>, tensor<4xf32>) -> tensor<4xf32>
  branch 0 {
  ^bb0(%a: tensor<4xf32>):
    lax.host_callback 4 "print" : () -> ()
    lax.yield %a : tensor<4xf32>
  } branch 1 {
  ^bb0(%a: tensor<4xf32>):
    %c = lax.host_callback 3 "check" (%a) : (tensor<4xf32>) -> tensor<4xf32>
    lax.yield %c : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
