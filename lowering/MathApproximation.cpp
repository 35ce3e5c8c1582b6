//===- MathApproximation.cpp - vectorizable f32 math ----------------------===//
//
// math.exp/log/tanh/... on f32 become upstream's polynomial
// approximations (MLIR's populateMathPolynomialApproximationPatterns), and
// sin/cos Kiln's own (lowerF32SinCos): plain arithmetic that the loop
// vectorizer turns into SIMD code, where libm calls stay scalar. The
// approximations are accurate to a few ulp on f32 (upstream
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

/// f32 sin and cos over the whole f32 range, within 1.5 ulp of the exact
/// value (upstream's approximations reduce their argument in f32: sin(1e9)
/// was 1.8e12; a reduction modulo 2 pi in f64 still lost every digit beyond
/// |x| = 1e12: sin(1e16) was -0.129 for -0.497;
/// tests/differential/regressions/trig-large-arguments.mlir).
///
/// The argument is reduced modulo pi / 2 as Payne and Hanek do, in f64
/// without tables: 2 / pi is split into six 29-bit chunks c_i, and since an
/// f32 has 24 significant bits every product x * c_i is exact in f64. Each
/// product is reduced modulo 4 exactly (p - 4 round(p / 4): a multiple of
/// p's ulp below 2 in magnitude), and the rest are summed after the quotient
/// n is taken off the first term, so the partial sums stay near the final
/// remainder r and their roundings relative to it (r in [-1/2, 1/2], in
/// units of pi / 2; 174 bits of 2 / pi cover the largest f32 and the f32
/// closest to a multiple of pi / 2 to about 2^-30 relative error of r).
/// y = r pi / 2 is rounded to f32, where Cephes' minimax polynomials for
/// sin and cos on [-pi/4, pi/4] are accurate to an ulp; n mod 4 picks the
/// polynomial and the sign (cos(x) = sin(x + pi / 2): quadrant n + 1).
/// inf and NaN reach NaN through inf - inf.
void lowerF32SinCos(Operation *op) {
  Value x = op->getOperand(0);
  Type type = x.getType();
  if (!getElementTypeOrSelf(type).isF32() || op->getNumResults() != 1)
    return;
  OpBuilder b(op);
  Location loc = op->getLoc();
  Type wide = b.getF64Type();
  if (auto vector = dyn_cast<VectorType>(type))
    wide = vector.clone(b.getF64Type());
  auto c64 = [&](double v) { return floatConstant(b, loc, wide, v); };
  auto c32 = [&](double v) { return floatConstant(b, loc, type, v); };
  auto add = [&](Value l, Value r) { return arith::AddFOp::create(b, loc, l, r).getResult(); };
  auto sub = [&](Value l, Value r) { return arith::SubFOp::create(b, loc, l, r).getResult(); };
  auto mul = [&](Value l, Value r) { return arith::MulFOp::create(b, loc, l, r).getResult(); };
  auto round = [&](Value v) { return math::RoundEvenOp::create(b, loc, v).getResult(); };
  // The first 174 bits of 2 / pi, 29 at a time.
  static constexpr double kTwoOverPi[] = {0x1.45f306dp-1,  0x1.9391054p-30,
                                          0x1.4fe13abp-59, 0x1.d1f534dp-88,
                                          0x1.b81b6c5p-117, 0x1.5993c4p-148};
  Value x64 = arith::ExtFOp::create(b, loc, wide, x);
  SmallVector<Value> terms;
  for (double chunk : kTwoOverPi) {
    Value p = mul(x64, c64(chunk));
    terms.push_back(sub(p, mul(c64(4.0), round(mul(p, c64(0.25))))));
  }
  Value estimate = terms.front();
  for (Value t : llvm::drop_begin(terms))
    estimate = add(estimate, t);
  Value n = round(estimate);
  Value r = sub(terms.front(), n);
  for (Value t : llvm::drop_begin(terms))
    r = add(r, t);
  Value carry = round(r);
  r = sub(r, carry);
  n = add(n, carry);
  if (isa<math::CosOp>(op))
    n = add(n, c64(1.0));
  Value quadrant = sub(n, mul(c64(4.0), math::FloorOp::create(b, loc, mul(n, c64(0.25)))));
  Value y = arith::TruncFOp::create(b, loc, type, mul(r, c64(M_PI_2)));
  Value z = mul(y, y);
  // Cephes' sinf and cosf polynomials.
  Value sinPoly = mul(z, c32(-1.9515295891E-4));
  sinPoly = mul(z, add(sinPoly, c32(8.3321608736E-3)));
  sinPoly = add(y, mul(mul(y, z), add(sinPoly, c32(-1.6666654611E-1))));
  Value cosPoly = mul(z, c32(2.443315711809948E-5));
  cosPoly = mul(z, add(cosPoly, c32(-1.388731625493765E-3)));
  cosPoly = mul(mul(z, z), add(cosPoly, c32(4.166664568298827E-2)));
  cosPoly = add(sub(c32(1.0), mul(c32(0.5), z)), cosPoly);
  auto cmp = [&](arith::CmpFPredicate predicate, double v) {
    return arith::CmpFOp::create(b, loc, predicate, quadrant, c64(v)).getResult();
  };
  Value odd = arith::OrIOp::create(b, loc, cmp(arith::CmpFPredicate::OEQ, 1.0),
                                   cmp(arith::CmpFPredicate::OEQ, 3.0));
  Value value = arith::SelectOp::create(b, loc, odd, cosPoly, sinPoly);
  Value negative = cmp(arith::CmpFPredicate::OGE, 2.0);
  value = arith::SelectOp::create(b, loc, negative, arith::NegFOp::create(b, loc, value), value);
  op->getResult(0).replaceAllUsesWith(value);
  op->erase();
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
/// any range reduction. (With subnormals flushed, erf and log1p of a
/// subnormal are +-0 as XLA's: ScalarizeElementwise's libmOddAtZero selects
/// that around the op before it reaches this pass.)
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
    SmallVector<Operation *> ops, approximated, trig;
    SmallVector<std::pair<Operation *, Value>> odd;
    getOperation()->walk([&](Operation *op) {
      if (isa<math::SinOp, math::ErfOp, math::AtanOp, math::TanhOp, math::ExpM1Op,
              math::Log1pOp>(op))
        odd.push_back({op, op->getOperand(0)});
      if (isa<math::LogOp, math::Log2Op>(op))
        ops.push_back(op);
      if (isa<math::SinOp, math::CosOp>(op))
        trig.push_back(op);
      if (isa<math::SinOp, math::CosOp, math::ExpOp, math::ExpM1Op, math::LogOp,
              math::Log1pOp, math::Log2Op, math::TanhOp, math::ErfOp, math::AtanOp>(op))
        approximated.push_back(op);
    });
    // First, so that the select ends the chain of fixes the others insert
    // after the op (each replaces the uses of the op's result).
    for (auto [op, x] : odd)
      preserveSignedZero(op, x);
    for (Operation *op : ops) {
      if (isa<math::LogOp>(op))
        scaleSubnormalLogArgument(op, 24 * 0.69314718055994530942);
      else if (isa<math::Log2Op>(op))
        scaleSubnormalLogArgument(op, 24);
    }
    for (Operation *op : approximated)
      propagateNaN(op);
    // Last: the fixes above read the op's result, which this replaces.
    for (Operation *op : trig)
      lowerF32SinCos(op);
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
      return llvm::is_contained({"exp", "expm1", "log", "log1p", "log2",
                                 "tanh", "erf", "atan"},
                                name);
    });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
