// RUN: kiln-opt %s --rules=%kiln_src/rules/library/transpose.yaml --rule-explain=transpose-into-dot-lhs -o /dev/null 2>&1 | FileCheck %s
// RUN: kiln-opt %s --rules=%kiln_src/rules/library/broadcast-reduce.yaml --rule-explain=reduce-sum-of-reduce-sum -o /dev/null 2>&1 | FileCheck %s --check-prefix=TAGS

func.func @reorders(%x: tensor<3x4x5xf32>, %y: tensor<5x6xf32>) -> tensor<4x3x6xf32> {
  %t = lax.transpose %x permutation = [1, 0, 2] : tensor<3x4x5xf32> -> tensor<4x3x5xf32>
  // CHECK: explain.mlir:[[@LINE+1]]:8: remark: rule 'transpose-into-dot-lhs' does not match: where #1 `keeps_free_dims_order($p, $lc, $lb)` is false
  %d = lax.dot_general %t, %y contracting = [2] x [0] batch = [] x []
      : (tensor<4x3x5xf32>, tensor<5x6xf32>) -> tensor<4x3x6xf32>
  return %d : tensor<4x3x6xf32>
}

func.func @no_transpose(%x: tensor<4x5xf32>, %y: tensor<5x6xf32>) -> tensor<4x6xf32> {
  // CHECK: explain.mlir:[[@LINE+1]]:8: remark: rule 'transpose-into-dot-lhs' does not match: operand #0 of node 'dot' is a block argument, not node 't'
  %d = lax.dot_general %x, %y contracting = [1] x [0] batch = [] x []
      : (tensor<4x5xf32>, tensor<5x6xf32>) -> tensor<4x6xf32>
  return %d : tensor<4x6xf32>
}

func.func @neg_lhs(%x: tensor<4x5xf32>, %y: tensor<5x6xf32>) -> tensor<4x6xf32> {
  %n = lax.neg %x : tensor<4x5xf32>
  // CHECK: explain.mlir:[[@LINE+1]]:8: remark: rule 'transpose-into-dot-lhs' does not match: node 't' expects 'lax.transpose' but found 'lax.neg'
  %d = lax.dot_general %n, %y contracting = [1] x [0] batch = [] x []
      : (tensor<4x5xf32>, tensor<5x6xf32>) -> tensor<4x6xf32>
  return %d : tensor<4x6xf32>
}

func.func @sums(%x: tensor<2x3x4xf32>) -> tensor<4xf32> {
  // TAGS: remark: rule 'reduce-sum-of-reduce-sum' does not match: node 'inner' expects 'lax.reduce_sum' but found 'lax.transpose'
  %t = lax.transpose %x permutation = [1, 0, 2] : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
  %0 = lax.reduce_sum %t axes = [0] : tensor<3x2x4xf32> -> tensor<2x4xf32>
  %1 = lax.reduce_sum %0 axes = [0] : tensor<2x4xf32> -> tensor<4xf32>
  // TAGS: remark: rule 'reduce-sum-of-reduce-sum' matches but is disabled by its tags; enable them with --rule-tags=+reassociates-float
  return %1 : tensor<4xf32>
}
