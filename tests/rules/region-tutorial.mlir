// The tutorial's region rules (docs/rules.md, step 5) do what it says.
// RUN: kiln-opt %s --rules=%S/Inputs/region-tutorial.yaml --rule-tags=+reassociates-float | FileCheck %s
// RUN: kiln-verify-rules --rules=%S/Inputs/region-tutorial.yaml %s | FileCheck %s --check-prefix=VERIFY

// CHECK-LABEL: func.func @f
// CHECK-DAG: %[[ZERO:.*]] = lax.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK-DAG: %[[NEGINF:.*]] = lax.constant dense<0xFF800000> : tensor<4xf32>
// CHECK-DAG: %[[E:.*]] = lax.exp %arg0 : tensor<4xf32>
// CHECK: lax.scan length = 6 consts({{.*}}%[[E]]) carry(%arg1, {{%[0-9]+, %[0-9]+}}) xs(%arg2)
// CHECK: lax.add %{{.*}}, %{{.*}} : tensor<4xf32>
// CHECK: lax.max %{{.*}}, %{{.*}} : tensor<4xf32>
// CHECK-NOT: lax.reduce
// VERIFY: rule 'sum-of-ys-to-carry' [reassociates-float]: 1 instance(s), {{.*}}: ok
// VERIFY: rule 'hoist-loop-invariant': 1 instance(s), max abs 0, {{.*}}: ok
// VERIFY: rule 'reduce_max-of-ys-to-carry': 1 instance(s), max abs 0, {{.*}}: ok
func.func @f(%w: tensor<4xf32>, %c0: tensor<4xf32>, %xs: tensor<6x4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %c, %ys = lax.scan length = 6 consts(%w) carry(%c0) xs(%xs)
      : (tensor<4xf32>, tensor<4xf32>, tensor<6x4xf32>) -> (tensor<4xf32>, tensor<6x4xf32>) {
  ^bb0(%wc: tensor<4xf32>, %carry: tensor<4xf32>, %x: tensor<4xf32>):
    %e = lax.exp %wc : tensor<4xf32>
    %m = lax.mul %e, %x : tensor<4xf32>
    %s = lax.add %carry, %m : tensor<4xf32>
    lax.yield %s, %m : tensor<4xf32>, tensor<4xf32>
  }
  %sum = lax.reduce_sum %ys axes = [0] : tensor<6x4xf32> -> tensor<4xf32>
  %max = lax.reduce_max %ys axes = [0] : tensor<6x4xf32> -> tensor<4xf32>
  return %sum, %max : tensor<4xf32>, tensor<4xf32>
}
