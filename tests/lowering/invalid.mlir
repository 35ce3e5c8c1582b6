// RUN: not kiln-opt --kiln-lax-to-linalg %s 2>&1 | FileCheck %s

// Dynamic shapes are not supported: the op is reported, nothing crashes.
// CHECK: error: failed to legalize operation 'lax.exp'
func.func @dynamic(%a: tensor<?xf32>) -> tensor<?xf32> {
  %0 = lax.exp %a : tensor<?xf32>
  return %0 : tensor<?xf32>
}
