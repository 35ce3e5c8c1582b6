//===- JaxprShapeOps.cpp - structural primitives --------------------------===//
//
// Ops that move, select or retype elements: transpose, broadcast_in_dim,
// reshape, squeeze, expand_dims, rev, slices, concatenate, iota and
// convert_element_type.
//
//===----------------------------------------------------------------------===//
#include "importer/JaxprPrimitives.h"

#include "dialect/LaxOps.h"

using namespace mlir;
using namespace kiln::jaxpr;
using namespace kiln::lax;
using llvm::SmallVector;

namespace {

using IntList = FailureOr<SmallVector<int64_t>>;

//===--- Layout -------------------------------------------------------------===//

EmitResult emitTranspose(PrimitiveEmitter &e) {
  return emitWithAxes<TransposeOp>(e, "permutation");
}

/// squeeze and expand_dims: the axes are in `dimensions`.
template <typename OpTy>
EmitResult emitWithDimensions(PrimitiveEmitter &e) {
  return emitWithAxes<OpTy>(e, "dimensions");
}

/// broadcast_in_dim[shape broadcast_dimensions]. Current JAX leaves out the
/// shape (the result's annotation says it) and empty broadcast_dimensions.
EmitResult emitBroadcastInDim(PrimitiveEmitter &e) {
  EmitResult x = e.operands(1, 1);
  if (failed(x))
    return failure();
  IntList shape = failure();
  if (e.eqn.findParam("shape")) {
    shape = e.builder.intListParam(e.eqn, "shape");
  } else if (FailureOr<RankedTensorType> type = e.annotatedResultType();
             succeeded(type)) {
    shape = llvm::to_vector(type->getShape());
  }
  IntList dims =
      e.builder.intListParam(e.eqn, "broadcast_dimensions", SmallVector<int64_t>{});
  if (failed(shape) || failed(dims))
    return failure();
  return e.finish(
      BroadcastInDimOp::create(e.b, e.loc, e.placeholder, (*x)[0], *shape, *dims));
}

/// reshape[new_sizes dimensions]: `dimensions` permutes the operand before
/// the row-major reshape.
EmitResult emitReshape(PrimitiveEmitter &e) {
  EmitResult x = e.operands(1, 1);
  IntList sizes = e.builder.intListParam(e.eqn, "new_sizes");
  IntList dims = e.builder.intListParam(e.eqn, "dimensions", SmallVector<int64_t>{});
  if (failed(x) || failed(sizes) || failed(dims))
    return failure();
  Value input = (*x)[0];
  if (!dims->empty()) {
    Operation *t = TransposeOp::create(e.b, e.loc, e.placeholder, input, *dims);
    if (failed(e.builder.finishOp(t)))
      return failure();
    input = t->getResult(0);
  }
  Type element = cast<RankedTensorType>(input.getType()).getElementType();
  return e.finish(
      ReshapeOp::create(e.b, e.loc, RankedTensorType::get(*sizes, element), input));
}

EmitResult emitRev(PrimitiveEmitter &e) {
  EmitResult x = e.operands(1, 1);
  IntList dims = e.builder.intListParam(e.eqn, "dimensions");
  if (failed(x) || failed(dims))
    return failure();
  return e.finish(RevOp::create(e.b, e.loc, (*x)[0].getType(), (*x)[0], *dims));
}

//===--- Slices and concatenation -------------------------------------------===//

/// slice[start_indices limit_indices strides]; strides default to 1.
EmitResult emitSlice(PrimitiveEmitter &e) {
  EmitResult x = e.operands(1, 1);
  IntList start = e.builder.intListParam(e.eqn, "start_indices");
  IntList limit = e.builder.intListParam(e.eqn, "limit_indices");
  if (failed(x) || failed(start) || failed(limit))
    return failure();
  IntList strides = e.builder.intListParam(e.eqn, "strides",
                                           SmallVector<int64_t>(start->size(), 1));
  if (failed(strides))
    return failure();
  return e.finish(
      SliceOp::create(e.b, e.loc, e.placeholder, (*x)[0], *start, *limit, *strides));
}

/// dynamic_slice operand index...: the start indices are operands.
EmitResult emitDynamicSlice(PrimitiveEmitter &e) {
  EmitResult x = e.operands(1, SIZE_MAX);
  IntList sizes = e.builder.intListParam(e.eqn, "slice_sizes");
  if (failed(x) || failed(sizes))
    return failure();
  return e.finish(DynamicSliceOp::create(e.b, e.loc, e.placeholder, (*x)[0],
                                         ValueRange(*x).drop_front(), *sizes));
}

/// dynamic_update_slice operand update index...
EmitResult emitDynamicUpdateSlice(PrimitiveEmitter &e) {
  EmitResult x = e.operands(2, SIZE_MAX);
  if (failed(x))
    return failure();
  return e.finish(DynamicUpdateSliceOp::create(e.b, e.loc, e.placeholder, (*x)[0],
                                               (*x)[1], ValueRange(*x).drop_front(2)));
}

EmitResult emitConcatenate(PrimitiveEmitter &e) {
  EmitResult x = e.operands(1, SIZE_MAX);
  FailureOr<int64_t> dim = e.builder.intParam(e.eqn, "dimension");
  if (failed(x) || failed(dim))
    return failure();
  return e.finish(ConcatenateOp::create(e.b, e.loc, e.placeholder, *x, *dim));
}

//===--- New values and types -----------------------------------------------===//

EmitResult emitIota(PrimitiveEmitter &e) {
  EmitResult x = e.operands(0, 0);
  FailureOr<Type> dtype = e.builder.dtypeParam(e.eqn, "dtype", /*optional=*/false);
  IntList shape = e.builder.intListParam(e.eqn, "shape");
  FailureOr<int64_t> dim = e.builder.intParam(e.eqn, "dimension", 0);
  if (failed(x) || failed(dtype) || failed(shape) || failed(dim))
    return failure();
  return e.finish(
      IotaOp::create(e.b, e.loc, RankedTensorType::get(*shape, *dtype), *dim));
}

EmitResult emitConvertElementType(PrimitiveEmitter &e) {
  EmitResult x = e.operands(1, 1);
  FailureOr<Type> dtype =
      e.builder.dtypeParam(e.eqn, "new_dtype", /*optional=*/false);
  if (failed(x) || failed(dtype))
    return failure();
  auto type = cast<RankedTensorType>((*x)[0].getType());
  return e.finish(ConvertElementTypeOp::create(
      e.b, e.loc, RankedTensorType::get(type.getShape(), *dtype), (*x)[0]));
}

} // namespace

void kiln::jaxpr::registerShapePrimitives(PrimitiveTable &table) {
  addPrimitives(table, {
      {"transpose", emitTranspose},
      {"squeeze", emitWithDimensions<SqueezeOp>},
      {"expand_dims", emitWithDimensions<ExpandDimsOp>},
      {"broadcast_in_dim", emitBroadcastInDim},
      {"reshape", emitReshape},
      {"rev", emitRev},
      {"slice", emitSlice},
      {"dynamic_slice", emitDynamicSlice},
      {"dynamic_update_slice", emitDynamicUpdateSlice},
      {"concatenate", emitConcatenate},
      {"iota", emitIota},
      {"convert_element_type", emitConvertElementType},
  });
}
