// A misspelt tag is an error (it silently enabled nothing); the tags of the
// loaded rules and Kiln's own are known.
// RUN: not kiln-opt %s --rules=%S/Inputs/assumes-positive.yaml --rule-tags=+asumes-positive 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: kiln-opt %s --rules=%S/Inputs/assumes-positive.yaml --rule-tags=+assumes-positive | FileCheck %s --check-prefix=GOOD
// RUN: kiln-opt %s --rules=%S/Inputs/assumes-positive.yaml --rule-tags=+reassociates-float,-exact | FileCheck %s --check-prefix=NONE
// BAD: error: --rule-tags: unknown tag 'asumes-positive': no loaded rule has it
// GOOD-LABEL: func.func @f
// GOOD-NEXT: return %arg0
// NONE: lax.exp
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %l = lax.log %x : tensor<4xf32>
  %e = lax.exp %l : tensor<4xf32>
  return %e : tensor<4xf32>
}
