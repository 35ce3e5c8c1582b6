// Rule expressions nested deeper than 256 levels are a located load error
// (100k nested parentheses overflowed the expression parser's stack; a long
// chain of `+` the evaluator's).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "print('- name: deep\n  match:\n    root: lax.neg(\$x)\n  where:\n    - ' + '(' * 100000 + '1' + ')' * 100000 + ' == 1\n  rewrite:\n    root: \$x')" > %t/parens.yaml
// RUN: not kiln-opt %s --rules=%t/parens.yaml 2>&1 | FileCheck %s --check-prefix=PARENS --implicit-check-not=error:
// RUN: %python -c "print('- name: deep\n  match:\n    root: lax.neg(\$x)\n  where:\n    - ' + ' + '.join(['1'] * 100000) + ' > 0\n  rewrite:\n    root: \$x')" > %t/chain.yaml
// RUN: not kiln-opt %s --rules=%t/chain.yaml 2>&1 | FileCheck %s --check-prefix=CHAIN --implicit-check-not=error:
// RUN: %python -c "print('- name: deep\n  match:\n    root: lax.neg(\$x)\n  where:\n    - \"' + '!' * 100000 + 'true\"\n  rewrite:\n    root: \$x')" > %t/not.yaml
// RUN: not kiln-opt %s --rules=%t/not.yaml 2>&1 | FileCheck %s --check-prefix=NOT --implicit-check-not=error:
// RUN: %python -c "print('- name: deep\n  match:\n    root: ' + 'lax.neg(' * 100000 + '\$x' + ')' * 100000 + '\n  rewrite:\n    root: \$x')" > %t/ops.yaml
// RUN: not kiln-opt %s --rules=%t/ops.yaml 2>&1 | FileCheck %s --check-prefix=OPS --implicit-check-not=error:
// Within the limit: 200 levels load and match.
// RUN: %python -c "print('- name: ok\n  match:\n    root: lax.neg(\$x)\n  where:\n    - ' + '(' * 200 + '1' + ')' * 200 + ' + ' + ' + '.join(['0'] * 200) + ' == 1\n  rewrite:\n    root: \$x')" > %t/ok.yaml
// RUN: kiln-opt %s --rules=%t/ok.yaml | FileCheck %s --check-prefix=OK

// PARENS: parens.yaml:5:{{[0-9]+}}: error: {{.*}}nesting deeper than 256 levels in an expression
// CHAIN: chain.yaml:5:{{[0-9]+}}: error: {{.*}}expression nested deeper than 256 levels
// NOT: not.yaml:5:{{[0-9]+}}: error: {{.*}}nesting deeper than 256 levels in an expression
// OPS: ops.yaml:3:{{[0-9]+}}: error: {{.*}}nesting deeper than 256 levels in an expression
// OK: return %arg0

func.func @f(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = lax.neg %x : tensor<3xf32>
  return %0 : tensor<3xf32>
}
