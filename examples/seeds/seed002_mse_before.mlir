// Seed 002, "before": mean((y - scan(f, c0, xs).ys) ** 2) with
// f(c, x) = (sin c, cos x). The stacked ys (30x15x12) is materialised and
// reduced afterwards.
func.func @mse(%c0: tensor<10x5x8xf32>, %xs: tensor<30x15x12xf32>,
               %y: tensor<30x15x12xf32>) -> tensor<f32> {
  %c, %ys = lax.scan length = 30 carry(%c0) xs(%xs)
      : (tensor<10x5x8xf32>, tensor<30x15x12xf32>) -> (tensor<10x5x8xf32>, tensor<30x15x12xf32>) {
  ^bb0(%carry: tensor<10x5x8xf32>, %x: tensor<15x12xf32>):
    %s = lax.sin %carry : tensor<10x5x8xf32>
    %cs = lax.cos %x : tensor<15x12xf32>
    lax.yield %s, %cs : tensor<10x5x8xf32>, tensor<15x12xf32>
  }
  %e = lax.sub %y, %ys : tensor<30x15x12xf32>
  %f = lax.integer_pow %e y = 2 : tensor<30x15x12xf32>
  %g = lax.reduce_sum %f axes = [0, 1, 2] : tensor<30x15x12xf32> -> tensor<f32>
  %n = lax.constant dense<5400.0> : tensor<f32>
  %h = lax.div %g, %n : tensor<f32>
  return %h : tensor<f32>
}
