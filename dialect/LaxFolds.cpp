//===- LaxFolds.cpp - folders and canonicalizations of lax ops ------------===//
//
// Only exact rewrites live here: each one computes bit-identical results.
//
//===----------------------------------------------------------------------===//
#include "dialect/LaxOps.h"

#include "mlir/Dialect/CommonFolders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace kiln::lax;

/// Constant folding is limited to splats and small dense tensors: folding a
/// large dense constant would bloat the IR for no run-time gain.
static constexpr int64_t kMaxFoldElements = 64;

static bool smallOrSplat(Attribute a) {
  auto e = dyn_cast_or_null<DenseElementsAttr>(a);
  return e && (e.isSplat() || e.getNumElements() <= kMaxFoldElements);
}

/// Folds a binary op on constants with `f` (floats) and `i` (integers).
template <typename FloatFn, typename IntFn>
static OpFoldResult foldBinary(ArrayRef<Attribute> operands, Type type, FloatFn f,
                               IntFn i) {
  if (!smallOrSplat(operands[0]) || !smallOrSplat(operands[1]))
    return {};
  Type element = cast<RankedTensorType>(type).getElementType();
  if (isa<FloatType>(element))
    return constFoldBinaryOp<FloatAttr>(operands, type, f);
  if (element.isInteger(1) || !isa<IntegerType>(element))
    return {};
  return constFoldBinaryOp<IntegerAttr>(operands, type, i);
}

/// True when `a` is a splat constant equal to `value`.
static bool isSplatOf(Attribute a, double value) {
  auto e = dyn_cast_or_null<DenseElementsAttr>(a);
  if (!e || !e.isSplat())
    return false;
  if (isa<FloatType>(e.getElementType()))
    return e.getSplatValue<APFloat>().convertToDouble() == value;
  if (e.getElementType().isInteger(1))
    return false;
  return e.getSplatValue<APInt>().getSExtValue() == (int64_t)value;
}

// x + y, x - 0, x * 1, x / 1: the identities are exact in IEEE arithmetic
// (x - (+0) = x even for x = -0; x + 0 is *not* folded since -0 + 0 = +0).
OpFoldResult AddOp::fold(FoldAdaptor a) {
  return foldBinary(a.getOperands(), getType(),
                    [](const APFloat &x, const APFloat &y) { return x + y; },
                    [](const APInt &x, const APInt &y) { return x + y; });
}
OpFoldResult SubOp::fold(FoldAdaptor a) {
  if (isSplatOf(a.getRhs(), 0.0))
    return getLhs();
  return foldBinary(a.getOperands(), getType(),
                    [](const APFloat &x, const APFloat &y) { return x - y; },
                    [](const APInt &x, const APInt &y) { return x - y; });
}
OpFoldResult MulOp::fold(FoldAdaptor a) {
  if (isSplatOf(a.getRhs(), 1.0))
    return getLhs();
  return foldBinary(a.getOperands(), getType(),
                    [](const APFloat &x, const APFloat &y) { return x * y; },
                    [](const APInt &x, const APInt &y) { return x * y; });
}
OpFoldResult DivOp::fold(FoldAdaptor a) {
  if (isSplatOf(a.getRhs(), 1.0))
    return getLhs();
  // Integer division by zero is left to run time (JAX defines no result).
  if (isSplatOf(a.getRhs(), 0.0) && !isa<FloatType>(getType().getElementType()))
    return {};
  return foldBinary(a.getOperands(), getType(),
                    [](const APFloat &x, const APFloat &y) { return x / y; },
                    [](const APInt &x, const APInt &y) { return x.sdiv(y); });
}
OpFoldResult RemOp::fold(FoldAdaptor) { return {}; }
OpFoldResult MaxOp::fold(FoldAdaptor a) {
  if (getLhs() == getRhs())
    return getLhs();
  return foldBinary(a.getOperands(), getType(),
                    [](const APFloat &x, const APFloat &y) { return maximum(x, y); },
                    [](const APInt &x, const APInt &y) { return x.sge(y) ? x : y; });
}
OpFoldResult MinOp::fold(FoldAdaptor a) {
  if (getLhs() == getRhs())
    return getLhs();
  return foldBinary(a.getOperands(), getType(),
                    [](const APFloat &x, const APFloat &y) { return minimum(x, y); },
                    [](const APInt &x, const APInt &y) { return x.sle(y) ? x : y; });
}
OpFoldResult PowOp::fold(FoldAdaptor a) {
  if (isSplatOf(a.getRhs(), 1.0))
    return getLhs();
  return {};
}
OpFoldResult AndOp::fold(FoldAdaptor) {
  return getLhs() == getRhs() ? OpFoldResult(getLhs()) : OpFoldResult();
}
OpFoldResult OrOp::fold(FoldAdaptor) {
  return getLhs() == getRhs() ? OpFoldResult(getLhs()) : OpFoldResult();
}

