// RUN: not kiln-opt --kiln-lax-to-linalg %s 2>&1 | FileCheck %s

// An unsigned constant held as a resource blob cannot be reinterpreted as
// signless data: the op is reported at its location, nothing crashes.
// CHECK: invalid.mlir:[[@LINE+2]]:8: error: failed to legalize operation 'lax.constant'
func.func @unsigned_resource() -> tensor<4xui32> {
  %0 = lax.constant dense_resource<blob> : tensor<4xui32>
  return %0 : tensor<4xui32>
}

{-#
  dialect_resources: {
    builtin: {
      blob: "0x0400000001000000020000000300000004000000"
    }
  }
#-}
