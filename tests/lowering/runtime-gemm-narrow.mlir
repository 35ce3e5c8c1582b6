// A bf16/f16 dot_general large enough for the runtime GEMM calls the f32
// GEMM on its operands widened (exact), and rounds a 16-bit result once from
// the f32 sums (lowering/DotGeneralToRuntime.cpp); the values against the
// interpreter, which widens each product and accumulates in f32 too.
// RUN: kiln-opt --kiln-lax-to-linalg %s | FileCheck %s
// RUN: kiln-run %s --entry bf16_to_f32 --random-inputs --no-cache --check | FileCheck %s --check-prefix=EXEC
// RUN: kiln-run %s --entry f16_to_f16 --random-inputs --no-cache --check | FileCheck %s --check-prefix=EXEC
// EXEC: output 0: matches

// CHECK-LABEL: func.func @bf16_to_f32
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: call @kiln_rt_sgemm
// CHECK-NOT: arith.truncf
// CHECK: return
func.func @bf16_to_f32(%a: tensor<64x256xbf16>, %b: tensor<256x128xbf16>) -> tensor<64x128xf32> {
  %0 = lax.dot_general %a, %b contracting = [1] x [0] batch = [] x [] {preferred_element_type = f32} : (tensor<64x256xbf16>, tensor<256x128xbf16>) -> tensor<64x128xf32>
  return %0 : tensor<64x128xf32>
}

// CHECK-LABEL: func.func @f16_to_f16
// CHECK: call @kiln_rt_sgemm
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @f16_to_f16(%a: tensor<64x256xf16>, %b: tensor<256x128xf16>) -> tensor<64x128xf16> {
  %0 = lax.dot_general %a, %b contracting = [1] x [0] batch = [] x [] : (tensor<64x256xf16>, tensor<256x128xf16>) -> tensor<64x128xf16>
  return %0 : tensor<64x128xf16>
}
