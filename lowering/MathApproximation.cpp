//===- MathApproximation.cpp - vectorizable f32 math ----------------------===//
//
// math.sin/cos/exp/log/tanh/... on f32 become upstream's polynomial
// approximations (MLIR's populateMathPolynomialApproximationPatterns): plain
// arithmetic that the loop vectorizer turns into SIMD code, where libm calls
// stay scalar. The approximations are accurate to a few ulp on f32 (upstream
// checks them against libm); f64 keeps libm. jax-ml/jax#4968's `cos` over 8M
// elements is the motivating case.
//
//===----------------------------------------------------------------------===//
#include "lowering/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/TypeUtilities.h"

#include <cmath>
#include <optional>
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kiln {
#define GEN_PASS_DEF_APPROXIMATEMATH
#include "lowering/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {
/// A constant of `type` (f32/f64, or a vector of them) holding `value`.
Value floatConstant(OpBuilder &b, Location loc, Type type, double value) {
  Type element = getElementTypeOrSelf(type);
  auto attr = b.getFloatAttr(element, value);
  if (auto vector = dyn_cast<VectorType>(type))
    return arith::ConstantOp::create(b, loc, DenseElementsAttr::get(vector, attr));
  return arith::ConstantOp::create(b, loc, attr);
}

/// Upstream's sin/cos approximations reduce their argument in f32 and are
/// only valid for moderate |x|: sin(1e9) came out as 1.8e12, sin(1e12) as
/// -inf. The argument is reduced here first, modulo 2 pi in f64
/// (x - round(x / 2pi) * 2pi with one rounding): exact to about 1e-16 |x|
/// relative to 2 pi, so the approximation only sees [-pi, pi]. Where |x| is
/// so large that f64 cannot reduce it (beyond 2^53) the remainder is
/// unknown and 0 stands in: sin and cos then stay in [-1, 1], which is all a
/// float32 argument that large determines within the error model (its
/// rounding error is larger than 2 pi). inf and NaN still give NaN
/// (tests/differential/regressions/trig-large-arguments.mlir).
void reduceTrigArgument(Operation *op) {
  Value x = op->getOperand(0);
  Type type = x.getType();
  if (!getElementTypeOrSelf(type).isF32())
    return;
  OpBuilder b(op);
  Location loc = op->getLoc();
  Type wide = b.getF64Type();
  if (auto vector = dyn_cast<VectorType>(type))
    wide = vector.clone(b.getF64Type());
  Value x64 = arith::ExtFOp::create(b, loc, wide, x);
  Value q = arith::MulFOp::create(b, loc, x64,
                                  floatConstant(b, loc, wide, 0.15915494309189535));
  Value k = math::RoundEvenOp::create(b, loc, q);
  Value negK = arith::NegFOp::create(b, loc, k);
  Value r = math::FmaOp::create(b, loc, negK,
                                floatConstant(b, loc, wide, 6.283185307179586), x64);
  Value absR = math::AbsFOp::create(b, loc, r);
  Value lost = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, absR,
                                     floatConstant(b, loc, wide, 4.0));
  r = arith::SelectOp::create(b, loc, lost, floatConstant(b, loc, wide, 0.0), r);
  Value narrow = arith::TruncFOp::create(b, loc, type, r);
  if (!isa<math::SinOp>(op)) {
    op->setOperand(0, narrow);
    return;
  }
  // sin is odd: the polynomial sees |r| and the sign is put back, so that
  // sin(-0) is -0 and sin of a tiny negative number is that number (the
  // polynomial gave 6.2e-8 for sin(-1.4e-45);
  // tests/differential/regressions/trig-large-arguments.mlir).
  op->setOperand(0, math::AbsFOp::create(b, loc, narrow));
  b.setInsertionPointAfter(op);
  Value result = op->getResult(0);
  Value signed_ = math::CopySignOp::create(b, loc, result, narrow);
  result.replaceAllUsesExcept(signed_, signed_.getDefiningOp());
}

