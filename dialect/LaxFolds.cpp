//===- LaxFolds.cpp - folders and canonicalizations of lax ops ------------===//
//
// Only exact rewrites live here: each one gives, for every input (-0.0, NaN,
// +-inf, denormals, integer extremes included), the bits the reference
// interpreter (reference/InterpretElementwise.cpp) computes for the original
// op, NaN payloads aside. A fold that could change a bit, or whose op could
// trap at run time (integer x / 0, INT_MIN / -1), does not fire: the op stays
// and the lowering gives it its documented result. docs/dialect.md lists the
// folds and why each is exact.
//
//===----------------------------------------------------------------------===//
#include "dialect/LaxOps.h"

#include "mlir/Dialect/CommonFolders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>

using namespace mlir;
using namespace kiln::lax;

/// Constant folding is limited to splats and small dense tensors: folding a
/// large dense constant would bloat the IR for no run-time gain.
static constexpr int64_t kMaxFoldElements = 64;

static bool smallOrSplat(Attribute a) {
  auto e = dyn_cast_or_null<DenseElementsAttr>(a);
  return e && (e.isSplat() || e.getNumElements() <= kMaxFoldElements);
}

/// Folds a binary op on constants element by element: `f` (floats, in the
/// element type's own IEEE arithmetic, rounding to nearest even) and `i`
/// (integers, told whether the element type is unsigned) return the result
/// element, or std::nullopt when that element must not be folded; then the
/// whole op stays.
template <typename FloatFn, typename IntFn>
static OpFoldResult foldBinary(ArrayRef<Attribute> operands, Type type, FloatFn f,
                               IntFn i) {
  if (!smallOrSplat(operands[0]) || !smallOrSplat(operands[1]))
    return {};
  Type element = cast<RankedTensorType>(type).getElementType();
  if (isa<FloatType>(element))
    return constFoldBinaryOpConditional<FloatAttr, APFloat, void>(
        operands, type,
        [&](const APFloat &x, const APFloat &y) -> std::optional<APFloat> { return f(x, y); });
  if (element.isInteger(1) || !isa<IntegerType>(element))
    return {};
  bool isUnsigned = element.isUnsignedInteger();
  return constFoldBinaryOpConditional<IntegerAttr, APInt, void>(
      operands, type, [&](const APInt &x, const APInt &y) -> std::optional<APInt> {
        return i(x, y, isUnsigned);
      });
}

/// True when `a` is a splat constant equal to `value`: bit for bit for floats
/// (so +0.0 and -0.0 differ), by value for integers (where -0.0 means 0).
/// Predicates never match. `value` must be exact in every element type.
static bool isSplatOf(Attribute a, double value) {
  auto e = dyn_cast_or_null<DenseElementsAttr>(a);
  if (!e || !e.isSplat())
    return false;
  if (auto floatType = dyn_cast<FloatType>(e.getElementType())) {
    APFloat want(value);
    bool losesInfo = false;
    want.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven, &losesInfo);
    return !losesInfo && e.getSplatValue<APFloat>().bitwiseIsEqual(want);
  }
  if (e.getElementType().isInteger(1))
    return false;
  APInt splat = e.getSplatValue<APInt>();
  return splat == APInt(splat.getBitWidth(), uint64_t(int64_t(value)), /*isSigned=*/true);
}

static bool isIntegerTensor(Type type) {
  Type element = cast<RankedTensorType>(type).getElementType();
  return isa<IntegerType>(element) && !element.isInteger(1);
}

/// The zero splat of an integer tensor type.
static Attribute zeroOf(Type type) {
  auto tensor = cast<RankedTensorType>(type);
  return DenseElementsAttr::get(
      tensor, APInt::getZero(tensor.getElementType().getIntOrFloatBitWidth()));
}

