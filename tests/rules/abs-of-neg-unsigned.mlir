// rules/library/elementwise.yaml's abs-of-neg holds for floats and signed
// integers only: on ui32, neg wraps (neg(4) = 4294967292) and abs keeps
// the value, so abs(neg(x)) is not abs(x) (found by the differential tests,
// generated program 200470). The rule must leave the ui32 chain alone, and
// kiln-verify-rules, against the interpreter on the original function,
// must find every instance it rewrites exact.
// RUN: kiln-opt %s --kiln-apply-rules=rules=%kiln_src/rules/library/elementwise.yaml | FileCheck %s
// RUN: kiln-verify-rules --rules=%kiln_src/rules/library/elementwise.yaml %s | FileCheck %s --check-prefix=VERIFY
// CHECK-LABEL: func.func @unsigned
// CHECK: lax.neg
// CHECK: lax.abs
// CHECK-LABEL: func.func @signed
// CHECK-NOT: lax.neg
// CHECK: lax.abs
// VERIFY: rule 'abs-of-neg': 1 instance(s){{.*}}: ok

func.func @unsigned(%x: tensor<3xui32>) -> tensor<3xui32> {
  %n = lax.neg %x : tensor<3xui32>
  %a = lax.abs %n : tensor<3xui32>
  return %a : tensor<3xui32>
}

func.func @signed(%x: tensor<3xi32>) -> tensor<3xi32> {
  %n = lax.neg %x : tensor<3xi32>
  %a = lax.abs %n : tensor<3xi32>
  return %a : tensor<3xi32>
}
