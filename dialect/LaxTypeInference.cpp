//===- LaxTypeInference.cpp - result types of lax ops ---------------------===//
//
// Shape rules of the lax ops. Each op's inferReturnTypes both computes its
// result type and rejects invalid operands/attributes, so the verifier, the
// builders (no result type to spell) and PDL rewrites share one rule.
//
//===----------------------------------------------------------------------===//
#include "dialect/LaxOps.h"

#include "llvm/ADT/SmallBitVector.h"


using namespace mlir;
using namespace kiln::lax;

namespace {

RankedTensorType rankedOf(Value v) {
  return cast<RankedTensorType>(v.getType());
}

/// Checks that every entry of `axes` names one of `rank` dimensions and that
/// none repeats. `what` names the attribute in the message.
LogicalResult checkAxes(std::optional<Location> loc, ArrayRef<int64_t> axes,
                        int64_t rank, StringRef what) {
  llvm::SmallBitVector seen(rank);
  for (int64_t axis : axes) {
    if (axis < 0 || axis >= rank)
      return emitOptionalError(loc, what, " entry ", axis,
                               " is out of range: expected 0 <= axis < ", rank);
    if (seen.test(axis))
      return emitOptionalError(loc, what, " has duplicate entry ", axis);
    seen.set(axis);
  }
  return success();
}

std::string shapeString(ArrayRef<int64_t> shape) {
  std::string s = "[";
  llvm::interleave(
      shape, [&](int64_t d) { s += std::to_string(d); }, [&] { s += ", "; });
  return s + "]";
}

} // namespace

RankedTensorType kiln::lax::dropDim(RankedTensorType type, int64_t axis) {
  SmallVector<int64_t> shape(type.getShape());
  shape.erase(shape.begin() + axis);
  return RankedTensorType::get(shape, type.getElementType());
}

RankedTensorType kiln::lax::insertDim(RankedTensorType type, int64_t axis,
                                      int64_t size) {
  SmallVector<int64_t> shape(type.getShape());
  shape.insert(shape.begin() + axis, size);
  return RankedTensorType::get(shape, type.getElementType());
}

/// Rules and builders may pass incomplete attributes: every inferReturnTypes
/// checks them first, located at `loc` when there is one.
template <typename AdaptorT>
static LogicalResult checkAttributes(AdaptorT &adaptor, MLIRContext *ctx,
                                     std::optional<Location> loc) {
  return adaptor.verify(loc ? *loc : UnknownLoc::get(ctx));
}

LogicalResult CompareOp::inferReturnTypes(MLIRContext *ctx,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  if (failed(checkAttributes(adaptor, ctx, loc)))
    return failure();
  RankedTensorType lhs = rankedOf(adaptor.getLhs());
  types.push_back(RankedTensorType::get(lhs.getShape(), IntegerType::get(ctx, 1)));
  return success();
}

LogicalResult SelectNOp::inferReturnTypes(MLIRContext *ctx, std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  if (failed(checkAttributes(adaptor, ctx, loc)))
    return failure();
  if (adaptor.getCases().empty())
    return emitOptionalError(loc, "select_n needs at least one case");
  Type caseType = adaptor.getCases().front().getType();
  for (Value c : adaptor.getCases())
    if (c.getType() != caseType)
      return emitOptionalError(loc, "all cases must have one type, got ", caseType,
                               " and ", c.getType());
  RankedTensorType which = rankedOf(adaptor.getWhich());
  if (which.getRank() != 0 &&
      which.getShape() != cast<RankedTensorType>(caseType).getShape())
    return emitOptionalError(loc, "'which' must be a scalar or have the cases' shape ",
                             shapeString(cast<RankedTensorType>(caseType).getShape()));
  if (which.getElementType().isInteger(1) && adaptor.getCases().size() > 2)
    return emitOptionalError(loc, "an i1 'which' selects among at most 2 cases, got ",
                             adaptor.getCases().size());
  types.push_back(caseType);
  return success();
}

LogicalResult ConstantOp::inferReturnTypes(MLIRContext *ctx, std::optional<Location> loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &types) {
  if (failed(checkAttributes(adaptor, ctx, loc)))
    return failure();
  auto type = dyn_cast<RankedTensorType>(adaptor.getValue().getType());
  if (!type)
    return emitOptionalError(loc, "value must have a ranked tensor type");
  types.push_back(type);
  return success();
}