/// Integer division or remainder that the folder may compute: not by a zero
/// divisor, nor signed INT_MIN / -1 (the overflow traps on x86 as x / 0
/// does). Those ops stay in the IR: XLA defines their results (x / 0 = -1,
/// x % 0 = x, INT_MIN / -1 = INT_MIN, INT_MIN % -1 = 0), which the
/// interpreter and the lowering compute at run time.
static bool divisionFolds(const APInt &x, const APInt &y, bool isUnsigned) {
  if (y.isZero())
    return false;
  return isUnsigned || !(x.isMinSignedValue() && y.isAllOnes());
}

/// An arithmetic fold's float result, or std::nullopt (the op stays) when
/// it is NaN. Which NaN an IEEE operation gives is not specified: inf - inf,
/// 0 * inf and 0 / 0 are -NaN (0xFFF8...) in x86 arithmetic, the
/// interpreter's, but +NaN in APFloat's, and a propagated NaN's payload
/// depends on the operand order the machine code picks. A bitcast_convert_type
/// of the result shows those bits (-inf - -inf in f16 folded to +NaN, where
/// the interpreter's -NaN bitcast to bf16 is -4.25e37), so such an element
/// is left to the interpreter and the JIT
/// (tests/differential/regressions/fold-nan-result.mlir).
static std::optional<APFloat> unlessNaN(APFloat r) {
  if (r.isNaN())
    return std::nullopt;
  return r;
}

// Identities, each exact for every input (IEEE, round to nearest even;
// integers wrap):
//   x + (-0.0) = x   (+0 + -0 = +0, -0 + -0 = -0); not x + (+0.0): -0 + +0 = +0
//   x - (+0.0) = x   (x - +0 is x + -0); not x - (-0.0): -0 - -0 = +0
//   x * 1 = x, x / 1 = x, max(x, x) = min(x, x) = x
//   integers only: x + 0 = x - 0 = x, x - x = 0, x * 0 = 0 (for floats
//   x - x and x * 0 are NaN for x = inf, and x * 0 is -0 for x < 0).
// The constant operand of a commutative op is on the right by then (the
// canonicalizer moves it there).
OpFoldResult AddOp::fold(FoldAdaptor a) {
  if (isSplatOf(a.getRhs(), -0.0))
    return getLhs();
  return foldBinary(
      a.getOperands(), getType(), [](const APFloat &x, const APFloat &y) { return unlessNaN(x + y); },
      [](const APInt &x, const APInt &y, bool) -> std::optional<APInt> { return x + y; });
}
OpFoldResult SubOp::fold(FoldAdaptor a) {
  if (isSplatOf(a.getRhs(), 0.0))
    return getLhs();
  if (getLhs() == getRhs() && isIntegerTensor(getType()))
    return zeroOf(getType());
  return foldBinary(
      a.getOperands(), getType(), [](const APFloat &x, const APFloat &y) { return unlessNaN(x - y); },
      [](const APInt &x, const APInt &y, bool) -> std::optional<APInt> { return x - y; });
}
OpFoldResult MulOp::fold(FoldAdaptor a) {
  if (isSplatOf(a.getRhs(), 1.0))
    return getLhs();
  if (isSplatOf(a.getRhs(), 0.0) && isIntegerTensor(getType()))
    return zeroOf(getType());
  return foldBinary(
      a.getOperands(), getType(), [](const APFloat &x, const APFloat &y) { return unlessNaN(x * y); },
      [](const APInt &x, const APInt &y, bool) -> std::optional<APInt> { return x * y; });
}
// Integer division truncates (sdiv/udiv as the interpreter's C++ `/`); float
// division is IEEE (x / 0 = +-inf or NaN, which never traps).
OpFoldResult DivOp::fold(FoldAdaptor a) {
  if (isSplatOf(a.getRhs(), 1.0))
    return getLhs();
  return foldBinary(
      a.getOperands(), getType(), [](const APFloat &x, const APFloat &y) { return unlessNaN(x / y); },
      [](const APInt &x, const APInt &y, bool isUnsigned) -> std::optional<APInt> {
        if (!divisionFolds(x, y, isUnsigned))
          return std::nullopt;
        return isUnsigned ? x.udiv(y) : x.sdiv(y);
      });
}
// The remainder has the dividend's sign (srem/urem as C++ `%`); for floats it
// is fmod, which is exact, as APFloat::mod is.
OpFoldResult RemOp::fold(FoldAdaptor a) {
  return foldBinary(
      a.getOperands(), getType(),
      [](const APFloat &x, const APFloat &y) {
        APFloat r = x;
        r.mod(y);
        return unlessNaN(r);
      },
      [](const APInt &x, const APInt &y, bool isUnsigned) -> std::optional<APInt> {
        if (!divisionFolds(x, y, isUnsigned))
          return std::nullopt;
        return isUnsigned ? x.urem(y) : x.srem(y);
      });
}

