// Found by tests/differential (generated program 649, reduced): the JIT
// segfaulted. A lax.cond of three branches, each yielding a constant, feeds
// a scan carry that a scatter updates in place. The cond was lowered to
// scf.index_switch, and MLIR 22's one-shot bufferization wrote through the
// switch's result into the constant a case yields (a read-only global);
// it copies an scf.if's result first, so lax.cond of N > 2 branches is now
// a chain of scf.if. Each index below (in range, the default's, out of
// range, negative) must give what the reference interpreter gives on the
// original program.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np, sys; [np.save(f'%t/i{v}.npy', np.array(v, np.int32)) for v in (0, 1, 2, 5, -1)]"
// RUN: for i in 0 1 2 5 -1; do kiln-run %s --interpret --inputs %t/i$i.npy --outputs %t/ref$i && kiln-run %s --no-cache --inputs %t/i$i.npy --expect %t/ref$i/out0.npy || exit 1; done

func.func @main(%i: tensor<i32>) -> (tensor<5x4xui32>) {
  %zero = lax.constant dense<0.0> : tensor<f64>
  %xs = lax.constant dense<[[127, 6], [0, 1], [-3, 2], [4, 0]]> : tensor<4x2xi8>
  %init = lax.cond %i () : (tensor<i32>) -> (tensor<5x4xui32>)
  branch 0 {
  ^bb0():
    %c = lax.constant dense<[[1, 3000000000, 5, 7], [1, 5, 3, 5], [7, 4, 8, 0], [1, 2, 4, 8], [5, 3000000000, 6, 4]]> : tensor<5x4xui32>
    lax.yield %c : tensor<5x4xui32>
  } branch 1 {
  ^bb0():
    %c = lax.constant dense<[[2147483648, 8, 4, 3000000000], [9, 4, 7, 1], [3, 5, 7, 0], [7, 9, 7, 9], [2147483647, 5, 5, 7]]> : tensor<5x4xui32>
    lax.yield %c : tensor<5x4xui32>
  } branch 2 {
  ^bb0():
    %c = lax.constant dense<[[9, 2, 9, 4294967295], [1, 7, 1, 8], [8, 4, 6, 3000000000], [5, 7, 1, 3], [9, 5, 4294967295, 4]]> : tensor<5x4xui32>
    lax.yield %c : tensor<5x4xui32>
  }
  %r, %s = lax.scan length = 2 carry(%init, %zero) xs(%xs) {xs_axes = array<i64: 1>} : (tensor<5x4xui32>, tensor<f64>, tensor<4x2xi8>) -> (tensor<5x4xui32>, tensor<f64>) {
  ^bb0(%a: tensor<5x4xui32>, %b: tensor<f64>, %x: tensor<4xi8>):
    %idx = lax.constant dense<[[-2], [-2], [2]]> : tensor<3x1xi32>
    %six = lax.constant dense<6> : tensor<3x4xui32>
    %m = lax.scatter max %a[%idx], %six update_window_dims = [1] inserted_window_dims = [0] scatter_dims_to_operand_dims = [0] mode = fill_or_drop : (tensor<5x4xui32>, tensor<3x1xi32>, tensor<3x4xui32>) -> tensor<5x4xui32>
    %one = lax.constant dense<1.0> : tensor<f64>
    lax.yield %m, %one : tensor<5x4xui32>, tensor<f64>
  }
  return %r : tensor<5x4xui32>
}
