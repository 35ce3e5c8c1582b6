// Seed 000, f1: `w @ a` under a double vmap. JAX emits a dot_general whose
// result puts w's free dimension first, then a transpose to the vmapped order.
// XLA:CPU runs this 2x slower than the einsum form (seed000_f2.mlir).
func.func @f1(%w: tensor<600x821xf32>, %a: tensor<32x100x821xf32>) -> tensor<32x100x600xf32> {
  %f = lax.dot_general %w, %a contracting = [1] x [2] batch = [] x []
      : (tensor<600x821xf32>, tensor<32x100x821xf32>) -> tensor<600x32x100xf32>
  %g = lax.transpose %f permutation = [1, 2, 0] : tensor<600x32x100xf32> -> tensor<32x100x600xf32>
  return %g : tensor<32x100x600xf32>
}
