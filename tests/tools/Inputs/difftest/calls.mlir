// Calls for the reducer's inliner: one in a scan body, a callee called
// twice, a callee that calls another, a result that is an argument, value
// names shared between the callees and @main.
func.func private @twice(%a0: tensor<3xf32>) -> (tensor<3xf32>) {
  %v1 = lax.add %a0, %a0 : tensor<3xf32>
  return %v1 : tensor<3xf32>
}
func.func private @pair(%a0: tensor<3xf32>, %a1: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %v1 = func.call @twice(%a1) : (tensor<3xf32>) -> (tensor<3xf32>)
  %v2 = lax.mul %v1, %a0 : tensor<3xf32>
  return %v2, %a0 : tensor<3xf32>, tensor<3xf32>
}
func.func @main(%arg0: tensor<3xf32>, %arg1: tensor<4x3xf32>) -> (tensor<3xf32>, tensor<4x3xf32>, tensor<3xf32>) {
  %v1 = func.call @twice(%arg0) : (tensor<3xf32>) -> (tensor<3xf32>)
  %v2, %v3 = func.call @pair(%v1, %arg0) : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  %v4, %v5 = lax.scan length = 4 carry(%v2) xs(%arg1) : (tensor<3xf32>, tensor<4x3xf32>) -> (tensor<3xf32>, tensor<4x3xf32>) {
  ^bb0(%a0: tensor<3xf32>, %a1: tensor<3xf32>):
    %v7 = func.call @twice(%a1) : (tensor<3xf32>) -> (tensor<3xf32>)
    %v8 = lax.sub %a0, %v7 : tensor<3xf32>
    lax.yield %v8, %v7 : tensor<3xf32>, tensor<3xf32>
  }
  %v6 = lax.div %v4, %v3 : tensor<3xf32>
  return %v6, %v5, %v3 : tensor<3xf32>, tensor<4x3xf32>, tensor<3xf32>
}
