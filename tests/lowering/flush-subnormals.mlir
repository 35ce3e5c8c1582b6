// RUN: kiln-opt --kiln-flush-subnormals %s | FileCheck %s

// Each function entered from outside (public) or on a parallel worker
// (kiln-outline-parallel-loops' bodies) sets the flushing mode first and puts
// the caller's back before every return; private callees run in their
// caller's mode and are left alone.
// CHECK-LABEL: func.func @main
// CHECK-NEXT: %[[SAVED:.*]] = call @kiln_rt_flush_subnormals_begin() : () -> i32
// CHECK: cf.cond_br
// CHECK: call @kiln_rt_set_float_mode(%[[SAVED]]) : (i32) -> ()
// CHECK-NEXT: return
// CHECK: call @kiln_rt_set_float_mode(%[[SAVED]]) : (i32) -> ()
// CHECK-NEXT: return
func.func @main(%x: f32, %c: i1) -> f32 {
  cf.cond_br %c, ^a, ^b
^a:
  %y = func.call @helper(%x) : (f32) -> f32
  return %y : f32
^b:
  return %x : f32
}

// CHECK-LABEL: func.func private @helper
// CHECK-NOT: kiln_rt
// CHECK: return
func.func private @helper(%x: f32) -> f32 {
  %y = arith.mulf %x, %x : f32
  return %y : f32
}

// CHECK-LABEL: func.func private @__kiln_parallel_body_main_0
// CHECK-NEXT: call @kiln_rt_flush_subnormals_begin
// CHECK: call @kiln_rt_set_float_mode
// CHECK-NEXT: return
func.func private @__kiln_parallel_body_main_0(%x: f32) {
  return
}