/// max/min of two floats: IEEE maximum/minimum (APFloat's maximum), NaN
/// propagating and -0 < +0, as the interpreter and the JIT (arith.maximumf).
/// Of two NaNs the one with the larger bits, whatever the order, as the
/// interpreter (reference/Evaluator.h, largerNaN): max and min are
/// commutative ops, which the canonicalizer and CSE may reorder.
static std::optional<APFloat> maxOrMin(const APFloat &x, const APFloat &y, bool isMax) {
  if (x.isNaN() && y.isNaN())
    return x.bitcastToAPInt().uge(y.bitcastToAPInt()) ? x : y;
  return isMax ? maximum(x, y) : minimum(x, y);
}
static APInt maxOrMin(const APInt &x, const APInt &y, bool isUnsigned, bool isMax) {
  bool xFirst = isUnsigned ? (isMax ? x.uge(y) : x.ule(y)) : (isMax ? x.sge(y) : x.sle(y));
  return xFirst ? x : y;
}
OpFoldResult MaxOp::fold(FoldAdaptor a) {
  if (getLhs() == getRhs())
    return getLhs();
  return foldBinary(
      a.getOperands(), getType(),
      [](const APFloat &x, const APFloat &y) { return maxOrMin(x, y, /*isMax=*/true); },
      [](const APInt &x, const APInt &y, bool isUnsigned) -> std::optional<APInt> {
        return maxOrMin(x, y, isUnsigned, /*isMax=*/true);
      });
}
OpFoldResult MinOp::fold(FoldAdaptor a) {
  if (getLhs() == getRhs())
    return getLhs();
  return foldBinary(
      a.getOperands(), getType(),
      [](const APFloat &x, const APFloat &y) { return maxOrMin(x, y, /*isMax=*/false); },
      [](const APInt &x, const APInt &y, bool isUnsigned) -> std::optional<APInt> {
        return maxOrMin(x, y, isUnsigned, /*isMax=*/false);
      });
}
// pow(x, 1) = x for every x (pow(+-0, 1) = +-0, pow(NaN, 1) = NaN, and a
// faithful pow cannot miss a representable exact result).
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

// A reduction over no axes combines each element once with the identity:
// max(-inf, x), min(+inf, x) and 1 * x are x for every x (integers: INT_MIN /
// INT_MAX / 1, or 0 / UINT_MAX unsigned), but 0 + x is +0 for x = -0.0 (as
// the interpreter and the JIT compute it), so a float reduce_sum stays.
OpFoldResult ReduceSumOp::fold(FoldAdaptor) {
  if (getAxes().empty() && isIntegerTensor(getType()))
    return getOperand();
  return {};
}
#define KILN_REDUCE_FOLD(Op)                                                   \
  OpFoldResult Op::fold(FoldAdaptor) {                                         \
    if (getAxes().empty())                                                     \
      return getOperand();                                                     \
    return {};                                                                 \
  }
KILN_REDUCE_FOLD(ReduceMaxOp)
KILN_REDUCE_FOLD(ReduceMinOp)
KILN_REDUCE_FOLD(ReduceProdOp)
#undef KILN_REDUCE_FOLD