LogicalResult BroadcastInDimOp::inferReturnTypes(MLIRContext *ctx,
                                                 std::optional<Location> loc,
                                                 Adaptor adaptor,
                                                 SmallVectorImpl<Type> &types) {
  if (failed(checkAttributes(adaptor, ctx, loc)))
    return failure();
  RankedTensorType operand = rankedOf(adaptor.getOperand());
  ArrayRef<int64_t> shape = adaptor.getShape();
  ArrayRef<int64_t> dims = adaptor.getBroadcastDimensions();
  if ((int64_t)dims.size() != operand.getRank())
    return emitOptionalError(loc, "broadcast_dimensions has ", dims.size(),
                             " entries but the operand has rank ", operand.getRank());
  if (failed(checkAxes(loc, dims, shape.size(), "broadcast_dimensions")))
    return failure();
  // 4294967296x4294967296 wrapped to 0 elements: the interpreter returned
  // 0 for its sum and the JIT segfaulted.
  if (elementCountOverflows(shape))
    return emitOptionalError(loc, "shape ", shapeString(shape),
                             " has more elements than int64 can count");
  for (auto [i, d] : llvm::enumerate(dims)) {
    if (i > 0 && dims[i - 1] >= d)
      return emitOptionalError(loc, "broadcast_dimensions must be increasing, got ",
                               shapeString(dims));
    int64_t size = operand.getDimSize(i);
    if (size != 1 && size != shape[d])
      return emitOptionalError(loc, "operand dimension ", i, " has size ", size,
                               " but result dimension ", d, " has size ", shape[d],
                               ": expected 1 or equal sizes");
  }
  types.push_back(RankedTensorType::get(shape, operand.getElementType()));
  return success();
}

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *ctx, std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  if (failed(checkAttributes(adaptor, ctx, loc)))
    return failure();
  RankedTensorType operand = rankedOf(adaptor.getOperand());
  ArrayRef<int64_t> perm = adaptor.getPermutation();
  if ((int64_t)perm.size() != operand.getRank())
    return emitOptionalError(loc, "permutation has ", perm.size(),
                             " entries but the operand has rank ", operand.getRank());
  if (failed(checkAxes(loc, perm, operand.getRank(), "permutation")))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(operand.getDimSize(p));
  types.push_back(RankedTensorType::get(shape, operand.getElementType()));
  return success();
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *ctx, std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  if (failed(checkAttributes(adaptor, ctx, loc)))
    return failure();
  RankedTensorType operand = rankedOf(adaptor.getOperand());
  ArrayRef<int64_t> start = adaptor.getStartIndices();
  ArrayRef<int64_t> limit = adaptor.getLimitIndices();
  ArrayRef<int64_t> strides = adaptor.getStrides();
  int64_t rank = operand.getRank();
  if ((int64_t)start.size() != rank || (int64_t)limit.size() != rank ||
      (int64_t)strides.size() != rank)
    return emitOptionalError(loc, "start, limit and strides need one entry per "
                             "operand dimension (", rank, ")");
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) {
    if (strides[i] < 1)
      return emitOptionalError(loc, "stride ", strides[i], " in dimension ", i,
                               " must be positive");
    if (start[i] < 0 || start[i] > limit[i] || limit[i] > operand.getDimSize(i))
      return emitOptionalError(loc, "dimension ", i, ": expected 0 <= start (",
                               start[i], ") <= limit (", limit[i], ") <= size (",
                               operand.getDimSize(i), ")");
    // ceil((limit - start) / stride) without overflow (a stride of
    // INT64_MAX made the old sum wrap and gave size 0).
    int64_t extent = limit[i] - start[i];
    shape.push_back(extent == 0 ? 0 : (extent - 1) / strides[i] + 1);
  }
  types.push_back(RankedTensorType::get(shape, operand.getElementType()));
  return success();
}

LogicalResult DynamicSliceOp::inferReturnTypes(MLIRContext *ctx,
                                               std::optional<Location> loc,
                                               Adaptor adaptor,
                                               SmallVectorImpl<Type> &types) {
  if (failed(checkAttributes(adaptor, ctx, loc)))
    return failure();
  RankedTensorType operand = rankedOf(adaptor.getOperand());
  ArrayRef<int64_t> sizes = adaptor.getSliceSizes();
  if ((int64_t)adaptor.getStartIndices().size() != operand.getRank() ||
      (int64_t)sizes.size() != operand.getRank())
    return emitOptionalError(loc, "expected one start index and one slice size per "
                             "operand dimension (", operand.getRank(), ")");
  for (auto [i, size] : llvm::enumerate(sizes))
    if (size < 0 || size > operand.getDimSize(i))
      return emitOptionalError(loc, "slice size ", size, " of dimension ", i,
                               " exceeds the operand size ", operand.getDimSize(i));
  types.push_back(RankedTensorType::get(sizes, operand.getElementType()));
  return success();
}

