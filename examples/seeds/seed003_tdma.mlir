// Seed 003: the tridiagonal matrix algorithm on many systems at once, as the
// seed writes it in JAX: diagonals transposed so the scan runs over axis 0,
// a forward scan computing (cp, dp), then a back-substitution scan over the
// reversed cp/dp, reversed and transposed back. Systems are rows: here 1000
// systems of size 100 (the seed uses 100000; bench/ generates that size).
func.func @tdma(%a: tensor<1000x100xf32>, %b: tensor<1000x100xf32>,
                %c: tensor<1000x100xf32>, %d: tensor<1000x100xf32>) -> tensor<1000x100xf32> {
  %at = lax.transpose %a permutation = [1, 0] : tensor<1000x100xf32> -> tensor<100x1000xf32>
  %bt = lax.transpose %b permutation = [1, 0] : tensor<1000x100xf32> -> tensor<100x1000xf32>
  %ct = lax.transpose %c permutation = [1, 0] : tensor<1000x100xf32> -> tensor<100x1000xf32>
  %dt = lax.transpose %d permutation = [1, 0] : tensor<1000x100xf32> -> tensor<100x1000xf32>
  %zero = lax.constant dense<0.0> : tensor<1000xf32>
  %lastcp, %lastdp, %cp, %dp = lax.scan length = 100 carry(%zero, %zero) xs(%at, %bt, %ct, %dt)
      : (tensor<1000xf32>, tensor<1000xf32>, tensor<100x1000xf32>, tensor<100x1000xf32>,
         tensor<100x1000xf32>, tensor<100x1000xf32>)
        -> (tensor<1000xf32>, tensor<1000xf32>, tensor<100x1000xf32>, tensor<100x1000xf32>) {
  ^bb0(%pcp: tensor<1000xf32>, %pdp: tensor<1000xf32>, %ai: tensor<1000xf32>,
       %bi: tensor<1000xf32>, %ci: tensor<1000xf32>, %di: tensor<1000xf32>):
    %one = lax.constant dense<1.0> : tensor<1000xf32>
    %acp = lax.mul %ai, %pcp : tensor<1000xf32>
    %den = lax.sub %bi, %acp : tensor<1000xf32>
    %inv = lax.div %one, %den : tensor<1000xf32>
    %cpi = lax.mul %ci, %inv : tensor<1000xf32>
    %adp = lax.mul %ai, %pdp : tensor<1000xf32>
    %num = lax.sub %di, %adp : tensor<1000xf32>
    %dpi = lax.mul %num, %inv : tensor<1000xf32>
    lax.yield %cpi, %dpi, %cpi, %dpi : tensor<1000xf32>, tensor<1000xf32>, tensor<1000xf32>, tensor<1000xf32>
  }
  %cpr = lax.rev %cp dims = [0] : tensor<100x1000xf32>
  %dpr = lax.rev %dp dims = [0] : tensor<100x1000xf32>
  %lastx, %sol = lax.scan length = 100 carry(%zero) xs(%cpr, %dpr)
      : (tensor<1000xf32>, tensor<100x1000xf32>, tensor<100x1000xf32>)
        -> (tensor<1000xf32>, tensor<100x1000xf32>) {
  ^bb0(%px: tensor<1000xf32>, %cpi: tensor<1000xf32>, %dpi: tensor<1000xf32>):
    %t = lax.mul %cpi, %px : tensor<1000xf32>
    %x = lax.sub %dpi, %t : tensor<1000xf32>
    lax.yield %x, %x : tensor<1000xf32>, tensor<1000xf32>
  }
  %solr = lax.rev %sol dims = [0] : tensor<100x1000xf32>
  %out = lax.transpose %solr permutation = [1, 0] : tensor<100x1000xf32> -> tensor<1000x100xf32>
  return %out : tensor<1000x100xf32>
}
