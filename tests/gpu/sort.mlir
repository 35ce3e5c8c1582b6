// The GPU pipeline sorts by ranks (kiln-expand-sort, at most 4,096 elements
// an axis: an [n, n] comparison per row, no runtime call on the host); a
// longer axis is an error at the op, since the CPU runtime's sort cannot
// read device buffers.
// RUN: split-file %s %t
// RUN: kiln-opt --kiln-lower-gpu %t/short.mlir | FileCheck %s --check-prefix=SHORT
// RUN: not kiln-opt --kiln-lower-gpu %t/long.mlir 2>&1 | FileCheck %s --check-prefix=LONG

// SHORT: gpu.binary
// SHORT-NOT: kiln_rt_sort
//--- short.mlir
func.func @main(%x: tensor<8x300xf32>) -> (tensor<8x5xf32>, tensor<8x5xi32>) {
  %v, %i = lax.top_k %x k = 5 axis = 1 : tensor<8x300xf32>
  return %v, %i : tensor<8x5xf32>, tensor<8x5xi32>
}

// LONG: long.mlir:2:8: error: 'lax.sort' along an axis of 5000 elements: this pipeline sorts by comparing every pair, at most 4096 elements (the CPU pipeline sorts any length)
//--- long.mlir
func.func @main(%x: tensor<8x5000xf32>) -> tensor<8x5000xf32> {
  %s = lax.sort %x dimension = 1 num_keys = 1 : tensor<8x5000xf32>
  return %s : tensor<8x5000xf32>
}
