//===- LaxOps.cpp - lax operations ----------------------------------------===//
//
// Generated op definitions and the verifiers of the ops whose result type is
// spelled rather than inferred. Shape rules: LaxTypeInference.cpp; scan:
// LaxScan.cpp; folders: LaxFolds.cpp.
//
//===----------------------------------------------------------------------===//
#include "dialect/LaxOps.h"
#include "dialect/LaxControlFlowOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/TypeUtilities.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace kiln::lax;

#include "dialect/LaxEnums.cpp.inc"

#define GET_OP_CLASSES
#include "dialect/LaxOps.cpp.inc"

void ConstantOp::build(OpBuilder &builder, OperationState &state,
                       RankedTensorType type, double value) {
  Type element = type.getElementType();
  Attribute scalar;
  if (isa<FloatType>(element))
    scalar = builder.getFloatAttr(element, value);
  else
    scalar = builder.getIntegerAttr(element, (int64_t)value);
  build(builder, state, DenseElementsAttr::get(type, scalar));
}

LogicalResult IntegerPowOp::verify() {
  if (getY() < 0 && !isa<FloatType>(getType().getElementType()))
    return emitOpError("negative exponent ") << getY()
           << " needs a floating-point operand";
  return success();
}

LogicalResult RoundOp::verify() {
  if (getRoundingMethod() != 0 && getRoundingMethod() != 1)
    return emitOpError("rounding_method must be 0 (away from zero) or 1 (to "
                       "nearest even), got ")
           << getRoundingMethod();
  return success();
}

LogicalResult ReducePrecisionOp::verify() {
  if (getExponentBits() < 1 || getMantissaBits() < 0)
    return emitOpError("needs exponent_bits >= 1 and mantissa_bits >= 0, got ")
           << getExponentBits() << " and " << getMantissaBits();
  return success();
}

LogicalResult BitcastConvertTypeOp::verify() {
  Type from = getOperand().getType().getElementType();
  Type to = getType().getElementType();
  if (from.getIntOrFloatBitWidth() != to.getIntOrFloatBitWidth())
    return emitOpError("element types of different bit widths (")
           << from << ", " << to << ") are not supported";
  return success();
}

bool kiln::lax::tensorSizeFits(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape() || elementCountOverflows(tensor.getShape()))
    return false;
  int64_t bytes, elementBytes = int64_t(llvm::divideCeil(
                     tensor.getElementType().getIntOrFloatBitWidth(), 8));
  return !llvm::MulOverflow(tensor.getNumElements(), elementBytes, bytes) &&
         bytes <= kMaxTensorBytes;
}

bool kiln::lax::elementCountOverflows(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    if (d < 0 || llvm::MulOverflow(n, d, n))
      return true;
  return false;
}

LogicalResult IotaOp::verify() {
  if (elementCountOverflows(getType().getShape()))
    return emitOpError("result shape has more elements than int64 can count");
  int64_t rank = getType().getRank();
  if (getDimension() < 0 || getDimension() >= rank)
    return emitOpError("dimension ") << getDimension()
           << " is out of range: expected 0 <= dimension < " << rank;
  return success();
}

LogicalResult ReshapeOp::verify() {
  RankedTensorType in = getOperand().getType(), out = getType();
  if (in.getElementType() != out.getElementType())
    return emitOpError("cannot change the element type from ")
           << in.getElementType() << " to " << out.getElementType();
  if (elementCountOverflows(in.getShape()) || elementCountOverflows(out.getShape()))
    return emitOpError("shape has more elements than int64 can count");
  if (in.getNumElements() != out.getNumElements())
    return emitOpError("operand has ") << in.getNumElements()
           << " elements but the result has " << out.getNumElements();
  return success();
}

/// Checks that `type` is a batch of square matrices.
static LogicalResult verifySquareMatrices(Operation *op, RankedTensorType type, StringRef what) {
  if (type.getRank() < 2 || type.getDimSize(type.getRank() - 1) != type.getDimSize(type.getRank() - 2))
    return op->emitOpError() << "expects " << what
                             << " to be square matrices (rank >= 2, the last two dimensions "
                                "equal), got "
                             << type;
  return success();
}

