// Integer arithmetic in rules is checked: an overflow, a division by zero or
// a range too long makes the evaluation fail and the rule not match (with a
// note under --rule-explain), instead of SIGFPE, UB or std::length_error.
// RUN: kiln-opt %s --rules=%S/Inputs/eval-limits.yaml --rule-stats 2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.err
// RUN: kiln-opt %s --rules=%S/Inputs/eval-limits.yaml --rule-explain=div-overflow -o /dev/null 2>&1 | FileCheck %s --check-prefix=DIV
// RUN: kiln-opt %s --rules=%S/Inputs/eval-limits.yaml --rule-explain=add-overflow -o /dev/null 2>&1 | FileCheck %s --check-prefix=ADD
// RUN: kiln-opt %s --rules=%S/Inputs/eval-limits.yaml --rule-explain=mul-overflow -o /dev/null 2>&1 | FileCheck %s --check-prefix=MUL
// RUN: kiln-opt %s --rules=%S/Inputs/eval-limits.yaml --rule-explain=neg-overflow -o /dev/null 2>&1 | FileCheck %s --check-prefix=NEG
// RUN: kiln-opt %s --rules=%S/Inputs/eval-limits.yaml --rule-explain=div-by-zero -o /dev/null 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: kiln-opt %s --rules=%S/Inputs/eval-limits.yaml --rule-explain=huge-range -o /dev/null 2>&1 | FileCheck %s --check-prefix=RANGE

// CHECK-LABEL: func.func @f
// CHECK-NEXT: lax.neg %arg0
// CHECK-NEXT: lax.sign
func.func @f(%x: tensor<1xf32>) -> (tensor<1xf32>, tensor<1xf32>) {
  %0 = lax.neg %x : tensor<1xf32>
  %1 = lax.abs %x : tensor<1xf32>
  return %0, %1 : tensor<1xf32>, tensor<1xf32>
}

// STATS: add-overflow: 0
// STATS: arithmetic-that-fits: 1
// STATS: div-by-zero: 0
// STATS: div-overflow: 0
// STATS: huge-range: 0
// STATS: large-range: 0
// STATS: mul-overflow: 0
// STATS: neg-overflow: 0
// STATS: rem-overflow: 0
// STATS: sub-overflow: 0
// DIV: remark: rule 'div-overflow' does not match: {{.*}}integer overflow in -9223372036854775808 / -1
// ADD: remark: rule 'add-overflow' does not match: {{.*}}integer overflow in 9223372036854775807 + 1
// MUL: remark: rule 'mul-overflow' does not match: {{.*}}integer overflow in 4611686018427387904 * 2
// NEG: remark: rule 'neg-overflow' does not match: {{.*}}integer overflow in -(-9223372036854775808)
// ZERO: remark: rule 'div-by-zero' does not match: {{.*}}division by zero
// RANGE: remark: rule 'huge-range' does not match: {{.*}}range(9223372036854775807) is longer than 1048576 elements