OpFoldResult IntegerPowOp::fold(FoldAdaptor) {
  if (getY() == 1)
    return getOperand();
  return {};
}

OpFoldResult ConvertElementTypeOp::fold(FoldAdaptor) {
  if (getOperand().getType() == getType())
    return getOperand();
  return {};
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

/// A splat constant reshaped/broadcast is the same splat in the new type.
static OpFoldResult reshapeSplat(Attribute operand, Type type) {
  auto e = dyn_cast_or_null<SplatElementsAttr>(operand);
  if (!e)
    return {};
  return SplatElementsAttr::get(cast<ShapedType>(type),
                                e.getSplatValue<Attribute>());
}

OpFoldResult BroadcastInDimOp::fold(FoldAdaptor a) {
  if (getOperand().getType() == getType())
    return getOperand(); // same shape: dims must be the identity (verified)
  return reshapeSplat(a.getOperand(), getType());
}

OpFoldResult ReshapeOp::fold(FoldAdaptor a) {
  if (getOperand().getType() == getType())
    return getOperand();
  return reshapeSplat(a.getOperand(), getType());
}

namespace {
/// reshape(reshape(x)) -> reshape(x): a row-major reshape only depends on the
/// element order, which neither reshape changes.
struct ReshapeOfReshape : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op, PatternRewriter &rewriter) const override {
    auto inner = op.getOperand().getDefiningOp<ReshapeOp>();
    if (!inner)
      return rewriter.notifyMatchFailure(op, "operand is not a reshape");
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), inner.getOperand());
    return success();
  }
};

/// transpose(transpose(x, p1), p2) -> transpose(x, p1 o p2): result dim i of
/// the outer is inner dim p2[i], which is x dim p1[p2[i]].
struct TransposeOfTranspose : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op, PatternRewriter &rewriter) const override {
    auto inner = op.getOperand().getDefiningOp<TransposeOp>();
    if (!inner)
      return rewriter.notifyMatchFailure(op, "operand is not a transpose");
    SmallVector<int64_t> composed;
    for (int64_t p : op.getPermutation())
      composed.push_back(inner.getPermutation()[p]);
    rewriter.replaceOpWithNewOp<TransposeOp>(op, inner.getOperand(), composed);
    return success();
  }
};
} // namespace

void ReshapeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add<ReshapeOfReshape>(context);
}

OpFoldResult TransposeOp::fold(FoldAdaptor a) {
  if (llvm::all_of(llvm::enumerate(getPermutation()),
                   [](auto p) { return (int64_t)p.index() == p.value(); }))
    return getOperand();
  return reshapeSplat(a.getOperand(), getType());
}

void TransposeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<TransposeOfTranspose>(context);
}

OpFoldResult RevOp::fold(FoldAdaptor a) {
  // Reversing size-1 dimensions (or none) changes nothing.
  if (llvm::all_of(getDimensions(),
                   [&](int64_t d) { return getType().getDimSize(d) == 1; }))
    return getOperand();
  if (isa_and_nonnull<SplatElementsAttr>(a.getOperand()))
    return a.getOperand();
  return {};
}

OpFoldResult SliceOp::fold(FoldAdaptor a) {
  if (getOperand().getType() == getType())
    return getOperand(); // full extent with stride 1 is the only same-shape slice
  return reshapeSplat(a.getOperand(), getType());
}

OpFoldResult ConcatenateOp::fold(FoldAdaptor) {
  if (getInputs().size() == 1)
    return getInputs().front();
  return {};
}

#define KILN_REDUCE_FOLD(Op)                                                   \
  OpFoldResult Op::fold(FoldAdaptor) {                                         \
    /* Reducing over no axes is the identity. */                               \
    if (getAxes().empty())                                                     \
      return getOperand();                                                     \
    return {};                                                                 \
  }
KILN_REDUCE_FOLD(ReduceSumOp)
KILN_REDUCE_FOLD(ReduceMaxOp)
KILN_REDUCE_FOLD(ReduceMinOp)
KILN_REDUCE_FOLD(ReduceProdOp)
#undef KILN_REDUCE_FOLD
