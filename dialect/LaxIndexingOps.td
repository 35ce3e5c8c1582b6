//===- LaxIndexingOps.td - lax indexing operations ---*- tablegen -*-===//
//
// Gather, scatter, sort and top_k: the ops that move elements to positions
// computed at run time. Generated apart from LaxOps.td (its own .inc files
// and header, dialect/LaxIndexingOps.h) so that only the code using these ops
// rebuilds when they change. Shape rules and verifiers live in
// LaxIndexing.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DIALECT_LAXINDEXINGOPS_TD
#define KILN_DIALECT_LAXINDEXINGOPS_TD

include "dialect/LaxDialect.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/LoopLikeInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Enums (generated into LaxIndexingEnums.{h,cpp}.inc)
//===----------------------------------------------------------------------===//

def Lax_GatherScatterMode : I32EnumAttr<"GatherScatterMode",
    "out-of-bounds behaviour of gather and scatter (JAX's GatherScatterMode)", [
      I32EnumAttrCase<"Clip", 0, "clip">,
      I32EnumAttrCase<"FillOrDrop", 1, "fill_or_drop">,
      I32EnumAttrCase<"PromiseInBounds", 2, "promise_in_bounds">]> {
  let cppNamespace = "::kiln::lax";
}

def Lax_ScatterKind : I32EnumAttr<"ScatterKind",
    "how scatter combines an update with the operand element (jaxpr scatter, "
    "scatter-add, scatter-mul, scatter-min, scatter-max)", [
      I32EnumAttrCase<"Set", 0, "set">,
      I32EnumAttrCase<"Add", 1, "add">,
      I32EnumAttrCase<"Mul", 2, "mul">,
      I32EnumAttrCase<"Min", 3, "min">,
      I32EnumAttrCase<"Max", 4, "max">]> {
  let cppNamespace = "::kiln::lax";
}

// Indices are integer tensors whose last dimension is the index vector
// (JAX's index_vector_dim is always the last one).
def Lax_IndexTensor : Lax_TensorOf<[I32, I64, UI32]>;

//===----------------------------------------------------------------------===//
// Gather
//===----------------------------------------------------------------------===//

