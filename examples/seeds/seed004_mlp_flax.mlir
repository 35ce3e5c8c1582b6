// Seed 004: Flax's MLP 4-64-64-2 with relu, batch 1. Weights are stored
// [in, out] so each layer is dot_general(x, W) contracting [0] x [0].
func.func private @relu(%a: tensor<64xf32>) -> tensor<64xf32> {
  %zero = lax.constant dense<0.0> : tensor<64xf32>
  %b = lax.max %a, %zero : tensor<64xf32>
  return %b : tensor<64xf32>
}

func.func @mlp(%x: tensor<4xf32>, %w1: tensor<4x64xf32>, %b1: tensor<64xf32>,
               %w2: tensor<64x64xf32>, %b2: tensor<64xf32>,
               %w3: tensor<64x2xf32>, %b3: tensor<2xf32>) -> tensor<2xf32> {
  %l = lax.dot_general %x, %w1 contracting = [0] x [0] batch = [] x []
      : (tensor<4xf32>, tensor<4x64xf32>) -> tensor<64xf32>
  %m = lax.add %l, %b1 : tensor<64xf32>
  %n = func.call @relu(%m) : (tensor<64xf32>) -> tensor<64xf32>
  %q = lax.dot_general %n, %w2 contracting = [0] x [0] batch = [] x []
      : (tensor<64xf32>, tensor<64x64xf32>) -> tensor<64xf32>
  %r = lax.add %q, %b2 : tensor<64xf32>
  %s = func.call @relu(%r) : (tensor<64xf32>) -> tensor<64xf32>
  %v = lax.dot_general %s, %w3 contracting = [0] x [0] batch = [] x []
      : (tensor<64xf32>, tensor<64x2xf32>) -> tensor<2xf32>
  %w = lax.add %v, %b3 : tensor<2xf32>
  return %w : tensor<2xf32>
}
