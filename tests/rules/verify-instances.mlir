// What kiln-verify-rules counts as an instance of a rule.
//
// @untouched: the greedy driver erases the dead neg without any rule; it
// is no instance (kiln-verify-rules once counted every function whose text
// the driver changed as an instance of every rule).
// @after_add_neg: exp(log a + -(log b)) is exp(log a - log b) only after
// collect.yaml's add-neg; each rule alone finds no instance of
// exp-log-ratio, --in-context finds it where the whole set leaves the
// function just before exp-log-ratio first applies.
// RUN: kiln-verify-rules --seeds=1 --rules=%kiln_src/rules/library/algebra/exp-log.yaml \
// RUN:   --rules=%kiln_src/rules/library/algebra/collect.yaml %s | FileCheck %s --check-prefix=ALONE
// RUN: kiln-verify-rules --seeds=1 --in-context --rules=%kiln_src/rules/library/algebra/exp-log.yaml \
// RUN:   --rules=%kiln_src/rules/library/algebra/collect.yaml %s | FileCheck %s --check-prefix=CONTEXT
// ALONE: rule 'exp-log-ratio' {{.*}}: 0 instance(s): no instance in the corpus
// ALONE: rule 'add-neg': 1 instance(s)
// CONTEXT: rule 'exp-log-ratio' {{.*}}: 1 instance(s), {{.*}}: ok
// CONTEXT: rule 'add-neg': 1 instance(s)
func.func @untouched(%a: tensor<4xf32>) -> tensor<4xf32> {
  %dead = lax.neg %a : tensor<4xf32>
  %0 = lax.tanh %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}

func.func @after_add_neg(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = lax.log %a : tensor<4xf32>
  %1 = lax.log %b : tensor<4xf32>
  %2 = lax.neg %1 : tensor<4xf32>
  %3 = lax.add %0, %2 : tensor<4xf32>
  %4 = lax.exp %3 : tensor<4xf32>
  return %4 : tensor<4xf32>
}
