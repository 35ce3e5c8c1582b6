// The dependence classes that only_consts, depends_on_carries and only_xs
// read are kept per loop while rules run; every IR change drops them, so a
// question after a rewrite sees the rewritten body: exp's operand stops
// depending on the carry when the add it read is replaced (exp becomes
// sin), and the new abs of the carry is not only_consts (it stays abs).
// RUN: kiln-opt %s --rules=%S/Inputs/dependence-memo.yaml | FileCheck %s
// CHECK-LABEL: func.func @f
// CHECK: ^bb0(%{{.*}}: tensor<4xf32>, %[[C:.*]]: tensor<4xf32>, %[[X:.*]]: tensor<4xf32>):
// CHECK-NEXT: %[[S:.*]] = lax.sin %[[X]]
// CHECK-NEXT: %[[A:.*]] = lax.abs %[[C]]
// CHECK-NEXT: %[[R:.*]] = lax.add %[[S]], %[[A]]
// CHECK-NEXT: lax.yield %[[R]]
func.func @f(%w: tensor<4xf32>, %c0: tensor<4xf32>, %xs: tensor<6x4xf32>) -> tensor<4xf32> {
  %c = lax.scan length = 6 consts(%w) carry(%c0) xs(%xs)
      : (tensor<4xf32>, tensor<4xf32>, tensor<6x4xf32>) -> tensor<4xf32> {
  ^bb0(%wc: tensor<4xf32>, %carry: tensor<4xf32>, %x: tensor<4xf32>):
    %a = lax.add %carry, %x : tensor<4xf32>
    %e = lax.exp %a : tensor<4xf32>
    %n = lax.neg %carry : tensor<4xf32>
    %s = lax.add %e, %n : tensor<4xf32>
    lax.yield %s : tensor<4xf32>
  }
  return %c : tensor<4xf32>
}
