// RUN: kiln-opt --kiln-lax-to-linalg %s | FileCheck %s

// CHECK-LABEL: func.func @arith
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK:   arith.addf
// CHECK: linalg.generic
// CHECK:   arith.maximumf
// CHECK: linalg.generic
// CHECK:   arith.divsi
// CHECK-NOT: lax.
func.func @arith(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>, %i: tensor<4xi32>) -> (tensor<2x3xf32>, tensor<4xi32>) {
  %0 = lax.add %a, %b : tensor<2x3xf32>
  %1 = lax.max %0, %b : tensor<2x3xf32>
  %2 = lax.div %i, %i : tensor<4xi32>
  return %1, %2 : tensor<2x3xf32>, tensor<4xi32>
}

// CHECK-LABEL: func.func @math
// CHECK: math.tanh
// CHECK: math.rsqrt
// logistic = 1 / (1 + exp(-x))
// CHECK: arith.negf
// CHECK-NEXT: math.exp
// CHECK: arith.addf
// CHECK-NEXT: arith.divf
// integer_pow y=5: x * x^4 with two squarings
// CHECK: arith.mulf
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: linalg.yield
func.func @math(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = lax.tanh %a : tensor<4xf32>
  %1 = lax.rsqrt %0 : tensor<4xf32>
  %2 = lax.logistic %1 : tensor<4xf32>
  %3 = lax.integer_pow %2 y = 5 : tensor<4xf32>
  return %3 : tensor<4xf32>
}

// CHECK-LABEL: func.func @compare_select_convert
// CHECK: arith.cmpf une
// CHECK: arith.cmpi slt
// CHECK: arith.select
// CHECK: arith.uitofp {{.*}} : i1 to f32
// CHECK: arith.fptosi {{.*}} : f32 to i32
func.func @compare_select_convert(%a: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>) {
  %ne = lax.compare NE, %a, %a : tensor<4xf32>
  %lt = lax.compare LT, %i, %i : tensor<4xi32>
  %s = lax.select_n %lt, %a, %a : tensor<4xi1>, tensor<4xf32>, tensor<4xf32>
  %f = lax.convert_element_type %ne : tensor<4xi1> -> tensor<4xf32>
  %n = lax.convert_element_type %s : tensor<4xf32> -> tensor<4xi32>
  return %f, %n : tensor<4xf32>, tensor<4xi32>
}

// A scalar predicate broadcast over the cases reads one element everywhere.
// CHECK-LABEL: func.func @select_scalar_pred
// CHECK: linalg.generic {indexing_maps = [#[[$SCALAR:.*]], #{{.*}}, #{{.*}}, #{{.*}}]
func.func @select_scalar_pred(%p: tensor<i1>, %a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %s = lax.select_n %p, %a, %b : tensor<i1>, tensor<4xf32>, tensor<4xf32>
  return %s : tensor<4xf32>
}

// ui32 becomes i32 everywhere (signatures, calls, scan bodies); the ops that
// depend on signedness use their unsigned arith forms.
// CHECK-LABEL: func.func @unsigned(%{{.*}}: tensor<4xi32>, %{{.*}}: tensor<4xi32>) -> tensor<4xf32>
// CHECK-NOT: ui32
// CHECK: arith.divui
// CHECK: arith.cmpi ult
// CHECK: arith.maxui
// CHECK: arith.uitofp
// CHECK: return {{.*}} : tensor<4xf32>
func.func @unsigned(%a: tensor<4xui32>, %b: tensor<4xui32>) -> tensor<4xf32> {
  %d = lax.div %a, %b : tensor<4xui32>
  %lt = lax.compare LT, %d, %b : tensor<4xui32>
  %m = lax.max %d, %b : tensor<4xui32>
  %s = lax.select_n %lt, %m, %d : tensor<4xi1>, tensor<4xui32>, tensor<4xui32>
  %f = lax.convert_element_type %s : tensor<4xui32> -> tensor<4xf32>
  return %f : tensor<4xf32>
}