def Lax_GatherOp : Lax_Op<"gather", [Pure, InferTypeOpAdaptor]> {
  let summary = "gathers slices of the operand at run-time indices (jaxpr `gather`)";
  let description = [{
    XLA's gather with JAX's conventions: the last dimension of
    `start_indices` is the index vector (index_vector_dim = rank - 1); every
    other dimension of `start_indices` is a batch dimension.

    For a result index `out`: the batch dimensions of the result are those
    not in `offset_dims`; `out` at them (in order) picks an index vector `v`
    of `start_indices`. The operand slice starts at `v[k]` along operand
    dimension `start_index_map[k]` and, along `operand_batching_dims[j]`, at
    the batch index along start_indices dimension
    `start_indices_batching_dims[j]`. `out` at `offset_dims` indexes into the
    slice of `slice_sizes`, whose `collapsed_slice_dims` and
    `operand_batching_dims` (of size 1) are dropped.

    `mode` treats start indices that would put the slice out of bounds:
    `clip` and `promise_in_bounds` clamp them into `[0, dim - slice_size]`
    (XLA's behaviour); `fill_or_drop` yields `fill_value` for every element
    of such a slice (NaN, the minimum signed integer, the maximum unsigned
    integer or true when absent: JAX's defaults).

    ```mlir
    // x[idx] for x: f32[10, 8], idx: i32[5]
    %r = lax.gather %x[%idx] offset_dims = [1] collapsed_slice_dims = [0]
        start_index_map = [0] slice_sizes = [1, 8] mode = promise_in_bounds
        : (tensor<10x8xf32>, tensor<5x1xi32>) -> tensor<5x8xf32>
    // jnp.take_along_axis(x, idx, axis=1) for x: f32[5, 8], idx: i32[5, 3]
    %t = lax.gather %x[%idx] offset_dims = [] collapsed_slice_dims = [1]
        start_index_map = [1] batching_dims = [0] x [0] slice_sizes = [1, 1]
        mode = fill_or_drop fill(0x7FC00000 : f32)
        : (tensor<5x8xf32>, tensor<5x3x1xi32>) -> tensor<5x3xf32>
    ```
  }];
  let arguments = (ins
      Lax_Tensor:$operand,
      Lax_IndexTensor:$start_indices,
      DenseI64ArrayAttr:$offset_dims,
      DenseI64ArrayAttr:$collapsed_slice_dims,
      DenseI64ArrayAttr:$start_index_map,
      DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$operand_batching_dims,
      DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$start_indices_batching_dims,
      DenseI64ArrayAttr:$slice_sizes,
      Lax_GatherScatterMode:$mode,
      OptionalAttr<TypedAttrInterface>:$fill_value);
  let results = (outs Lax_Tensor:$result);
  let assemblyFormat = [{
    $operand `[` $start_indices `]`
    `offset_dims` `=` $offset_dims
    `collapsed_slice_dims` `=` $collapsed_slice_dims
    `start_index_map` `=` $start_index_map
    (`batching_dims` `=` $operand_batching_dims^ `x` $start_indices_batching_dims)?
    `slice_sizes` `=` $slice_sizes
    `mode` `=` $mode
    (`fill` `(` $fill_value^ `)`)?
    attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDeclaration = [{
    /// The fill value of `fill_or_drop` as an attribute of the operand's
    /// element type: `fill_value`, or JAX's default for the type.
    ::mlir::TypedAttr getEffectiveFillValue();
  }];
}

//===----------------------------------------------------------------------===//
// Scatter
//===----------------------------------------------------------------------===//

def Lax_ScatterOp : Lax_Op<"scatter", [Pure, InferTypeOpAdaptor]> {
  let summary = "combines updates into the operand at run-time indices "
                "(jaxpr `scatter`, `scatter-add`, `-mul`, `-min`, `-max`)";
  let description = [{
    XLA's scatter with JAX's conventions (the last dimension of
    `scatter_indices` is the index vector) and one of five update
    computations, `kind`: `set` (the update replaces the element), `add`,
    `mul`, `min`, `max` (NaN-propagating, like lax.min/lax.max). The result
    has the operand's type.

    The dimensions of `updates` not in `update_window_dims` are its scatter
    dimensions; they equal, in order, the dimensions of `scatter_indices`
    without the index vector. Each scatter index picks an index vector `v`;
    its window starts at `v[k]` along operand dimension
    `scatter_dims_to_operand_dims[k]` and, along `operand_batching_dims[j]`,
    at the batch index along `scatter_indices_batching_dims[j]`. The window
    dimensions of `updates` index the operand dimensions not in
    `inserted_window_dims` or `operand_batching_dims`, in order.

    Updates apply one scatter index after the other in row-major order of
    the scatter dimensions (XLA's order): with duplicate indices, `set`
    keeps the last update and the others accumulate in that order.

    `mode = clip` clamps start indices into `[0, dim - window_size]`;
    `fill_or_drop` and `promise_in_bounds` skip every window that is not
    entirely in bounds (XLA's behaviour).

    ```mlir
    // x.at[idx].add(u) for x: f32[10], idx: i32[6], u: f32[6]
    %r = lax.scatter add %x[%idx], %u update_window_dims = []
        inserted_window_dims = [0] scatter_dims_to_operand_dims = [0]
        mode = fill_or_drop
        : (tensor<10xf32>, tensor<6x1xi32>, tensor<6xf32>) -> tensor<10xf32>
    ```
  }];
  let arguments = (ins
      Lax_ScatterKind:$kind,
      Lax_Tensor:$operand,
      Lax_IndexTensor:$scatter_indices,
      Lax_Tensor:$updates,
      DenseI64ArrayAttr:$update_window_dims,
      DenseI64ArrayAttr:$inserted_window_dims,
      DenseI64ArrayAttr:$scatter_dims_to_operand_dims,
      DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$operand_batching_dims,
      DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$scatter_indices_batching_dims,
      Lax_GatherScatterMode:$mode);
  let results = (outs Lax_Tensor:$result);
  let assemblyFormat = [{
    $kind $operand `[` $scatter_indices `]` `,` $updates
    `update_window_dims` `=` $update_window_dims
    `inserted_window_dims` `=` $inserted_window_dims
    `scatter_dims_to_operand_dims` `=` $scatter_dims_to_operand_dims
    (`batching_dims` `=` $operand_batching_dims^ `x` $scatter_indices_batching_dims)?
    `mode` `=` $mode
    attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Sort and top_k
//===----------------------------------------------------------------------===//

def Lax_SortOp : Lax_Op<"sort", [Pure, InferTypeOpAdaptor]> {
  let summary = "sorts operands together by the first ones (jaxpr `sort`)";
  let description = [{
    Along `dimension`, every operand moves by one permutation: the order of
    the first `num_keys` operands compared lexicographically (the first
    most significant), ties in input order (stable, whatever the jaxpr's
    `is_stable` says: a stable order is one of the orders an unstable sort
    may return). Keys compare as JAX's `lax.sort` compares them: integers
    by value (unsigned ones unsigned), false before true, floats by the
    total order after -0 becomes +0 and every NaN the positive quiet NaN
    (NaNs last, -0 and +0 equal). The values, keys included, move bit for
    bit. Results have the operands' types.

    ```mlir
    // jnp.argsort(x): the keys and their positions
    %s:2 = lax.sort %x, %iota dimension = 0 num_keys = 1
        : tensor<8xf32>, tensor<8xi32>
    ```
  }];
  let arguments = (ins Variadic<Lax_Tensor>:$operands, Lax_I64Attr:$dimension,
                       Lax_I64Attr:$num_keys);
  let results = (outs Variadic<Lax_Tensor>:$results);
  let assemblyFormat = [{
    $operands `dimension` `=` $dimension `num_keys` `=` $num_keys attr-dict `:` type($operands)
  }];
}

def Lax_TopKOp : Lax_Op<"top_k", [Pure, InferTypeOpAdaptor]> {
  let summary = "the k largest elements along an axis and their positions (jaxpr `top_k`)";
  let description = [{
    Along `axis`, the `k` largest elements of the operand, largest first,
    as `values`, and their positions along the axis as `indices` (i32).
    Floats compare by the total order (+NaN first, +0 before -0, -NaN
    last), integers by value; equal elements come in input order. The
    values move bit for bit.

    ```mlir
    %v, %i = lax.top_k %logits k = 5 axis = 1 : tensor<8x32000xf32>
    ```
  }];
  let arguments = (ins Lax_Tensor:$operand, Lax_I64Attr:$k, Lax_I64Attr:$axis);
  let results = (outs Lax_Tensor:$values, Lax_TensorOf<[I32]>:$indices);
  let assemblyFormat = [{
    $operand `k` `=` $k `axis` `=` $axis attr-dict `:` type($operand)
  }];
}

#endif // KILN_DIALECT_LAXINDEXINGOPS_TD
