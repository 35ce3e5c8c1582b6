// RUN: kiln-opt --kiln-approximate-math %s | FileCheck %s

// f32 transcendental ops become polynomial arithmetic (vectorizable); f64
// keeps the math op (libm).
// CHECK-LABEL: func.func @f32
// CHECK-NOT: math.cos
// CHECK-NOT: math.exp
// CHECK-NOT: math.tanh
// CHECK: math.fma
func.func @f32(%x: f32) -> (f32, f32, f32) {
  %0 = math.cos %x : f32
  %1 = math.exp %x : f32
  %2 = math.tanh %x : f32
  return %0, %1, %2 : f32, f32, f32
}

// CHECK-LABEL: func.func @f64
// CHECK: math.cos
func.func @f64(%x: f64) -> f64 {
  %0 = math.cos %x : f64
  return %0 : f64
}