LogicalResult CholeskyOp::verify() {
  return verifySquareMatrices(*this, getType(), "the operand");
}

/// Checks that `type` is `like` with its trailing `drop` dimensions
/// replaced by `tail` (a decomposition's result of batch dims + tail).
static LogicalResult verifyBatchOf(Operation *op, Type type, RankedTensorType like,
                                   unsigned drop, ArrayRef<int64_t> tail, StringRef what) {
  SmallVector<int64_t> shape(like.getShape().drop_back(drop));
  shape.append(tail.begin(), tail.end());
  auto expected = RankedTensorType::get(shape, like.getElementType());
  if (type != expected)
    return op->emitOpError() << "expects " << what << " of type " << expected << ", got " << type;
  return success();
}

/// The operand as [..., m, n] matrices: m and n, or an error.
static FailureOr<std::pair<int64_t, int64_t>> matrixDims(Operation *op, RankedTensorType a) {
  if (a.getRank() < 2) {
    op->emitOpError() << "expects matrices (rank >= 2), got " << a;
    return failure();
  }
  return std::make_pair(a.getDimSize(a.getRank() - 2), a.getDimSize(a.getRank() - 1));
}

LogicalResult GeqrfOp::verify() {
  auto a = cast<RankedTensorType>(getOperand().getType());
  FailureOr<std::pair<int64_t, int64_t>> mn = matrixDims(*this, a);
  if (failed(mn))
    return failure();
  auto [m, n] = *mn;
  if (failed(verifyBatchOf(*this, getPacked().getType(), a, 0, {}, "packed")))
    return failure();
  return verifyBatchOf(*this, getTaus().getType(), a, 2, {std::min(m, n)}, "taus");
}

LogicalResult HouseholderProductOp::verify() {
  auto a = cast<RankedTensorType>(getOperand().getType());
  FailureOr<std::pair<int64_t, int64_t>> mn = matrixDims(*this, a);
  if (failed(mn))
    return failure();
  auto [m, n] = *mn;
  auto taus = cast<RankedTensorType>(getTaus().getType());
  if (m < n || taus.getRank() != a.getRank() - 1 || taus.getShape().back() > n ||
      taus.getShape().drop_back() != a.getShape().drop_back(2))
    return emitOpError() << "expects an m x n operand with m >= n and k <= n taus per matrix, "
                            "got "
                         << a << " and " << taus;
  return success();
}

LogicalResult SvdOp::verify() {
  auto a = cast<RankedTensorType>(getOperand().getType());
  FailureOr<std::pair<int64_t, int64_t>> mn = matrixDims(*this, a);
  if (failed(mn))
    return failure();
  auto [m, n] = *mn;
  int64_t k = std::min(m, n);
  size_t count = getComputeUv() ? 3 : 1;
  if (getResults().size() != count)
    return emitOpError() << "expects " << count << " results, got " << getResults().size();
  if (failed(verifyBatchOf(*this, getResults()[0].getType(), a, 2, {k}, "singular values")))
    return failure();
  if (!getComputeUv())
    return success();
  bool full = getFullMatrices();
  if (failed(verifyBatchOf(*this, getResults()[1].getType(), a, 2, {m, full ? m : k}, "U")))
    return failure();
  return verifyBatchOf(*this, getResults()[2].getType(), a, 2, {full ? n : k, n}, "V^T");
}

LogicalResult EighOp::verify() {
  auto a = cast<RankedTensorType>(getOperand().getType());
  if (failed(verifySquareMatrices(*this, a, "the operand")))
    return failure();
  if (failed(verifyBatchOf(*this, getVectors().getType(), a, 0, {}, "vectors")))
    return failure();
  return verifyBatchOf(*this, getValues().getType(), a, 2, {a.getShape().back()}, "values");
}

