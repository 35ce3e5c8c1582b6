// Region rules on lax.while and lax.cond (rules/library/loops.yaml):
// hoisting out of a while, removing unused while carries and consts,
// hoisting what every cond branch computes, removing unused cond results and
// operands. The rewritten IR is checked here; each rewritten function runs
// in the interpreter against the ORIGINAL program (kiln-run --check
// --interpret), and kiln-verify-rules checks every rule alone.
// RUN: kiln-opt %S/Inputs/while-cond-corpus.mlir --rules=%kiln_src/rules/library/loops.yaml | FileCheck %s
// RUN: kiln-opt %S/Inputs/while-cond-corpus.mlir --rules=%kiln_src/rules/library/loops.yaml --rule-stats -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: kiln-opt %S/Inputs/while-cond-corpus.mlir --rules=%kiln_src/rules/library/loops.yaml | kiln-opt | FileCheck %s
// RUN: kiln-verify-rules --rules=%kiln_src/rules/library/loops.yaml %S/Inputs/while-cond-corpus.mlir | FileCheck %s --check-prefix=VERIFY
// RUN: kiln-verify-rules --rules=%S/Inputs/neg-neg.yaml %S/Inputs/while-cond-corpus.mlir | FileCheck %s --check-prefix=NONE
// RUN: for f in while_unused_carry while_carry_in_cond while_hoist_then_const cond_hoist cond_not_in_every_branch cond_unused_result \
// RUN:          while_unused_const cond_unused_operand; do \
// RUN:   kiln-run %S/Inputs/while-cond-corpus.mlir --entry=$f --rules=%kiln_src/rules/library/loops.yaml --random-inputs --check --interpret || exit 1; \
// RUN: done | FileCheck %s --check-prefix=INTERP

// The carry that feeds only itself goes, and the mul/add that computed it.
// CHECK-LABEL: func.func @while_unused_carry
// CHECK: lax.while cond_consts(%{{.*}}) carry(%arg0, %{{.*}}) : (tensor<i32>, tensor<4xf32>, tensor<i32>) -> (tensor<4xf32>, tensor<i32>)
// CHECK: } body {
// CHECK-NEXT: ^bb0(%[[V:.*]]: tensor<4xf32>, %{{.*}}: tensor<i32>):
// CHECK-NEXT: lax.sin %[[V]]
// CHECK-NOT: lax.mul
// CHECK: return

// A carry the cond region reads and a carry returned stay.
// CHECK-LABEL: func.func @while_carry_in_cond
// CHECK: lax.while carry(%arg0, %{{.*}}, %arg1) : (tensor<4xf32>, tensor<i32>, tensor<f32>) -> (tensor<4xf32>, tensor<i32>, tensor<f32>)

// exp(w) is computed before the loop; the body const w is gone.
// CHECK-LABEL: func.func @while_hoist_then_const
// CHECK: %[[E:.*]] = lax.exp %arg0 : tensor<4xf32>
// CHECK-NEXT: lax.while cond_consts(%{{.*}}) carry(%arg1, %arg2) : (tensor<i32>, tensor<4xf32>, tensor<i32>)
// CHECK: } body {
// CHECK-NEXT: ^bb0(%[[V:.*]]: tensor<4xf32>, %{{.*}}: tensor<i32>):
// CHECK-NEXT: lax.add %[[V]], %[[E]]

// exp(a) (a branch argument: the cond's operand) and neg(w) (from outside)
// are computed once before the cond; the operand a, no longer read, goes.
// CHECK-LABEL: func.func @cond_hoist
// CHECK: %[[E:.*]] = lax.exp %arg1 : tensor<4xf32>
// CHECK-NEXT: %[[N:.*]] = lax.neg %arg2 : tensor<4xf32>
// CHECK-NEXT: lax.cond %arg0 () : (tensor<i32>) -> tensor<4xf32>
// CHECK-NEXT: branch 0 {
// CHECK-NEXT: lax.mul %[[E]], %[[N]]
// CHECK: } branch 1 {
// CHECK-NEXT: lax.add %[[E]], %[[N]]

// exp(a), in every branch, is hoisted; tanh(a), in two of three, stays.
// CHECK-LABEL: func.func @cond_not_in_every_branch
// CHECK: %[[E:.*]] = lax.exp %arg1
// CHECK-NEXT: lax.cond %arg0 (%arg1)
// CHECK: lax.tanh
// CHECK: lax.tanh
// CHECK: branch 2 {
// CHECK-NEXT: ^bb0
// CHECK-NEXT: lax.yield %[[E]]

// The unread result and what computed it are gone, then the unread operand.
// CHECK-LABEL: func.func @cond_unused_result
// CHECK: lax.cond %arg0 (%arg1) : (tensor<i32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NOT: lax.mul
// CHECK-NOT: lax.abs
// CHECK: return

// CHECK-LABEL: func.func @while_unused_const
// CHECK: lax.while cond_consts(%{{.*}}) carry(%arg2, %{{.*}}) : (tensor<i32>, tensor<4xf32>, tensor<i32>) -> (tensor<4xf32>, tensor<i32>)
// CHECK-NEXT: cond {
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<i32>, %{{.*}}: tensor<4xf32>, %{{.*}}: tensor<i32>):
// CHECK: } body {
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<4xf32>, %{{.*}}: tensor<i32>):

// CHECK-LABEL: func.func @cond_unused_operand
// CHECK: lax.cond %arg0 (%arg1) : (tensor<i1>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: branch 0 {
// CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<4xf32>):
// CHECK-NEXT: lax.sin %[[A]]

// STATS: hoist-common-from-cond: 3
// STATS: hoist-loop-invariant-from-while: 1
// STATS: remove-unused-cond-operand: 3
// STATS: remove-unused-cond-result: 1
// STATS: remove-unused-while-carry: 1
// STATS: remove-unused-while-const: 3

// VERIFY-NOT: UNSOUND
// VERIFY: rule 'remove-unused-while-carry': 1 instance(s), max abs 0, max rel 0, max ulp 0: ok
// VERIFY: rule 'remove-unused-while-const': 1 instance(s), max abs 0, max rel 0, max ulp 0: ok
// VERIFY: rule 'hoist-common-from-cond': 2 instance(s), max abs 0, max rel 0, max ulp 0: ok
// VERIFY: rule 'remove-unused-cond-result': 1 instance(s), max abs 0, max rel 0, max ulp 0: ok
// VERIFY: rule 'remove-unused-cond-operand': 1 instance(s), max abs 0, max rel 0, max ulp 0: ok

// Constants in while and cond regions are no instance of a rule that does
// not apply (the driver's constant CSE moved them out).
// NONE: rule 'neg-neg': 0 instance(s): no instance in the corpus

// INTERP-COUNT-9: matches (all equal)
// INTERP-NOT: DIFFERS