/// Upstream's log approximation reads the exponent from the bits and
/// treats a subnormal as a normal number: log(1e-45) came out as -87.3
/// instead of -103.3. A subnormal argument is scaled by 2^24 first and
/// 24 ln 2 (log2: 24) taken off the result; 0, negatives, inf and NaN are
/// unchanged by the scaling.
void scaleSubnormalLogArgument(Operation *op, double shift) {
  Value x = op->getOperand(0);
  Type type = x.getType();
  if (!getElementTypeOrSelf(type).isF32() || op->getNumResults() != 1)
    return;
  OpBuilder b(op);
  Location loc = op->getLoc();
  Value absX = math::AbsFOp::create(b, loc, x);
  Value sub = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, absX,
                                    floatConstant(b, loc, type, 0x1p-126));
  Value scaled = arith::MulFOp::create(b, loc, x, floatConstant(b, loc, type, 0x1p24));
  op->setOperand(0, arith::SelectOp::create(b, loc, sub, scaled, x));
  b.setInsertionPointAfter(op);
  Value r = op->getResult(0);
  Value fixed = arith::SubFOp::create(b, loc, r, floatConstant(b, loc, type, shift));
  Value result = arith::SelectOp::create(b, loc, sub, fixed, r);
  SmallPtrSet<Operation *, 2> keep{fixed.getDefiningOp(), result.getDefiningOp()};
  r.replaceAllUsesExcept(result, keep);
}

/// The polynomials handle NaN only by accident of x86's min/max
/// instructions: once folded with a constant NaN (maxnumf ignores NaN)
/// exp(NaN) and sin(NaN) became 0. A NaN argument is passed through
/// explicitly (tests/differential/regressions/math-constant-nan.mlir).
void propagateNaN(Operation *op) {
  Value x = op->getOperand(0);
  Type type = x.getType();
  if (!getElementTypeOrSelf(type).isF32() || op->getNumResults() != 1)
    return;
  OpBuilder b(op);
  b.setInsertionPointAfter(op);
  Location loc = op->getLoc();
  Value isNaN = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
  Value r = op->getResult(0);
  Value result = arith::SelectOp::create(b, loc, isNaN, x, r);
  r.replaceAllUsesExcept(result, result.getDefiningOp());
}

/// f(+-0) = +-0 for the functions approximated here that keep zeros (sin,
/// erf, atan, tanh, expm1, log1p), but f32 sin (its range reduction's
/// fma(-k, pi/2, x) is +0 for k = 0, x = -0) and erf gave +0 for -0
/// (atan2(sin(-0), -0) was +pi instead of -pi;
/// tests/differential/regressions/math-negative-zero.mlir).
/// A zero argument is passed through explicitly; `x` is the argument before
/// any range reduction.
void preserveSignedZero(Operation *op, Value x) {
  Type type = x.getType();
  if (!getElementTypeOrSelf(type).isF32() || op->getNumResults() != 1)
    return;
  OpBuilder b(op);
  b.setInsertionPointAfter(op);
  Location loc = op->getLoc();
  Value isZero = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, x,
                                       floatConstant(b, loc, type, 0.0));
  Value r = op->getResult(0);
  Value result = arith::SelectOp::create(b, loc, isZero, x, r);
  r.replaceAllUsesExcept(result, result.getDefiningOp());
}

/// f64 log1p: MathToLLVM lowers math.log1p to log(1 + x), which cancels for
/// small x (log1p(0.001) was 500 ulps off;
/// tests/differential/regressions/log1p-f64.mlir).
/// Goldberg's formula is accurate to a few ulps: u = 1 + x; x where u == 1
/// (x = -0 stays -0), log(u) * (x / (u - 1)) elsewhere, x where u is inf.
/// What the f64 rewrites below start from: a builder before `op`, its
/// operand x, x's type and the constant 1.
struct F64Rewrite {
  OpBuilder b;
  Location loc;
  Value x;
  Type type;
  Value one;
};

/// None when `op`'s operand is not f64 (the f32 lowerings are accurate).
std::optional<F64Rewrite> f64Rewrite(Operation *op) {
  Value x = op->getOperand(0);
  Type type = x.getType();
  if (!getElementTypeOrSelf(type).isF64())
    return std::nullopt;
  OpBuilder b(op);
  Value one = floatConstant(b, op->getLoc(), type, 1.0);
  return F64Rewrite{b, op->getLoc(), x, type, one};
}

void accurateLog1p(math::Log1pOp op) {
  std::optional<F64Rewrite> f = f64Rewrite(op);
  if (!f)
    return;
  auto &[b, loc, x, type, one] = *f;
  Value u = arith::AddFOp::create(b, loc, one, x);
  Value um1 = arith::SubFOp::create(b, loc, u, one);
  // log(u) * (x / (u - 1)): log(u) * x would overflow for x near the
  // largest double (log1p(DBL_MAX / 2) = 709.09 was inf;
  // tests/differential/regressions/log1p-f64-large.mlir).
  Value scaled = arith::MulFOp::create(b, loc, math::LogOp::create(b, loc, u),
                                       arith::DivFOp::create(b, loc, x, um1));
  Value exact = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, u, one);
  Value inf = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, u,
                                    floatConstant(b, loc, type, INFINITY));
  Value keep = arith::OrIOp::create(b, loc, exact, inf);
  op.replaceAllUsesWith(arith::SelectOp::create(b, loc, keep, x, scaled).getResult());
  op.erase();
}

