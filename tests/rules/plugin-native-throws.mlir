// A plugin's native function that throws when a rule calls it: an error (at
// the first op or value the call is given, here none), the rule does not
// apply, kiln-opt fails; no crash (the exception had crossed MLIR's pattern
// driver and ended in std::terminate).
// RUN: not kiln-opt --plugin=%kiln_obj/lib/libKilnTestPluginThrowsInNative.so %s --rules=%S/Inputs/explodes.yaml 2>&1 | FileCheck %s
// CHECK: error: native function 'explodes' threw: the frobnicator exploded
// CHECK-NOT: terminate

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = lax.neg %x : tensor<4xf32>
  %1 = lax.integer_pow %0 y = 2 : tensor<4xf32>
  return %1 : tensor<4xf32>
}