LogicalResult DynamicUpdateSliceOp::inferReturnTypes(MLIRContext *ctx,
                                                     std::optional<Location> loc,
                                                     Adaptor adaptor,
                                                     SmallVectorImpl<Type> &types) {
  if (failed(checkAttributes(adaptor, ctx, loc)))
    return failure();
  RankedTensorType operand = rankedOf(adaptor.getOperand());
  RankedTensorType update = rankedOf(adaptor.getUpdate());
  if (update.getElementType() != operand.getElementType())
    return emitOptionalError(loc, "update element type ", update.getElementType(),
                             " differs from the operand's ", operand.getElementType());
  if (update.getRank() != operand.getRank() ||
      (int64_t)adaptor.getStartIndices().size() != operand.getRank())
    return emitOptionalError(loc, "expected an update of the operand's rank (",
                             operand.getRank(), ") and one start index per dimension");
  for (int64_t i = 0; i < operand.getRank(); ++i)
    if (update.getDimSize(i) > operand.getDimSize(i))
      return emitOptionalError(loc, "update dimension ", i, " (", update.getDimSize(i),
                               ") exceeds the operand's (", operand.getDimSize(i), ")");
  types.push_back(operand);
  return success();
}

LogicalResult ConcatenateOp::inferReturnTypes(MLIRContext *ctx,
                                              std::optional<Location> loc,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &types) {
  if (failed(checkAttributes(adaptor, ctx, loc)))
    return failure();
  if (adaptor.getInputs().empty())
    return emitOptionalError(loc, "concatenate needs at least one input");
  RankedTensorType first = rankedOf(adaptor.getInputs().front());
  int64_t dim = adaptor.getDimension();
  if (dim < 0 || dim >= first.getRank())
    return emitOptionalError(loc, "dimension ", dim, " is out of range: expected 0 <= "
                             "dimension < ", first.getRank());
  SmallVector<int64_t> shape(first.getShape());
  for (Value input : adaptor.getInputs().drop_front()) {
    RankedTensorType type = rankedOf(input);
    if (type.getElementType() != first.getElementType() ||
        type.getRank() != first.getRank())
      return emitOptionalError(loc, "inputs must share element type and rank, got ",
                               first, " and ", type);
    for (int64_t i = 0; i < type.getRank(); ++i) {
      if (i == dim)
        continue;
      if (type.getDimSize(i) != shape[i])
        return emitOptionalError(loc, "inputs differ in dimension ", i,
                                 " which is not the concatenated dimension ", dim);
    }
    shape[dim] += type.getDimSize(dim);
  }
  types.push_back(RankedTensorType::get(shape, first.getElementType()));
  return success();
}

LogicalResult SqueezeOp::inferReturnTypes(MLIRContext *ctx, std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  if (failed(checkAttributes(adaptor, ctx, loc)))
    return failure();
  RankedTensorType operand = rankedOf(adaptor.getOperand());
  ArrayRef<int64_t> dims = adaptor.getDimensions();
  if (failed(checkAxes(loc, dims, operand.getRank(), "dimensions")))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < operand.getRank(); ++i) {
    if (!llvm::is_contained(dims, i)) {
      shape.push_back(operand.getDimSize(i));
      continue;
    }
    if (operand.getDimSize(i) != 1)
      return emitOptionalError(loc, "cannot squeeze dimension ", i, " of size ",
                               operand.getDimSize(i), ": expected size 1");
  }
  types.push_back(RankedTensorType::get(shape, operand.getElementType()));
  return success();
}

LogicalResult ExpandDimsOp::inferReturnTypes(MLIRContext *ctx, std::optional<Location> loc,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &types) {
  if (failed(checkAttributes(adaptor, ctx, loc)))
    return failure();
  RankedTensorType operand = rankedOf(adaptor.getOperand());
  ArrayRef<int64_t> dims = adaptor.getDimensions();
  int64_t rank = operand.getRank() + dims.size();
  if (failed(checkAxes(loc, dims, rank, "dimensions")))
    return failure();
  SmallVector<int64_t> shape;
  auto it = operand.getShape().begin();
  for (int64_t i = 0; i < rank; ++i)
    shape.push_back(llvm::is_contained(dims, i) ? 1 : *it++);
  types.push_back(RankedTensorType::get(shape, operand.getElementType()));
  return success();
}