/// f64 expm1: MathToLLVM lowers math.expm1 to exp(x) - 1, which cancels for
/// small x (expm1(0.001) was about 190 ulps off;
/// tests/differential/regressions/expm1-f64.mlir).
/// Kahan's formula is accurate to a few ulps: u = exp(x); x where u == 1
/// (x = -0 stays -0), -1 where u - 1 == -1, u where u is inf, and
/// (u - 1) * (x / log(u)) elsewhere.
void accurateExpm1(math::ExpM1Op op) {
  std::optional<F64Rewrite> f = f64Rewrite(op);
  if (!f)
    return;
  auto &[b, loc, x, type, one] = *f;
  Value minusOne = floatConstant(b, loc, type, -1.0);
  Value u = math::ExpOp::create(b, loc, x);
  Value um1 = arith::SubFOp::create(b, loc, u, one);
  // (u - 1) * (x / log(u)): x * (u - 1) would overflow before the division
  // near exp's overflow (expm1(709.7) = 1.57e308).
  Value scaled = arith::MulFOp::create(
      b, loc, um1, arith::DivFOp::create(b, loc, x, math::LogOp::create(b, loc, u)));
  auto eq = [&](Value a, Value c) {
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, a, c);
  };
  Value r = arith::SelectOp::create(b, loc, eq(u, floatConstant(b, loc, type, INFINITY)), u,
                                    scaled);
  r = arith::SelectOp::create(b, loc, eq(um1, minusOne), minusOne, r);
  r = arith::SelectOp::create(b, loc, eq(u, one), x, r);
  op.replaceAllUsesWith(r);
  op.erase();
}

struct ApproximateMathPass : kiln::impl::ApproximateMathBase<ApproximateMathPass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops, approximated;
    SmallVector<std::pair<Operation *, Value>> odd;
    getOperation()->walk([&](Operation *op) {
      if (isa<math::SinOp, math::ErfOp, math::AtanOp, math::TanhOp, math::ExpM1Op,
              math::Log1pOp>(op))
        odd.push_back({op, op->getOperand(0)});
      if (isa<math::SinOp, math::CosOp, math::LogOp, math::Log2Op>(op))
        ops.push_back(op);
      if (isa<math::SinOp, math::CosOp, math::ExpOp, math::ExpM1Op, math::LogOp,
              math::Log1pOp, math::Log2Op, math::TanhOp, math::ErfOp, math::AtanOp>(op))
        approximated.push_back(op);
    });
    // First, so that the select ends the chain of fixes the others insert
    // after the op (each replaces the uses of the op's result).
    for (auto [op, x] : odd)
      preserveSignedZero(op, x);
    for (Operation *op : ops) {
      if (isa<math::SinOp, math::CosOp>(op))
        reduceTrigArgument(op);
      else if (isa<math::LogOp>(op))
        scaleSubnormalLogArgument(op, 24 * 0.69314718055994530942);
      else if (isa<math::Log2Op>(op))
        scaleSubnormalLogArgument(op, 24);
    }
    for (Operation *op : approximated)
      propagateNaN(op);
    SmallVector<Operation *> f64Rewrites;
    getOperation()->walk([&](Operation *op) {
      if (isa<math::Log1pOp, math::ExpM1Op>(op))
        f64Rewrites.push_back(op);
    });
    for (Operation *op : f64Rewrites) {
      if (auto log1p = dyn_cast<math::Log1pOp>(op))
        accurateLog1p(log1p);
      else
        accurateExpm1(cast<math::ExpM1Op>(op));
    }
    RewritePatternSet patterns(&getContext());
    // The predicate sees the op name (upstream spells some "math.cos",
    // others "tanh"): accept both spellings of the ops Kiln emits.
    populateMathPolynomialApproximationPatterns(patterns, [](StringRef name) {
      name.consume_front("math.");
      // Not atan2: upstream's gives NaN for atan2(+-0, +-0) and for two
      // infinities (atan2(-inf, -inf) was NaN instead of -3 pi / 4;
      // tests/differential/regressions/math-special-values.mlir); libm's is
      // exact there.
      return llvm::is_contained({"sin", "cos", "exp", "expm1", "log", "log1p", "log2",
                                 "tanh", "erf", "atan"},
                                name);
    });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
