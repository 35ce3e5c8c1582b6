// Found by tests/differential (generated programs 120474 and 119617, reduced
// by run.py --reduce; scatter.mlir by hand from 120474): the JIT returned a
// batch-parallel scan's result with the writes of a later in-place update in
// it (a scatter into it, a loop carry started from a slice of it). The
// scan's result is a memref wrapped by `to_tensor restrict writable`; one-
// shot bufferization let the consumer write into that memref, while the DPS
// wrapper's to_buffer(to_tensor(memref)) had folded to the memref itself,
// copied to the output after the write. The scan's result is no longer
// writable (lowering/ParallelScanEmitter.cpp): an in-place consumer gets a
// copy. The JIT agrees with the reference interpreter.
// RUN: split-file %s %t
// RUN: kiln-run %t/scatter.mlir --random-inputs --check --no-cache | FileCheck %s
// RUN: kiln-run %t/carry.mlir --random-inputs --check --no-cache | FileCheck %s
// CHECK-NOT: DIFFERS
// CHECK: worst error: 0 x bound

//--- scatter.mlir
func.func @main(%x: tensor<3x3xi8>, %u0: tensor<3x3xi8>) -> (tensor<3x3xi8>, tensor<3x3xi8>) {
  %u = lax.scan length = 1 carry(%u0) xs() : (tensor<3x3xi8>) -> tensor<3x3xi8> {
  ^bb0(%a: tensor<3x3xi8>):
    lax.yield %a : tensor<3x3xi8>
  }
  %i = lax.constant dense<1> : tensor<i32>
  %j = lax.constant dense<-1> : tensor<i32>
  %d = lax.dynamic_update_slice %x[%i, %j], %u : (tensor<3x3xi8>, tensor<3x3xi8>, tensor<i32>, tensor<i32>) -> tensor<3x3xi8>
  %idx = lax.constant dense<[[1]]> : tensor<1x1xi32>
  %up = lax.constant dense<[[-3, -3, -3]]> : tensor<1x3xi8>
  %s = lax.scatter set %d[%idx], %up update_window_dims = [1] inserted_window_dims = [0] scatter_dims_to_operand_dims = [0] mode = clip : (tensor<3x3xi8>, tensor<1x1xi32>, tensor<1x3xi8>) -> tensor<3x3xi8>
  return %d, %s : tensor<3x3xi8>, tensor<3x3xi8>
}

//--- carry.mlir
func.func private @callee0(%a45: tensor<1x3xi32>) -> (tensor<1x3xi32>) {
  %v46 = lax.reshape %a45 : tensor<1x3xi32> -> tensor<1x3xi32>
  return %v46 : tensor<1x3xi32>
}
func.func @main() -> (tensor<1x5x4xui32>, tensor<1x3xi32>, tensor<i32>, tensor<1x1xi32>) {
  %cutc48 = lax.constant dense<33> : tensor<i32>
  %cutv44 = lax.constant dense<[[[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]]> : tensor<1x5x4xui32>
  %cutc24 = lax.constant dense<[[64, 64, 64], [64, 64, 64], [64, 64, 64]]> : tensor<3x3xi64>
  %arg2 = lax.constant dense<[[-2, -6, 5]]> : tensor<1x3xi32>
  %arg1 = lax.constant dense<[2, 1, 64]> : tensor<3xi64>
  %v9, %v10, %v11, %v12 = lax.scan length = 3 consts(%arg2) carry(%arg1, %arg2) xs(%arg2) {xs_axes = array<i64: 1>} : (tensor<1x3xi32>, tensor<3xi64>, tensor<1x3xi32>, tensor<1x3xi32>) -> (tensor<3xi64>, tensor<1x3xi32>, tensor<3x3xi32>, tensor<3x1xbf16>) {
  ^bb0(%a2: tensor<1x3xi32>, %a3: tensor<3xi64>, %a4: tensor<1x3xi32>, %a5: tensor<1xi32>):
    %v6 = lax.reduce_prod %a2 axes = [0, 1] : tensor<1x3xi32> -> tensor<i32>
    %c7 = lax.constant dense<[-4, -6, -1]> : tensor<3xi32>
    %v8 = lax.convert_element_type %a5 : tensor<1xi32> -> tensor<1xbf16>
    lax.yield %arg1, %a4, %c7, %v8 : tensor<3xi64>, tensor<1x3xi32>, tensor<3xi32>, tensor<1xbf16>
  }
  %v13 = lax.slice %v10 start = [0, 1] limit = [1, 2] strides = [2, 3] : tensor<1x3xi32> -> tensor<1x1xi32>
  %v30 = lax.reshape %v13 : tensor<1x1xi32> -> tensor<1x1xi32>
  %v40, %v41, %v42 = lax.scan length = 5 consts(%v30) carry(%cutc24, %v30) xs() {ys_axes = array<i64: 1>} : (tensor<1x1xi32>, tensor<3x3xi64>, tensor<1x1xi32>) -> (tensor<3x3xi64>, tensor<1x1xi32>, tensor<4x5x1xui32>) {
  ^bb0(%a31: tensor<1x1xi32>, %a32: tensor<3x3xi64>, %a33: tensor<1x1xi32>):
    %v34 = lax.reshape %a33 : tensor<1x1xi32> -> tensor<1x1x1xi32>
    %v35 = lax.dot_general %a33, %v34 contracting = [0] x [1] batch = [1] x [2] : (tensor<1x1xi32>, tensor<1x1x1xi32>) -> tensor<1x1xi32>
    %v36 = lax.or %v35, %v35 : tensor<1x1xi32>
    %v37 = lax.sign %v35 : tensor<1x1xi32>
    %v38 = lax.broadcast_in_dim %v37 shape = [1, 1, 1] dims = [1, 2] : tensor<1x1xi32> -> tensor<1x1x1xi32>
    %c39 = lax.constant dense<[[1], [5], [8], [6]]> : tensor<4x1xui32>
    lax.yield %a32, %v37, %c39 : tensor<3x3xi64>, tensor<1x1xi32>, tensor<4x1xui32>
  }
  %v47 = func.call @callee0(%v10) : (tensor<1x3xi32>) -> (tensor<1x3xi32>)
  %v49 = lax.add %v41, %v41 : tensor<1x1xi32>
  return %cutv44, %v47, %cutc48, %v49 : tensor<1x5x4xui32>, tensor<1x3xi32>, tensor<i32>, tensor<1x1xi32>
}