LogicalResult DotGeneralOp::inferReturnTypes(MLIRContext *ctx, std::optional<Location> loc,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &types) {
  if (failed(checkAttributes(adaptor, ctx, loc)))
    return failure();
  RankedTensorType lhs = rankedOf(adaptor.getLhs());
  RankedTensorType rhs = rankedOf(adaptor.getRhs());
  ArrayRef<int64_t> lc = adaptor.getLhsContractingDimensions();
  ArrayRef<int64_t> rc = adaptor.getRhsContractingDimensions();
  ArrayRef<int64_t> lb = adaptor.getLhsBatchDimensions();
  ArrayRef<int64_t> rb = adaptor.getRhsBatchDimensions();
  if (lc.size() != rc.size())
    return emitOptionalError(loc, "lhs has ", lc.size(), " contracting dimensions "
                             "but rhs has ", rc.size());
  if (lb.size() != rb.size())
    return emitOptionalError(loc, "lhs has ", lb.size(), " batch dimensions but rhs has ",
                             rb.size());
  SmallVector<int64_t> lhsDims(lc), rhsDims(rc);
  llvm::append_range(lhsDims, lb);
  llvm::append_range(rhsDims, rb);
  if (failed(checkAxes(loc, lhsDims, lhs.getRank(), "lhs contracting+batch dimensions")) ||
      failed(checkAxes(loc, rhsDims, rhs.getRank(), "rhs contracting+batch dimensions")))
    return failure();
  for (auto [l, r] : llvm::zip(lc, rc))
    if (lhs.getDimSize(l) != rhs.getDimSize(r))
      return emitOptionalError(loc, "contracting dimensions differ in size: lhs dimension ",
                               l, " is ", lhs.getDimSize(l), " but rhs dimension ", r,
                               " is ", rhs.getDimSize(r));
  SmallVector<int64_t> shape;
  for (auto [l, r] : llvm::zip(lb, rb)) {
    if (lhs.getDimSize(l) != rhs.getDimSize(r))
      return emitOptionalError(loc, "batch dimensions differ in size: lhs dimension ", l,
                               " is ", lhs.getDimSize(l), " but rhs dimension ", r, " is ",
                               rhs.getDimSize(r));
    shape.push_back(lhs.getDimSize(l));
  }
  for (int64_t i = 0; i < lhs.getRank(); ++i)
    if (!llvm::is_contained(lhsDims, i))
      shape.push_back(lhs.getDimSize(i));
  for (int64_t i = 0; i < rhs.getRank(); ++i)
    if (!llvm::is_contained(rhsDims, i))
      shape.push_back(rhs.getDimSize(i));
  if (lhs.getElementType() != rhs.getElementType())
    return emitOptionalError(loc, "operands have different element types ",
                             lhs.getElementType(), " and ", rhs.getElementType());
  Type element = lhs.getElementType();
  if (auto preferred = adaptor.getPreferredElementTypeAttr())
    element = preferred.getValue();
  types.push_back(RankedTensorType::get(shape, element));
  return success();
}

/// All four reductions share one shape rule: `axes` are removed.
static LogicalResult inferReduce(std::optional<Location> loc, Value operand,
                                 ArrayRef<int64_t> axes, SmallVectorImpl<Type> &types) {
  RankedTensorType type = rankedOf(operand);
  if (failed(checkAxes(loc, axes, type.getRank(), "axes")))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < type.getRank(); ++i)
    if (!llvm::is_contained(axes, i))
      shape.push_back(type.getDimSize(i));
  types.push_back(RankedTensorType::get(shape, type.getElementType()));
  return success();
}

#define KILN_REDUCE_INFERENCE(Op)                                              \
  LogicalResult Op::inferReturnTypes(MLIRContext *ctx, std::optional<Location> loc, \
                                     Adaptor adaptor, SmallVectorImpl<Type> &types) { \
    if (failed(checkAttributes(adaptor, ctx, loc)))             \
      return failure();                                                        \
    return inferReduce(loc, adaptor.getOperand(), adaptor.getAxes(), types);  \
  }
KILN_REDUCE_INFERENCE(ReduceSumOp)
KILN_REDUCE_INFERENCE(ReduceMaxOp)
KILN_REDUCE_INFERENCE(ReduceMinOp)
KILN_REDUCE_INFERENCE(ReduceProdOp)
#undef KILN_REDUCE_INFERENCE
