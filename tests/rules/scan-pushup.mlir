// Seed 002's push-up as YAML region rules alone (examples/rules/scan_pushup.yaml
// includes rules/library/scan-pushup.yaml): the same IR as the built-in pass.
// RUN: kiln-opt %examples/seeds/seed002_mse_before.mlir --rules=%examples/rules/scan_pushup.yaml --rule-tags=+reassociates-float --kiln-apply-rules --canonicalize | FileCheck %s --check-prefix=REASSOC
// RUN: kiln-opt %examples/seeds/seed002_mse_before.mlir --rules=%examples/rules/scan_pushup.yaml --kiln-apply-rules --canonicalize | FileCheck %s --check-prefix=EXACT
// RUN: kiln-opt %examples/seeds/seed002_mse_before.mlir --rules=%examples/rules/scan_pushup.yaml --rule-tags=+reassociates-float --rule-stats -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS

// The squared error is summed in a carry; nothing 30x15x12 leaves the scan.
// REASSOC: %[[ZERO:.*]] = lax.constant dense<0.000000e+00> : tensor<f32>
// REASSOC: %[[S:.*]] = lax.scan length = 30 carry(%[[ZERO]]) xs(%arg1, %arg2)
// REASSOC-SAME: -> tensor<f32>
// REASSOC-NOT: lax.sin
// REASSOC: lax.sub
// REASSOC: lax.integer_pow
// REASSOC: lax.reduce_sum %{{.*}} axes = [0, 1] : tensor<15x12xf32> -> tensor<f32>
// REASSOC: lax.add
// REASSOC: lax.div %[[S]]
// REASSOC-NOT: lax.reduce_sum

// Exact only: the elementwise chain moves in, the float sum stays outside.
// EXACT: lax.scan length = 30 carry() xs(%arg1, %arg2)
// EXACT: lax.integer_pow {{.*}} : tensor<15x12xf32>
// EXACT: lax.reduce_sum %{{.*}} axes = [0, 1, 2] : tensor<30x15x12xf32> -> tensor<f32>

// STATS: reduce_sum-float-of-ys-into-scan-body: 1
// STATS: reduce_sum-float-of-ys-to-carry: 1
// STATS: sink-elementwise-into-scan: 2

// The rules give exactly the IR of the built-in --kiln-scan-pushup (C++),
// with and without reassociation:
// RUN: kiln-opt %examples/seeds/seed002_mse_before.mlir --rules=%examples/rules/scan_pushup.yaml --rule-tags=+reassociates-float --kiln-apply-rules --canonicalize -o %t.rules.mlir
// RUN: kiln-opt %examples/seeds/seed002_mse_before.mlir --kiln-scan-pushup=reassociate=true --canonicalize -o %t.builtin.mlir
// RUN: diff %t.rules.mlir %t.builtin.mlir
// RUN: kiln-opt %examples/seeds/seed002_mse_before.mlir --rules=%examples/rules/scan_pushup.yaml --kiln-apply-rules --canonicalize -o %t.rules-exact.mlir
// RUN: kiln-opt %examples/seeds/seed002_mse_before.mlir --kiln-scan-pushup --canonicalize -o %t.builtin-exact.mlir
// RUN: diff %t.rules-exact.mlir %t.builtin-exact.mlir
// RUN: kiln-opt %kiln_src/tests/transforms/scan-pushup.mlir --rules=%examples/rules/scan_pushup.yaml --rule-tags=+reassociates-float --kiln-apply-rules --canonicalize -o %t.rules-t.mlir
// RUN: kiln-opt %kiln_src/tests/transforms/scan-pushup.mlir --kiln-scan-pushup=reassociate=true --canonicalize -o %t.builtin-t.mlir
// RUN: diff %t.rules-t.mlir %t.builtin-t.mlir
