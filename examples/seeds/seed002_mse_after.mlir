// Seed 002, "after", as the seed writes it by hand: y becomes a second xs,
// the squared error is reduced over the slice inside the body, and only the
// 30 partial sums are stacked and summed outside.
func.func @mse(%c0: tensor<10x5x8xf32>, %xs: tensor<30x15x12xf32>,
               %y: tensor<30x15x12xf32>) -> tensor<f32> {
  %c, %partial = lax.scan length = 30 carry(%c0) xs(%xs, %y)
      : (tensor<10x5x8xf32>, tensor<30x15x12xf32>, tensor<30x15x12xf32>)
        -> (tensor<10x5x8xf32>, tensor<30xf32>) {
  ^bb0(%carry: tensor<10x5x8xf32>, %x: tensor<15x12xf32>, %yi: tensor<15x12xf32>):
    %s = lax.sin %carry : tensor<10x5x8xf32>
    %cs = lax.cos %x : tensor<15x12xf32>
    %e = lax.sub %yi, %cs : tensor<15x12xf32>
    %f = lax.integer_pow %e y = 2 : tensor<15x12xf32>
    %g = lax.reduce_sum %f axes = [0, 1] : tensor<15x12xf32> -> tensor<f32>
    lax.yield %s, %g : tensor<10x5x8xf32>, tensor<f32>
  }
  %sum = lax.reduce_sum %partial axes = [0] : tensor<30xf32> -> tensor<f32>
  %n = lax.constant dense<5400.0> : tensor<f32>
  %h = lax.div %sum, %n : tensor<f32>
  return %h : tensor<f32>
}
