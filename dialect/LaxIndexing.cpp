//===- LaxIndexing.cpp - lax indexing operations ----------------------===//
//
// Generated definitions, verifiers and interfaces of gather and scatter.
// Each op's inferReturnTypes checks every shape rule of XLA's gather/scatter
// (with JAX's index_vector_dim: the last dimension of the indices), so that
// the verifier, the builders and the importer share one rule.
//
//===----------------------------------------------------------------------===//
#include "dialect/LaxIndexingOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace kiln::lax;

#include "dialect/LaxIndexingEnums.cpp.inc"

#define GET_OP_CLASSES
#include "dialect/LaxIndexingOps.cpp.inc"

namespace {

std::string listString(ArrayRef<int64_t> values) {
  std::string s = "[";
  llvm::interleave(
      values, [&](int64_t d) { s += std::to_string(d); }, [&] { s += ", "; });
  return s + "]";
}

/// Every entry of `dims` names one of `rank` dimensions, none repeats, and
/// (with `sorted`) they increase.
LogicalResult checkDims(std::optional<Location> loc, ArrayRef<int64_t> dims,
                        int64_t rank, StringRef what, bool sorted) {
  llvm::SmallBitVector seen(rank);
  for (auto [i, d] : llvm::enumerate(dims)) {
    if (d < 0 || d >= rank)
      return emitOptionalError(loc, what, " entry ", d,
                               " is out of range: expected 0 <= dim < ", rank);
    if (seen.test(d))
      return emitOptionalError(loc, what, " has duplicate entry ", d);
    if (sorted && i > 0 && dims[i - 1] > d)
      return emitOptionalError(loc, what, " must be sorted, got ", listString(dims));
    seen.set(d);
  }
  return success();
}

/// No entry of `a` is in `b`.
LogicalResult checkDisjoint(std::optional<Location> loc, ArrayRef<int64_t> a,
                            StringRef aName, ArrayRef<int64_t> b, StringRef bName) {
  for (int64_t d : a)
    if (llvm::is_contained(b, d))
      return emitOptionalError(loc, "operand dimension ", d, " is in both ", aName,
                               " and ", bName);
  return success();
}

/// The checks gather and scatter share: the indices (integers, rank >= 1,
/// index vector last), the index map (one entry per index vector element)
/// and the batching dimensions of both sides.
LogicalResult checkIndexing(std::optional<Location> loc, RankedTensorType operand,
                            Type indicesType, ArrayRef<int64_t> indexMap,
                            StringRef indexMapName, ArrayRef<int64_t> operandBatching,
                            ArrayRef<int64_t> indicesBatching,
                            StringRef indicesBatchingName, StringRef indicesName) {
  auto indices = dyn_cast<RankedTensorType>(indicesType);
  if (!indices || !isa<IntegerType>(indices.getElementType()) ||
      indices.getElementType().isInteger(1))
    return emitOptionalError(loc, indicesName, " must be a ranked tensor of integers, got ",
                             indicesType);
  if (indices.getRank() < 1)
    return emitOptionalError(loc, indicesName,
                             " must have rank >= 1: its last dimension is the index vector");
  int64_t rank = operand.getRank();
  int64_t indexVectorDim = indices.getRank() - 1;
  int64_t indexVectorSize = indices.getDimSize(indexVectorDim);
  if ((int64_t)indexMap.size() != indexVectorSize)
    return emitOptionalError(loc, indexMapName, " has ", indexMap.size(),
                             " entries but the index vector (the last dimension of ",
                             indicesName, ") has ", indexVectorSize);
  if (failed(checkDims(loc, indexMap, rank, indexMapName, /*sorted=*/false)) ||
      failed(checkDims(loc, operandBatching, rank, "operand_batching_dims",
                       /*sorted=*/true)) ||
      failed(checkDims(loc, indicesBatching, indexVectorDim, indicesBatchingName,
                       /*sorted=*/false)) ||
      failed(checkDisjoint(loc, indexMap, indexMapName, operandBatching,
                           "operand_batching_dims")))
    return failure();
  if (operandBatching.size() != indicesBatching.size())
    return emitOptionalError(loc, "operand_batching_dims has ", operandBatching.size(),
                             " entries but ", indicesBatchingName, " has ",
                             indicesBatching.size());
  for (auto [o, i] : llvm::zip(operandBatching, indicesBatching))
    if (operand.getDimSize(o) != indices.getDimSize(i))
      return emitOptionalError(loc, "operand batching dimension ", o, " (size ",
                               operand.getDimSize(o), ") and ", indicesName,
                               " batching dimension ", i, " (size ",
                               indices.getDimSize(i), ") differ in size");
  return success();
}

/// The operand dimensions that are neither `removed` nor batching, in order.
SmallVector<int64_t> windowDims(int64_t rank, ArrayRef<int64_t> removed,
                                ArrayRef<int64_t> operandBatching) {
  SmallVector<int64_t> dims;
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(removed, d) && !llvm::is_contained(operandBatching, d))
      dims.push_back(d);
  return dims;
}

} // namespace