LogicalResult EigOp::verify() {
  auto a = cast<RankedTensorType>(getOperand().getType());
  if (failed(verifySquareMatrices(*this, a, "the operand")))
    return failure();
  size_t count = getComputeVectors() ? 4 : 2;
  if (getResults().size() != count)
    return emitOpError() << "expects " << count << " results, got " << getResults().size();
  SmallVector<int64_t> values{a.getShape().back()};
  for (unsigned i = 0; i < count; ++i) {
    bool isValue = i < 2;
    if (failed(verifyBatchOf(*this, getResults()[i].getType(), a, isValue ? 2 : 0,
                             isValue ? ArrayRef<int64_t>(values) : ArrayRef<int64_t>(),
                             isValue ? "eigenvalue parts" : "eigenvector parts")))
      return failure();
  }
  return success();
}

LogicalResult HostCallbackOp::verify() {
  if (getIndex() < 0)
    return emitOpError() << "expects a callback index >= 0, got " << getIndex();
  return success();
}

LogicalResult LuOp::verify() {
  auto a = cast<RankedTensorType>(getOperand().getType());
  if (a.getRank() < 2)
    return emitOpError() << "expects matrices (rank >= 2), got " << a;
  if (getLu().getType() != a)
    return emitOpError() << "expects lu to have the operand's type " << a;
  int64_t m = a.getDimSize(a.getRank() - 2), n = a.getDimSize(a.getRank() - 1);
  ArrayRef<int64_t> batch = a.getShape().drop_back(2);
  auto vectorOf = [&](int64_t size) {
    SmallVector<int64_t> shape(batch);
    shape.push_back(size);
    return shape;
  };
  if (cast<RankedTensorType>(getPivots().getType()).getShape() != ArrayRef(vectorOf(std::min(m, n))) ||
      cast<RankedTensorType>(getPermutation().getType()).getShape() != ArrayRef(vectorOf(m)))
    return emitOpError() << "expects pivots of shape [..., min(m, n)] and a permutation of "
                            "shape [..., m] for " << a;
  return success();
}

LogicalResult TriangularSolveOp::verify() {
  auto a = cast<RankedTensorType>(getA().getType());
  auto b = cast<RankedTensorType>(getB().getType());
  if (failed(verifySquareMatrices(*this, a, "a")))
    return failure();
  int64_t rank = a.getRank();
  if (b.getRank() != rank || a.getShape().drop_back(2) != b.getShape().drop_back(2))
    return emitOpError() << "expects b to have a's rank and batch dimensions, got " << a
                         << " and " << b;
  int64_t m = a.getDimSize(rank - 1);
  int64_t bm = getLeftSide() ? b.getDimSize(rank - 2) : b.getDimSize(rank - 1);
  if (bm != m)
    return emitOpError() << "expects b's " << (getLeftSide() ? "rows" : "columns") << " (" << bm
                         << ") to match a's size " << m << (getLeftSide() ? " (left_side)" : "");
  return success();
}

LogicalResult RevOp::verify() {
  int64_t rank = getType().getRank();
  SmallVector<bool> seen(rank, false);
  for (int64_t d : getDimensions()) {
    if (d < 0 || d >= rank)
      return emitOpError("dimensions entry ") << d
             << " is out of range: expected 0 <= axis < " << rank;
    if (seen[d])
      return emitOpError("dimensions has duplicate entry ") << d;
    seen[d] = true;
  }
  return success();
}

/// argmax/argmin reduce exactly one axis; the result drops it.
template <typename ArgOp>
static LogicalResult verifyArgReduce(ArgOp op) {
  RankedTensorType in = op.getOperand().getType();
  if (op.getAxes().size() != 1)
    return op.emitOpError("expected exactly one axis, got ") << op.getAxes().size();
  int64_t axis = op.getAxes()[0];
  if (axis < 0 || axis >= in.getRank())
    return op.emitOpError("axis ") << axis << " is out of range: expected 0 <= axis < "
           << in.getRank();
  RankedTensorType expected = dropDim(in, axis);
  if (op.getType().getShape() != expected.getShape())
    return op.emitOpError("result shape must be the operand's without axis ")
           << axis << ", expected " << RankedTensorType::get(expected.getShape(),
                                                             op.getType().getElementType());
  return success();
}

LogicalResult ArgMaxOp::verify() { return verifyArgReduce(*this); }
LogicalResult ArgMinOp::verify() { return verifyArgReduce(*this); }
