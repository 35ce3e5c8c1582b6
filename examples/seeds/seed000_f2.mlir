// Seed 000, f2: the same batched matvec as f1 written as
// jnp.einsum('a b, ... b -> ... a', w, a): operands swapped, no transpose.
func.func @f2(%w: tensor<600x821xf32>, %a: tensor<32x100x821xf32>) -> tensor<32x100x600xf32> {
  %f = lax.dot_general %a, %w contracting = [2] x [1] batch = [] x []
      : (tensor<32x100x821xf32>, tensor<600x821xf32>) -> tensor<32x100x600xf32>
  return %f : tensor<32x100x600xf32>
}
