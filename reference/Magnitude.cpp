//===- Magnitude.cpp - the magnitude version of a program -----------------===//
//
// magnitudes() of Comparison.h: the mag_i of the error model. A copy of the
// program computes, beside every float value v, a "shadow" S(v) >= |v|: the
// size of everything v was made of, so that v's rounding error is about
// eps * S(v) however much cancelled. The original computation stays (the
// shadows of nonlinear ops, select_n's conditions, dynamic indices, scan
// lengths need the real values) and runs as the reference runs it, rounded
// to its types; the shadow ops run in double (kShadowAttr); only the
// shadows are returned. Rules, with
// x, a, b the operands and r the result:
//
//   input, constant, iota, sign,
//   bitcast_convert_type           S = |r| (0 where r is infinite: exact)
//   add, sub                       S = S(a) + S(b)
//   neg, abs                       S = S(x)
//   mul                            S = |a| S(b) + (S(a) - |a|) |b|
//   div                            S = (S(a) + |r| (S(b) - |b|)) / |b|
//   max, min                       max(S(a), S(b)) (Lipschitz: whichever
//                                  operand is picked)
//   dot_general                    dot(|a|, S(b)) + dot(S(a) - |a|, |b|); f16/bf16
//                                  (summed in f32, rounded once): |r| +
//                                  dot(|a|, |b|) eps(f32) / eps(r) + the
//                                  operands' excess terms as above
//   reduce_sum, reduce_prod        the same reduction of S(x); an f16/bf16
//                                  sum: |r| + sum|x| eps(f32) / eps(r) +
//                                  sum(S(x) - |x|)
//   reduce_max, reduce_min         reduce_max of S(x)
//   data movement (reshape, broadcast_in_dim, transpose, rev, slice,
//   dynamic_slice, dynamic_update_slice, concatenate, squeeze,
//   expand_dims, select_n, gather,
//   scatter set/add/mul)           the same op on the S of its float operands
//   scatter min/max                scatter max of the S
//   convert_element_type           float -> float: S(x) eps(from) / eps(to),
//                                  plus |r| unless it widens; from an
//                                  exact value or an integer: |r|
//   floor, ceil, round, nextafter  S(x) + |r|
//   smooth f (first order)         S = |f'(x)| S(x) + |r|, f' from:
//     exp r   expm1 r+1   exp2 r ln2   log 1/x   log1p 1/(1+x)   sin, cos 1
//     tan 1+r^2   asin, acos 1/sqrt(1-x^2)   atan 1/(1+x^2)   sinh cosh(x)
//     cosh sinh(x)   asinh 1/sqrt(1+x^2)   acosh 1/sqrt(x^2-1)
//     atanh 1/(1-x^2)   tanh 1-r^2   logistic r(1-r)   sqrt 1/(2r)
//     rsqrt r/(2x)   cbrt 1/(3r^2)   erf, erfc 2/sqrt(pi) exp(-x^2)
//     erf_inv sqrt(pi)/2 exp(r^2)   square 2x   integer_pow y x^(y-1)
//     pow(a, b) and atan2(y, x) by both operands
//   lax.scan, lax.while, lax.cond  the same op also carrying (passing,
//                                  yielding) the S of its float operands
//                                  and results; while's predicate region
//                                  only receives them
//   func.call                      a call of the callee's shadowed copy
//   anything else (rem, ops without a rule, other ops with regions, calls
//   of external functions)         NaN: unknown
//   log, log1p, sqrt, rsqrt, asin, acos, acosh, atanh, erf_inv
//                                  +inf (unbounded) where k eps S(x)
//                                  reaches the edge of the domain
//
// For sums and products of inputs this is the interpreter run on the
// "absolute" program (|x| of every input, sub -> add, neg -> identity); for
// products of computed values it drops the second-order term of the
// absolute program's S(a) S(b), which would grow doubly exponentially in a
// recurrence. NaN makes the comparison fall back to the output's scale for
// that element; +inf (S overflowed, a division by zero, an operand's error
// reaching the edge of a domain) bounds nothing there, except that an
// infinite reference stays exact.
//
//===----------------------------------------------------------------------===//
#include "reference/Comparison.h"
#include "reference/MagnitudeShadower.h"

