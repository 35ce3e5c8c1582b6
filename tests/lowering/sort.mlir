// lax.sort and lax.top_k through the CPU lowering (lowering/ExpandSort.cpp,
// LaxToLinalgSort.cpp): short axes by ranks, long ones with float keys as
// integers in their total order and sorted by the runtime; the values
// (checked against the interpreter, exactly) are the same either way.
// RUN: kiln-opt --kiln-expand-sort %s | FileCheck %s --check-prefix=EXPAND
// RUN: kiln-opt --kiln-expand-sort --kiln-lax-to-linalg %s | FileCheck %s --check-prefix=LINALG
// RUN: kiln-run %s --entry long --random-inputs --no-cache --check | FileCheck %s --check-prefix=EXEC
// RUN: kiln-run %s --entry long --random-inputs --no-cache --check --sort-rank-max-length=64 | FileCheck %s --check-prefix=EXEC
// RUN: kiln-run %s --entry top --random-inputs --no-cache --check | FileCheck %s --check-prefix=EXEC
// RUN: kiln-run %s --entry top --random-inputs --no-cache --check --sort-rank-max-length=64 | FileCheck %s --check-prefix=EXEC
// RUN: kiln-run %s --entry long_int --random-inputs --no-cache --check | FileCheck %s --check-prefix=EXEC

// EXEC-NOT: DIFFERS
// EXEC: worst error: 0 x bound

// EXPAND-LABEL: func.func @short
// EXPAND-NOT: lax.sort
// EXPAND: lax.compare LT, {{.*}} : tensor<3x4x4xi32>
// EXPAND: lax.reduce_sum {{.*}} axes = [2] : tensor<3x4x4xi32> -> tensor<3x4xi32>
func.func @short(%x: tensor<3x4xf32>, %i: tensor<3x4xi32>) -> (tensor<3x4xf32>, tensor<3x4xi32>) {
  %s:2 = lax.sort %x, %i dimension = 1 num_keys = 1 : tensor<3x4xf32>, tensor<3x4xi32>
  return %s#0, %s#1 : tensor<3x4xf32>, tensor<3x4xi32>
}

// The bf16 key, canonicalized (-0 -> +0, NaN -> +NaN), as i16 in its total
// order, sorts the original operands carried behind it.
// EXPAND-LABEL: func.func @long
// EXPAND: lax.select_n
// EXPAND: %[[BITS:.*]] = lax.bitcast_convert_type %{{.*}} : tensor<3x40xbf16> -> tensor<3x40xi16>
// EXPAND: %[[KEY:.*]] = lax.xor %[[BITS]]
// EXPAND: %[[S:.*]]:3 = lax.sort %[[KEY]], %arg0, %arg1 dimension = 1 num_keys = 1
// EXPAND: return %[[S]]#1, %[[S]]#2
// LINALG-LABEL: func.func @long
// LINALG: arith.extsi %{{.*}} : i16 to i32
// LINALG: call @kiln_rt_sort_positions_i32(%{{.*}}, %{{.*}}) : (memref<?x?x?xi32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xi32, strided<[?, ?, ?], offset: ?>>) -> ()
// LINALG: tensor.extract %arg0
// LINALG: tensor.extract %arg1
func.func @long(%x: tensor<3x40xbf16>, %i: tensor<3x40xi32>) -> (tensor<3x40xbf16>, tensor<3x40xi32>) {
  %s:2 = lax.sort %x, %i dimension = 1 num_keys = 1 : tensor<3x40xbf16>, tensor<3x40xi32>
  return %s#0, %s#1 : tensor<3x40xbf16>, tensor<3x40xi32>
}

// Unsigned keys widen without a sign.
// EXPAND-LABEL: func.func @long_int
// EXPAND-NEXT: lax.sort %arg0 dimension = 0 num_keys = 1 : tensor<40xui32>
// LINALG-LABEL: func.func @long_int
// LINALG: arith.constant -2147483648 : i32
func.func @long_int(%x: tensor<40xui32>) -> tensor<40xui32> {
  %s = lax.sort %x dimension = 0 num_keys = 1 : tensor<40xui32>
  return %s : tensor<40xui32>
}

// top_k of floats: the top_k of their keys (not canonicalized), whose values
// map back to the floats' bits; the key is complemented so that the
// runtime's ascending order puts the largest first.
// EXPAND-LABEL: func.func @top
// EXPAND: %[[V:.*]], %[[I:.*]] = lax.top_k %{{.*}} k = 5 axis = 1 : tensor<2x40xi16>
// EXPAND: %[[F:.*]] = lax.bitcast_convert_type %{{.*}} : tensor<2x5xi16> -> tensor<2x5xf16>
// EXPAND: return %[[F]], %[[I]]
// LINALG-LABEL: func.func @top
// LINALG: arith.constant -1 : i32
// LINALG: call @kiln_rt_sort_positions_i32
func.func @top(%x: tensor<2x40xf16>) -> (tensor<2x5xf16>, tensor<2x5xi32>) {
  %v, %i = lax.top_k %x k = 5 axis = 1 : tensor<2x40xf16>
  return %v, %i : tensor<2x5xf16>, tensor<2x5xi32>
}