//===----------------------------------------------------------------------===//
// GatherOp
//===----------------------------------------------------------------------===//

LogicalResult GatherOp::inferReturnTypes(MLIRContext *ctx, std::optional<Location> loc,
                                         Adaptor adaptor, SmallVectorImpl<Type> &types) {
  if (failed(adaptor.verify(loc ? *loc : UnknownLoc::get(ctx))))
    return failure();
  auto operand = dyn_cast<RankedTensorType>(adaptor.getOperand().getType());
  if (!operand)
    return emitOptionalError(loc, "operand must be a ranked tensor");
  int64_t rank = operand.getRank();
  ArrayRef<int64_t> offsetDims = adaptor.getOffsetDims();
  ArrayRef<int64_t> collapsed = adaptor.getCollapsedSliceDims();
  ArrayRef<int64_t> operandBatching = adaptor.getOperandBatchingDims();
  ArrayRef<int64_t> sliceSizes = adaptor.getSliceSizes();
  if (failed(checkIndexing(loc, operand, adaptor.getStartIndices().getType(),
                           adaptor.getStartIndexMap(), "start_index_map",
                           operandBatching, adaptor.getStartIndicesBatchingDims(),
                           "start_indices_batching_dims", "start_indices")))
    return failure();
  auto indices = cast<RankedTensorType>(adaptor.getStartIndices().getType());

  if ((int64_t)sliceSizes.size() != rank)
    return emitOptionalError(loc, "slice_sizes has ", sliceSizes.size(),
                             " entries, expected one per operand dimension (", rank, ")");
  for (auto [d, size] : llvm::enumerate(sliceSizes))
    if (size < 0 || size > operand.getDimSize(d))
      return emitOptionalError(loc, "slice size ", size, " of dimension ", d,
                               " is out of range: expected 0 <= size <= ",
                               operand.getDimSize(d));
  if (failed(checkDims(loc, collapsed, rank, "collapsed_slice_dims", /*sorted=*/true)) ||
      failed(checkDisjoint(loc, collapsed, "collapsed_slice_dims", operandBatching,
                           "operand_batching_dims")))
    return failure();
  for (int64_t d : collapsed)
    if (sliceSizes[d] > 1)
      return emitOptionalError(loc, "collapsed slice dimension ", d, " has slice size ",
                               sliceSizes[d], ", expected at most 1");
  for (int64_t d : operandBatching)
    if (sliceSizes[d] > 1)
      return emitOptionalError(loc, "operand batching dimension ", d,
                               " has slice size ", sliceSizes[d], ", expected at most 1");

  SmallVector<int64_t> window = windowDims(rank, collapsed, operandBatching);
  if (offsetDims.size() != window.size())
    return emitOptionalError(loc, "offset_dims has ", offsetDims.size(),
                             " entries, expected one per operand dimension that is "
                             "neither collapsed nor batching (",
                             window.size(), ")");
  int64_t resultRank = indices.getRank() - 1 + (int64_t)offsetDims.size();
  if (failed(checkDims(loc, offsetDims, resultRank, "offset_dims", /*sorted=*/true)))
    return failure();

  if (Attribute fill = adaptor.getFillValueAttr()) {
    if (adaptor.getMode() != GatherScatterMode::FillOrDrop)
      return emitOptionalError(loc, "fill_value needs mode fill_or_drop");
    auto typed = cast<TypedAttr>(fill);
    if (!isa<FloatAttr, IntegerAttr>(fill) || typed.getType() != operand.getElementType())
      return emitOptionalError(loc, "fill_value must be a scalar of the operand's element "
                               "type ", operand.getElementType(), ", got ", fill);
  }

  // Offset dimensions take the window's sizes, the others (the batch
  // dimensions) those of the indices without the index vector, in order.
  SmallVector<int64_t> shape(resultRank);
  unsigned nextWindow = 0, nextBatch = 0;
  for (int64_t d = 0; d < resultRank; ++d)
    shape[d] = llvm::is_contained(offsetDims, d) ? sliceSizes[window[nextWindow++]]
                                                  : indices.getDimSize(nextBatch++);
  types.push_back(RankedTensorType::get(shape, operand.getElementType()));
  return success();
}