#include "dialect/LaxIndexingOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/TypeSwitch.h"

#include <limits>

using namespace mlir;
using namespace kiln;
using namespace kiln::interp::magnitude;

Value Shadower::unboundedNear(Value sx, Value distance, Value shadow) {
  // A function defined on part of the line (log, sqrt on x >= 0; asin on
  // [-1, 1]) of an operand whose error can reach the edge is anything
  // there: NaN on one side, a number on the other (cos(1.7e38) is -0.96
  // in libm and 1 in a JIT within the model, then log: NaN against 0).
  // The first-order S cannot say so (it is NaN where the reference is).
  // The reach uses the default k, the JIT's and the tagged passes'; an
  // exact operand (S = |x|) never reaches, and one without error (S = 0:
  // log(0), 0 / 0) is at the edge exactly, where every program computes
  // the same (ComparisonTest.MagnitudesAtTheEdgeOfADomain,
  // tests/differential/regressions/log-of-unbounded.mlir).
  Type type = shadow.getType();
  double reach = ErrorModel().k * epsilonOf(getElementTypeOrSelf(type));
  Value reaches = atLeast(mul(sx, splat(type, reach)), distance);
  Value unbounded = select(reaches, shadow, splat(type, INFINITY));
  return select(equal(sx, splat(type, 0)), unbounded, shadow);
}

Value Shadower::shadowOf(Value v) {
  assert(isFloatValue(v) && "only float values have shadows");
  if (Value s = shadows.lookup(v))
    return s;
  OpBuilder::InsertionGuard guard(b);
  if (Operation *def = v.getDefiningOp())
    b.setInsertionPointAfter(def);
  else
    b.setInsertionPointToStart(cast<BlockArgument>(v).getOwner());
  Value s = splat(v.getType(), NAN);
  shadows[v] = s;
  return s;
}

void Shadower::unknown(Operation *op) {
  for (Value r : op->getResults())
    if (isFloatValue(r))
      shadows[r] = splat(r.getType(), NAN);
}

