// The while and cond rules of docs/rules.md's tutorial ("While loops and
// branches"), as written there (the first RUN line fails when the docs and
// Inputs/while-cond-tutorial.yaml differ), do what it says.
// RUN: %python -c "import re, sys; b = [x for x in re.findall(r'\`\`\`yaml\n(.*?)\`\`\`', open(sys.argv[1]).read(), re.S) if 'remove-unused-while-carry' in x]; sys.exit(len(b) != 1 or b[0] != open(sys.argv[2]).read())" %kiln_src/docs/rules.md %S/Inputs/while-cond-tutorial.yaml
// RUN: kiln-opt %S/Inputs/while-cond-corpus.mlir --rules=%S/Inputs/while-cond-tutorial.yaml | FileCheck %s
// RUN: kiln-opt %S/Inputs/while-cond-corpus.mlir --rules=%S/Inputs/while-cond-tutorial.yaml --rule-stats -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: kiln-verify-rules --rules=%S/Inputs/while-cond-tutorial.yaml %S/Inputs/while-cond-corpus.mlir | FileCheck %s --check-prefix=VERIFY

// CHECK-LABEL: func.func @while_unused_carry
// CHECK: lax.while cond_consts(%{{.*}}) carry(%arg0, %{{.*}}) : (tensor<i32>, tensor<4xf32>, tensor<i32>) -> (tensor<4xf32>, tensor<i32>)
// CHECK-LABEL: func.func @while_hoist_then_const
// CHECK: %[[E:.*]] = lax.exp %arg0
// CHECK: lax.add %{{.*}}, %[[E]]
// CHECK-LABEL: func.func @cond_hoist
// CHECK: lax.exp %arg1
// CHECK-NEXT: lax.neg %arg2
// CHECK-NEXT: lax.cond
// STATS: rule-stats:
// STATS-DAG: hoist-loop-invariant-from-while: 1
// STATS-DAG: remove-unused-while-carry: 1
// STATS-DAG: hoist-common-from-cond: 3

// VERIFY: rule 'hoist-loop-invariant-from-while': 1 instance(s), max abs 0, {{.*}}: ok
// VERIFY: rule 'remove-unused-while-carry': 1 instance(s), max abs 0, {{.*}}: ok
// VERIFY: rule 'hoist-common-from-cond': 2 instance(s), max abs 0, {{.*}}: ok