TypedAttr GatherOp::getEffectiveFillValue() {
  if (TypedAttr fill = getFillValueAttr())
    return fill;
  // JAX's defaults (lax.gather with mode='fill' and fill_value=None).
  Type element = getOperand().getType().getElementType();
  if (auto f = dyn_cast<FloatType>(element))
    return FloatAttr::get(f, APFloat::getQNaN(f.getFloatSemantics()));
  unsigned width = element.getIntOrFloatBitWidth();
  if (width == 1)
    return IntegerAttr::get(element, APInt(1, 1));
  if (element.isUnsignedInteger())
    return IntegerAttr::get(element, APInt::getMaxValue(width));
  return IntegerAttr::get(element, APInt::getSignedMinValue(width));
}

IndexingDims IndexingDims::of(GatherOp op) {
  IndexingDims dims;
  dims.indexMap = llvm::to_vector(op.getStartIndexMap());
  dims.operandBatching = llvm::to_vector(op.getOperandBatchingDims());
  dims.indicesBatching = llvm::to_vector(op.getStartIndicesBatchingDims());
  int64_t rank = op.getOperand().getType().getRank();
  dims.windowOperandDims = windowDims(rank, op.getCollapsedSliceDims(),
                                      op.getOperandBatchingDims());
  dims.windowSizes = llvm::to_vector(op.getSliceSizes());
  return dims;
}

//===----------------------------------------------------------------------===//
// ScatterOp
//===----------------------------------------------------------------------===//

LogicalResult ScatterOp::inferReturnTypes(MLIRContext *ctx, std::optional<Location> loc,
                                          Adaptor adaptor, SmallVectorImpl<Type> &types) {
  if (failed(adaptor.verify(loc ? *loc : UnknownLoc::get(ctx))))
    return failure();
  auto operand = dyn_cast<RankedTensorType>(adaptor.getOperand().getType());
  auto updates = dyn_cast<RankedTensorType>(adaptor.getUpdates().getType());
  if (!operand || !updates)
    return emitOptionalError(loc, "operand and updates must be ranked tensors");
  int64_t rank = operand.getRank();
  ArrayRef<int64_t> windowUpdateDims = adaptor.getUpdateWindowDims();
  ArrayRef<int64_t> inserted = adaptor.getInsertedWindowDims();
  ArrayRef<int64_t> operandBatching = adaptor.getOperandBatchingDims();
  if (updates.getElementType() != operand.getElementType())
    return emitOptionalError(loc, "updates element type ", updates.getElementType(),
                             " differs from the operand's ", operand.getElementType());
  if (failed(checkIndexing(loc, operand, adaptor.getScatterIndices().getType(),
                           adaptor.getScatterDimsToOperandDims(),
                           "scatter_dims_to_operand_dims", operandBatching,
                           adaptor.getScatterIndicesBatchingDims(),
                           "scatter_indices_batching_dims", "scatter_indices")))
    return failure();
  auto indices = cast<RankedTensorType>(adaptor.getScatterIndices().getType());

  if (failed(checkDims(loc, inserted, rank, "inserted_window_dims", /*sorted=*/true)) ||
      failed(checkDisjoint(loc, inserted, "inserted_window_dims", operandBatching,
                           "operand_batching_dims")) ||
      failed(checkDims(loc, windowUpdateDims, updates.getRank(), "update_window_dims",
                       /*sorted=*/true)))
    return failure();
  SmallVector<int64_t> window = windowDims(rank, inserted, operandBatching);
  if (windowUpdateDims.size() != window.size())
    return emitOptionalError(loc, "update_window_dims has ", windowUpdateDims.size(),
                             " entries, expected one per operand dimension that is "
                             "neither inserted nor batching (",
                             window.size(), ")");
  int64_t scatterRank = indices.getRank() - 1;
  if (updates.getRank() != scatterRank + (int64_t)windowUpdateDims.size())
    return emitOptionalError(loc, "updates has rank ", updates.getRank(), ", expected ",
                             scatterRank + (int64_t)windowUpdateDims.size(),
                             " (the scatter_indices dimensions without the index vector, "
                             "plus update_window_dims)");
  unsigned nextWindow = 0, nextScatter = 0;
  for (int64_t d = 0; d < updates.getRank(); ++d) {
    int64_t size = updates.getDimSize(d);
    if (llvm::is_contained(windowUpdateDims, d)) {
      int64_t operandDim = window[nextWindow++];
      if (size > operand.getDimSize(operandDim))
        return emitOptionalError(loc, "update window dimension ", d, " (size ", size,
                                 ") exceeds operand dimension ", operandDim, " (size ",
                                 operand.getDimSize(operandDim), ")");
    } else {
      int64_t indicesDim = nextScatter++;
      if (size != indices.getDimSize(indicesDim))
        return emitOptionalError(loc, "update scatter dimension ", d, " (size ", size,
                                 ") differs from scatter_indices dimension ", indicesDim,
                                 " (size ", indices.getDimSize(indicesDim), ")");
    }
  }
  if (operand.getElementType().isInteger(1) &&
      (adaptor.getKind() == ScatterKind::Add || adaptor.getKind() == ScatterKind::Mul))
    return emitOptionalError(loc, "scatter ", stringifyScatterKind(adaptor.getKind()),
                             " needs a numeric element type, got i1");
  types.push_back(operand);
  return success();
}