void Shadower::shadowOp(Operation *op) {
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointAfter(op);
  loc = op->getLoc();
  if (auto scan = dyn_cast<lax::ScanOp>(op))
    return shadowScan(scan);
  if (auto call = dyn_cast<func::CallOp>(op))
    return shadowCall(call);
  if (auto loop = dyn_cast<lax::WhileOp>(op))
    return shadowWhile(loop);
  if (auto cond = dyn_cast<lax::CondOp>(op))
    return shadowCond(cond);
  if (llvm::none_of(op->getResults(), isFloatValue))
    return;
  if (op->getNumRegions() > 0 || op->getNumResults() != 1)
    return unknown(op);

  Value r = op->getResult(0);
  Type type = r.getType();
  // | 1 - |x| |: the distance to the edges of asin's, acos's, atanh's and
  // erf_inv's domain [-1, 1].
  auto distanceToOne = [&](Value x) { return abs(sub(splat(type, 1), abs(x))); };
  auto s = [&](unsigned i) { return shadowOf(op->getOperand(i)); };
  auto operand = [&](unsigned i) { return op->getOperand(i); };
  // The same op on other operands.
  auto onOperands = [&](ArrayRef<Value> operands) -> Value {
    IRMapping mapping;
    for (auto [from, to] : llvm::zip(op->getOperands(), operands))
      mapping.map(from, to);
    return b.clone(*op, mapping)->getResult(0);
  };
  // The same op on the shadows of its float operands (other operands, such
  // as indices and select_n's condition, keep their values); exact if they
  // all are.
  auto onShadows = [&]() -> Value {
    SmallVector<Value> operands;
    bool allExact = true;
    for (Value v : op->getOperands()) {
      operands.push_back(isFloatValue(v) ? shadowOf(v) : v);
      allExact &= !isFloatValue(v) || isExact(v);
    }
    if (allExact)
      exactValues.insert(r);
    return onOperands(operands);
  };
  auto allFloatOperands = [&] { return llvm::all_of(op->getOperands(), isFloatValue); };
  // A sum of f16/bf16 terms accumulates in f32 and rounds once (the JIT,
  // XLA's dots; the interpreter rounds its exact sum once): its error is
  // half an ulp of r plus f32's of the sum of |terms|, i.e. in r's units
  // |r| + sumAbs eps(f32) / eps(r) -- not a narrow rounding per term.
  // Null for other types.
  auto narrowSum = [&](Value sumAbs) -> Value {
    Type element = getElementTypeOrSelf(type);
    if (!element.isF16() && !element.isBF16())
      return Value();
    double unit = epsilonOf(b.getF32Type()) / epsilonOf(element);
    return add(abs(r), mul(sumAbs, splat(type, unit)));
  };

  Value shadow =
      llvm::TypeSwitch<Operation *, Value>(op)
          .Case<lax::ConstantOp, arith::ConstantOp, lax::IotaOp, lax::SignOp>(
              [&](auto) { return exact(r); })
          .Case<lax::AddOp, lax::SubOp>([&](auto) { return add(s(0), s(1)); })
          .Case<lax::NegOp, lax::AbsOp>([&](auto) {
            if (isExact(operand(0)))
              exactValues.insert(r);
            return s(0);
          })
          .Case<lax::MulOp>([&](auto) -> Value {
            // |a| S(b) + (S(a) - |a|) |b|: to first order, the error of a
            // times |b| plus |a| times b's (the absolute program's S(a) S(b)
            // also has (S(a) - |a|)(S(b) - |b|), which squares itself in a
            // recurrence such as an LSTM's cell).
            Value t = mul(abs(operand(0)), s(1));
            if (!isExact(operand(0)))
              t = add(t, mul(excess(operand(0)), abs(operand(1))));
            return t;
          })
          .Case<lax::DivOp>([&](auto) -> Value {
            // (S(a) + |a / b| (S(b) - |b|)) / |b|; anything where b's error
            // reaches 0, the pole: sin(x) / sin(x) at x = FLT_MAX is 1 in
            // libm and 0 / 0 = NaN in a JIT whose sin is 0 there (within
            // the model: sin's error there is 1e31;
            // ComparisonTest.MagnitudesAtAPole and
            // tests/differential/regressions/div-pole-unbounded.mlir).
            Value t = s(0);
            if (!isExact(operand(1)))
              t = add(t, mul(abs(r), excess(operand(1))));
            return unboundedNear(s(1), abs(operand(1)), div(t, abs(operand(1))));
          })
          .Case<lax::MaxOp, lax::MinOp>([&](auto) {
            // The larger shadow of the two: |max(a', b') - max(a, b)| <=
            // max(|a' - a|, |b' - b|), whichever operand is picked. The
            // shadow of the picked operand alone was too tight where the
            // other was within its error: relu(x) = max(x, 0) picked the
            // exact 0 (S = 0) for a bf16 dot x that rounded to -0, and
            // jax.jit's x, 4e-5, was judged 1.3e5 x over. An infinite
            // operand's shadow is 0 (exact), so the -inf that starts a max
            // reduction adds nothing (ComparisonTest.MagnitudesOfMaxAndMin).
            return max(s(0), s(1));
          })
          .Case<lax::ExpOp>([&](auto) { return smooth(r, s(0), r); })
          .Case<lax::LogOp>([&](auto) {
            return unboundedNear(s(0), abs(operand(0)),
                                 add(div(s(0), abs(operand(0))), abs(r)));
          })
          .Case<lax::Log1pOp>([&](auto) {
            Value distance = abs(add(splat(type, 1), operand(0)));
            return unboundedNear(s(0), distance, add(div(s(0), distance), abs(r)));
          })
          .Case<lax::SinOp, lax::CosOp>([&](auto) { return add(s(0), abs(r)); })
          .Case<lax::TanhOp>([&](auto) { return smooth(sub(splat(type, 1), square(r)), s(0), r); })
          .Case<lax::LogisticOp>(
              [&](auto) { return smooth(mul(r, sub(splat(type, 1), r)), s(0), r); })
          .Case<lax::SqrtOp>([&](auto) {
            return unboundedNear(s(0), abs(operand(0)),
                                 add(div(s(0), mul(splat(type, 2), abs(r))), abs(r)));
          })
          .Case<lax::RsqrtOp>([&](auto) {
            return unboundedNear(s(0), abs(operand(0)),
                                 smooth(mul(splat(type, 0.5), div(r, operand(0))), s(0), r));
          })
          .Case<lax::SquareOp>(
              [&](auto) { return smooth(mul(splat(type, 2), operand(0)), s(0), r); })
          .Case<lax::IntegerPowOp>([&](lax::IntegerPowOp pow) -> Value {
            int64_t y = pow.getY();
            if (y == 0)
              return abs(r);
            // x^(y - 1); for y = INT64_MIN, y - 1 does not fit: x^y / x.
            Value power = y == std::numeric_limits<int64_t>::min()
                              ? div(r, operand(0))
                              : Value(lax::IntegerPowOp::create(b, loc, type, pow.getOperand(),
                                                                b.getI64IntegerAttr(y - 1)));
            return smooth(mul(splat(type, double(y)), power), s(0), r);
          })
          .Case<lax::PowOp>([&](auto) {
            Value a = abs(operand(0));
            Value viaBase = div(mul(abs(operand(1)), s(0)), a);
            Value viaExponent = mul(abs(lax::LogOp::create(b, loc, type, a)), s(1));
            return add(mul(abs(r), add(viaBase, viaExponent)), abs(r));
          })
          .Case<lax::Expm1Op>([&](auto) { return smooth(add(r, splat(type, 1)), s(0), r); })
          .Case<lax::Exp2Op>([&](auto) { return smooth(mul(splat(type, M_LN2), r), s(0), r); })
          .Case<lax::TanOp>([&](auto) { return smooth(add(splat(type, 1), square(r)), s(0), r); })
          .Case<lax::AsinOp, lax::AcosOp>([&](auto) {
            Value x = operand(0);
            return unboundedNear(
                s(0), distanceToOne(x),
                smooth(lax::RsqrtOp::create(b, loc, type, sub(splat(type, 1), square(x))), s(0),
                       r));
          })
          .Case<lax::AtanOp>([&](auto) {
            return smooth(div(splat(type, 1), add(splat(type, 1), square(operand(0)))), s(0), r);
          })
          .Case<lax::SinhOp>(
              [&](auto) { return smooth(lax::CoshOp::create(b, loc, type, operand(0)), s(0), r); })
          .Case<lax::CoshOp>(
              [&](auto) { return smooth(lax::SinhOp::create(b, loc, type, operand(0)), s(0), r); })
          .Case<lax::AsinhOp>([&](auto) {
            return smooth(
                lax::RsqrtOp::create(b, loc, type, add(splat(type, 1), square(operand(0)))), s(0),
                r);
          })
          .Case<lax::AcoshOp>([&](auto) {
            return unboundedNear(
                s(0), abs(sub(operand(0), splat(type, 1))),
                smooth(lax::RsqrtOp::create(b, loc, type, sub(square(operand(0)), splat(type, 1))),
                       s(0), r));
          })
          .Case<lax::AtanhOp>([&](auto) {
            return unboundedNear(
                s(0), distanceToOne(operand(0)),
                smooth(div(splat(type, 1), sub(splat(type, 1), square(operand(0)))), s(0), r));
          })
          .Case<lax::CbrtOp>([&](auto) {
            return smooth(div(splat(type, 1), mul(splat(type, 3), square(r))), s(0), r);
          })
          .Case<lax::ErfOp, lax::ErfcOp>([&](auto) {
            Value gauss = lax::ExpOp::create(b, loc, type,
                                             lax::NegOp::create(b, loc, type, square(operand(0))));
            return smooth(mul(splat(type, M_2_SQRTPI), gauss), s(0), r);
          })
          .Case<lax::ErfInvOp>([&](auto) {
            Value gauss = lax::ExpOp::create(b, loc, type, square(r));
            return unboundedNear(s(0), distanceToOne(operand(0)),
                                 smooth(mul(splat(type, 1 / M_2_SQRTPI), gauss), s(0), r));
          })
          .Case<lax::Atan2Op>([&](auto) {
            // atan2(y, x): d/dy = x / (x^2 + y^2), d/dx = -y / (x^2 + y^2).
            // Scaled by m = max(|x|, |y|), so that neither S |x| nor
            // x^2 + y^2 overflows: at x = y = DBL_MAX both were inf and the
            // magnitude NaN (unknown), which let the output's scale with
            // f64's eps judge an f32 value computed from it
            // (tests/differential/regressions/atan2-huge-operands.mlir).
            Value y = operand(0), x = operand(1);
            Value m = max(abs(x), abs(y));
            Value xm = div(abs(x), m), ym = div(abs(y), m);
            Value viaY = mul(xm, div(s(0), m)), viaX = mul(ym, div(s(1), m));
            Value carried = div(add(viaY, viaX), add(square(xm), square(ym)));
            // Both operands exact zeros (S = 0 means no error carried in):
            // the result, +-0 or +-pi, has only its own rounding; the
            // formula's 0 / 0 would make it unknown, and sin(atan2(-0, -0))
            // was judged against its output's scale
            // (tests/differential/regressions/atan2-zeros-magnitude.mlir).
            Value noneCarried = equal(add(s(0), s(1)), splat(type, 0));
            return add(select(noneCarried, carried, splat(type, 0)), abs(r));
          })
          // Piecewise constant (or one ulp away): the error of the operand
          // carries over where no step is crossed.
          .Case<lax::FloorOp, lax::CeilOp, lax::RoundOp, lax::NextAfterOp, lax::ReducePrecisionOp>(
              [&](auto) { return add(s(0), abs(r)); })
          .Case<lax::BitcastConvertTypeOp>([&](auto) { return exact(r); })
          .Case<lax::ConvertElementTypeOp>([&](auto) -> Value {
            if (!isFloatValue(operand(0)) || isExact(operand(0)))
              return exact(r);
            // S counts in units of the value's own epsilon (the bound is
            // k * eps(T) * S). A bf16 value's error is bf16's: widened to
            // f32 its S must grow by eps(bf16) / eps(f32) = 2^16, or the
            // f32 bound is 2^16 too tight for it (one bf16 ulp of a
            // reassociated sum judged 340 x the f32 bound;
            // tests/differential/regressions/magnitude-widened-bf16.mlir). A
            // conversion that can round adds its own rounding, |r|; a
            // widening one is exact.
            Type from = getElementTypeOrSelf(operand(0).getType());
            Type to = getElementTypeOrSelf(type);
            double unit = epsilonOf(from) / epsilonOf(to);
            Value carried = mul(lax::ConvertElementTypeOp::create(b, loc, type, s(0)),
                                splat(type, unit));
            return isWideningFloat(from, to) ? carried : add(carried, abs(r));
          })
          .Case<lax::ReduceMaxOp, lax::ReduceMinOp>([&](auto reduce) -> Value {
            // Either picks one element: its error is at most the largest S.
            return lax::ReduceMaxOp::create(b, loc, type, s(0), reduce.getAxesAttr());
          })
          .Case<lax::DotGeneralOp>([&](auto) -> Value {
            if (!allFloatOperands())
              return exact(r);
            Value a = operand(0), bb = operand(1);
            if (Value narrow = narrowSum(onOperands({abs(a), abs(bb)}))) {
              // f16/bf16: the sum accumulates in f32, rounded once.
              Value t = add(narrow, onOperands({abs(a), excess(bb)}));
              return isExact(a) ? t : add(t, onOperands({excess(a), abs(bb)}));
            }
            // As mul, summed: dot(|a|, S(b)) + dot(S(a) - |a|, |b|).
            Value t = onOperands({abs(a), s(1)});
            if (!isExact(a))
              t = add(t, onOperands({excess(a), abs(bb)}));
            return t;
          })
          .Case<lax::ReduceSumOp>([&](auto) {
            Value x = operand(0);
            if (isFloatValue(x))
              if (Value narrow = narrowSum(onOperands({abs(x)}))) {
                exactValues.erase(r);
                return add(narrow, onOperands({excess(x)}));
              }
            // As below (reduce_prod).
            Value shadow = onShadows();
            exactValues.erase(r);
            return shadow;
          })
          .Case<lax::ReduceProdOp>([&](auto) {
            // The same reduction of the shadows, but never exact: a sum of
            // exact values rounds (an f32 sum widened to f64 was judged
            // as an exact value, its one f32 ulp against f64's bound;
            // tests/differential/regressions/reduce-sum-widened.mlir).
            Value shadow = onShadows();
            exactValues.erase(r);
            return shadow;
          })
          .Case<lax::BroadcastInDimOp, lax::ReshapeOp,
                lax::TransposeOp, lax::RevOp, lax::SliceOp, lax::DynamicSliceOp,
                lax::DynamicUpdateSliceOp, lax::ConcatenateOp, lax::SqueezeOp, lax::ExpandDimsOp,
                lax::SelectNOp, lax::GatherOp>([&](auto) { return onShadows(); })
          .Case<lax::ScatterOp>([&](lax::ScatterOp scatter) -> Value {
            if (!isFloatValue(scatter.getUpdates()))
              return splat(type, NAN);
            Value shadow = onShadows();
            // min and max pick one of the values: the largest S bounds it.
            if (scatter.getKind() == lax::ScatterKind::Min ||
                scatter.getKind() == lax::ScatterKind::Max)
              cast<lax::ScatterOp>(shadow.getDefiningOp()).setKind(lax::ScatterKind::Max);
            return shadow;
          })
          .Default([&](Operation *) { return splat(type, NAN); });
  // A rounded result that may underflow has an absolute error besides its
  // relative one (fl(x op y) = (x op y)(1 + d) + e). It matters where a
  // later op scales it up: (c * -FLT_TRUE_MIN) * FLT_MAX is 2 or 1 ulps of
  // a subnormal times FLT_MAX, 9.5e-7 or 7.3e-7 as a reassociating pass
  // regroups it (tests/differential/regressions/magnitude-underflow.mlir).
  // A correctly rounded op with gradual underflow (mul, div, square, a
  // narrowing conversion: IEEE in the interpreter and the JIT; f16 and bf16
  // through f32 round twice) has |e| <= the smallest subnormal, tiny * eps:
  // tiny in S's units. Sums of many rounded terms (dot_general,
  // reduce_prod), repeated products (integer_pow, pow) and the library
  // functions, which may flush a subnormal, get |e| <= tiny: tiny / eps.
  // Sums and differences of subnormals are exact. f16 and bf16 library
  // functions are computed in a wider type and rounded once (the
  // interpreter in double, the JIT in f32: lowering/ScalarizeElementwise.cpp),
  // so their absolute error is that of a rounding: tiny / eps, 6.1e-5 in
  // f16 at k = 1, let the JIT's f16 log1p(1.2e-4) = 0 through
  // (ComparisonTest.MagnitudesOfNarrowFunctionsUnderflow).
  if (!isExact(r)) {
    Type element = getElementTypeOrSelf(type);
    double tiny = tinyOf(element);
    // pow and atan2, library math too, count as repeated products below.
    bool library =
        op->hasTrait<lax::LibraryMath>() && !isa<lax::PowOp, lax::Atan2Op>(op);
    bool narrow = element.isF16() || element.isBF16();
    if (isa<lax::MulOp, lax::DivOp, lax::SquareOp, lax::ConvertElementTypeOp>(op) ||
        (library && narrow))
      shadow = add(shadow, splat(type, tiny));
    else if (library || isa<lax::DotGeneralOp, lax::ReduceProdOp, lax::PowOp, lax::IntegerPowOp,
                            lax::Atan2Op>(op))
      shadow = add(shadow, splat(type, tiny / epsilonOf(element)));
  }
  shadows[r] = shadow;
}