IndexingDims IndexingDims::of(ScatterOp op) {
  IndexingDims dims;
  dims.indexMap = llvm::to_vector(op.getScatterDimsToOperandDims());
  dims.operandBatching = llvm::to_vector(op.getOperandBatchingDims());
  dims.indicesBatching = llvm::to_vector(op.getScatterIndicesBatchingDims());
  int64_t rank = op.getOperand().getType().getRank();
  dims.windowOperandDims =
      windowDims(rank, op.getInsertedWindowDims(), op.getOperandBatchingDims());
  dims.windowSizes.assign(rank, 1);
  for (auto [updateDim, operandDim] :
       llvm::zip(op.getUpdateWindowDims(), dims.windowOperandDims))
    dims.windowSizes[operandDim] = op.getUpdates().getType().getDimSize(updateDim);
  return dims;
}

//===----------------------------------------------------------------------===//
// SortOp and TopKOp
//===----------------------------------------------------------------------===//

LogicalResult SortOp::inferReturnTypes(MLIRContext *ctx, std::optional<Location> loc,
                                       Adaptor adaptor, SmallVectorImpl<Type> &types) {
  ValueRange operands = adaptor.getOperands();
  if (operands.empty())
    return emitOptionalError(loc, "sort needs at least one operand");
  auto first = dyn_cast<RankedTensorType>(operands[0].getType());
  if (!first)
    return emitOptionalError(loc, "sort operands must be ranked tensors");
  for (Value v : operands) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type || type.getShape() != first.getShape())
      return emitOptionalError(loc, "sort operands must have one shape, got ", first, " and ",
                               v.getType());
    types.push_back(type);
  }
  int64_t dimension = adaptor.getDimension(), numKeys = adaptor.getNumKeys();
  if (dimension < 0 || dimension >= first.getRank())
    return emitOptionalError(loc, "sort dimension ", dimension, " is out of range for rank ",
                             first.getRank());
  if (numKeys < 1 || numKeys > int64_t(operands.size()))
    return emitOptionalError(loc, "sort num_keys ", numKeys, " is not between 1 and the ",
                             operands.size(), " operands");
  return success();
}

LogicalResult TopKOp::inferReturnTypes(MLIRContext *ctx, std::optional<Location> loc,
                                       Adaptor adaptor, SmallVectorImpl<Type> &types) {
  auto type = dyn_cast<RankedTensorType>(adaptor.getOperand().getType());
  if (!type)
    return emitOptionalError(loc, "top_k operand must be a ranked tensor");
  int64_t axis = adaptor.getAxis(), k = adaptor.getK();
  if (axis < 0 || axis >= type.getRank())
    return emitOptionalError(loc, "top_k axis ", axis, " is out of range for rank ",
                             type.getRank());
  if (k < 0 || k > type.getDimSize(axis))
    return emitOptionalError(loc, "top_k k = ", k, " is not within the axis's ",
                             type.getDimSize(axis), " elements");
  SmallVector<int64_t> shape(type.getShape());
  shape[axis] = k;
  types.push_back(type.clone(shape));
  types.push_back(RankedTensorType::get(shape, IntegerType::get(ctx, 32)));
  return success();
}
