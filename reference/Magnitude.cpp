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
//   max, min                       S of the operand r equals (both equal:
//                                  the larger S)
//   dot_general                    dot(|a|, S(b)) + dot(S(a) - |a|, |b|)
//   reduce_sum, reduce_prod        the same reduction of S(x)
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
//
// For sums and products of inputs this is the interpreter run on the
// "absolute" program (|x| of every input, sub -> add, neg -> identity); for
// products of computed values it drops the second-order term of the
// absolute program's S(a) S(b), which would grow doubly exponentially in a
// recurrence. NaN,
// and anything non-finite (S overflowed, a division by zero), makes the
// comparison fall back to the output's scale for that element.
//
//===----------------------------------------------------------------------===//
#include "reference/Comparison.h"
#include "reference/Interpreter.h"

#include "dialect/LaxControlFlowOps.h"
#include "dialect/LaxIndexingOps.h"
#include "dialect/LaxOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace kiln;
using namespace kiln::interp;

namespace {

bool isFloatValue(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && isa<FloatType>(t.getElementType());
}

/// Whether every value of float type `from` is a value of `to` (f16 -> f32,
/// bf16 -> f64): converting cannot round.
bool isWideningFloat(Type from, Type to) {
  return llvm::APFloat::isRepresentableBy(cast<FloatType>(from).getFloatSemantics(),
                                          cast<FloatType>(to).getFloatSemantics());
}

/// The attribute on every op the Shadower builds (the shadow computations,
/// and the region ops it rebuilds to carry them): magnitudes() runs them in
/// double (InterpreterOptions::unroundedAttr), the original ops as the
/// reference does.
constexpr llvm::StringLiteral kShadowAttr = "kiln.magnitude_shadow";

/// Marks each op a builder inserts (clones included) with kShadowAttr.
struct ShadowMarker : OpBuilder::Listener {
  void notifyOperationInserted(Operation *op, OpBuilder::InsertPoint) override {
    op->setAttr(kShadowAttr, UnitAttr::get(op->getContext()));
  }
};

/// Adds the shadow computations to the functions of a module (a copy).
class Shadower {
public:
  explicit Shadower(ModuleOp module) : symbols(module), b(module.getContext()) {
    b.setListener(&marker);
  }

  /// Turns @`entry` into a new public function that takes the same inputs
  /// and returns S of each float result (a non-float result as it is).
  FailureOr<func::FuncOp> magnitudeFunction(func::FuncOp entry);

private:
  /// A copy of `f`, named apart, taking (args, S(float args)) and returning
  /// (results, S(float results)); null when `f` cannot be shadowed.
  func::FuncOp shadowedCallee(func::FuncOp f);
  /// Adds the shadows of the ops of `block` (terminator excluded).
  void shadowBlock(Block &block) { shadowOps(opsOf(block)); }
  static SmallVector<Operation *> opsOf(Block &block) {
    SmallVector<Operation *> ops;
    for (Operation &op : block.without_terminator())
      ops.push_back(&op);
    return ops;
  }
  void shadowOps(ArrayRef<Operation *> ops) {
    for (Operation *op : ops)
      shadowOp(op);
  }
  void shadowOp(Operation *op);
  void shadowScan(lax::ScanOp scan);
  void shadowWhile(lax::WhileOp loop);
  void shadowCond(lax::CondOp cond);
  void shadowCall(func::CallOp call);
  /// Appends to `block` one argument per float value of `values` (its
  /// shadow) and records it as the shadow of the matching block argument
  /// `args[i]`; inserts them at `at` when given.
  void addShadowArguments(Block &block, ArrayRef<Value> values, ArrayRef<BlockArgument> args,
                          std::optional<unsigned> at = std::nullopt);
  /// `values`, then the shadows of the float ones.
  SmallVector<Value> withShadows(ValueRange values);
  /// Sets the operands of `terminator` to its own, then their shadows.
  void yieldShadows(Operation *terminator);
  /// The shadow of `v`: one recorded, or NaN (unknown) after its definition.
  Value shadowOf(Value v);
  /// NaN for every float result of `op`.
  void unknown(Operation *op);

  // Builders at the current insertion point.
  Value abs(Value v) { return lax::AbsOp::create(b, loc, v.getType(), v); }
  Value add(Value x, Value y) { return lax::AddOp::create(b, loc, x.getType(), x, y); }
  Value mul(Value x, Value y) { return lax::MulOp::create(b, loc, x.getType(), x, y); }
  Value div(Value x, Value y) { return lax::DivOp::create(b, loc, x.getType(), x, y); }
  Value max(Value x, Value y) { return lax::MaxOp::create(b, loc, x.getType(), x, y); }
  Value sub(Value x, Value y) { return lax::SubOp::create(b, loc, x.getType(), x, y); }
  Value square(Value x) { return mul(x, x); }
  /// x == y elementwise (i1).
  Value equal(Value x, Value y) {
    auto type = cast<RankedTensorType>(x.getType());
    return lax::CompareOp::create(
        b, loc, RankedTensorType::get(type.getShape(), b.getI1Type()),
        lax::ComparisonDirectionAttr::get(b.getContext(), lax::ComparisonDirection::EQ), x, y);
  }
  /// `ifTrue` where `which`, else `ifFalse`.
  Value select(Value which, Value ifFalse, Value ifTrue) {
    return lax::SelectNOp::create(b, loc, ifFalse.getType(), which, ValueRange{ifFalse, ifTrue});
  }
  Value splat(Type type, double value) {
    return lax::ConstantOp::create(b, loc, cast<RankedTensorType>(type), value);
  }
  /// S of a value without rounding error (an input, a constant): |v|, but 0
  /// where v is infinite. An infinity has no rounding error and the model
  /// compares it exactly; as |v| it would make infinite (or, times a zero
  /// derivative, NaN) the S of everything it reaches, even exp(-inf) = 0 or
  /// max(-inf, x).
  Value exact(Value v) {
    exactValues.insert(v);
    Value a = abs(v);
    return select(equal(a, splat(v.getType(), INFINITY)), a, splat(v.getType(), 0));
  }
  /// Whether S(v) is exact(v): v has no rounding error.
  bool isExact(Value v) const { return exactValues.contains(v); }
  /// S(v) - |v| (at least 0): the part of S that is error carried in.
  Value excess(Value v) { return max(sub(shadowOf(v), abs(v)), splat(v.getType(), 0)); }
  /// The first-order rule S = |derivative| * S(x) + |r|.
  Value smooth(Value derivative, Value sx, Value r) {
    return add(mul(abs(derivative), sx), abs(r));
  }

  SymbolTable symbols;
  ShadowMarker marker;
  OpBuilder b;
  Location loc = b.getUnknownLoc();
  DenseMap<Value, Value> shadows;
  /// Original values whose shadow is exact(v).
  DenseSet<Value> exactValues;
  DenseMap<Operation *, func::FuncOp> shadowedCallees;
};

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
            // (S(a) + |a / b| (S(b) - |b|)) / |b|.
            Value t = s(0);
            if (!isExact(operand(1)))
              t = add(t, mul(abs(r), excess(operand(1))));
            return div(t, abs(operand(1)));
          })
          .Case<lax::MaxOp, lax::MinOp>([&](auto) {
            // The shadow of the operand picked (an unpicked -inf, the start
            // of a max reduction, does not count); on a tie the larger.
            Value sa = s(0), sb = s(1), both = max(sa, sb);
            Value tieOrA = select(equal(r, operand(1)), sa, both);
            return select(equal(r, operand(0)), sb, tieOrA);
          })
          .Case<lax::ExpOp>([&](auto) { return smooth(r, s(0), r); })
          .Case<lax::LogOp>([&](auto) { return add(div(s(0), abs(operand(0))), abs(r)); })
          .Case<lax::Log1pOp>(
              [&](auto) { return add(div(s(0), abs(add(splat(type, 1), operand(0)))), abs(r)); })
          .Case<lax::SinOp, lax::CosOp>([&](auto) { return add(s(0), abs(r)); })
          .Case<lax::TanhOp>([&](auto) { return smooth(sub(splat(type, 1), square(r)), s(0), r); })
          .Case<lax::LogisticOp>(
              [&](auto) { return smooth(mul(r, sub(splat(type, 1), r)), s(0), r); })
          .Case<lax::SqrtOp>(
              [&](auto) { return add(div(s(0), mul(splat(type, 2), abs(r))), abs(r)); })
          .Case<lax::RsqrtOp>(
              [&](auto) { return smooth(mul(splat(type, 0.5), div(r, operand(0))), s(0), r); })
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
            return smooth(lax::RsqrtOp::create(b, loc, type, sub(splat(type, 1), square(x))), s(0),
                          r);
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
            return smooth(
                lax::RsqrtOp::create(b, loc, type, sub(square(operand(0)), splat(type, 1))), s(0),
                r);
          })
          .Case<lax::AtanhOp>([&](auto) {
            return smooth(div(splat(type, 1), sub(splat(type, 1), square(operand(0)))), s(0), r);
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
            return smooth(mul(splat(type, 1 / M_2_SQRTPI), gauss), s(0), r);
          })
          .Case<lax::Atan2Op>([&](auto) {
            // atan2(y, x): d/dy = x / (x^2 + y^2), d/dx = -y / (x^2 + y^2).
            Value y = operand(0), x = operand(1);
            Value viaY = mul(abs(x), s(0)), viaX = mul(abs(y), s(1));
            return add(div(add(viaY, viaX), add(square(x), square(y))), abs(r));
          })
          // Piecewise constant (or one ulp away): the error of the operand
          // carries over where no step is crossed.
          .Case<lax::FloorOp, lax::CeilOp, lax::RoundOp, lax::NextAfterOp>(
              [&](auto) { return add(s(0), abs(r)); })
          .Case<lax::BitcastConvertTypeOp>([&](auto) { return exact(r); })
          .Case<lax::ConvertElementTypeOp>([&](auto) -> Value {
            if (!isFloatValue(operand(0)) || isExact(operand(0)))
              return exact(r);
            // S counts in units of the value's own epsilon (the bound is
            // k * eps(T) * S). A bf16 value's error is bf16's: widened to
            // f32 its S must grow by eps(bf16) / eps(f32) = 2^16, or the
            // f32 bound is 2^16 too tight for it (generated programs 105983,
            // 113731, 116970, 123535: one bf16 ulp of a reassociated sum
            // judged 340 x the f32 bound). A conversion that can round adds
            // its own rounding, |r|; a widening one is exact.
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
            // As mul, summed: dot(|a|, S(b)) + dot(S(a) - |a|, |b|).
            Value a = operand(0), bb = operand(1);
            Value t = onOperands({abs(a), s(1)});
            if (!isExact(a))
              t = add(t, onOperands({excess(a), abs(bb)}));
            return t;
          })
          .Case<lax::ReduceSumOp, lax::ReduceProdOp, lax::BroadcastInDimOp, lax::ReshapeOp,
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
  shadows[r] = shadow;
}

void Shadower::shadowScan(lax::ScanOp scan) {
  Block &body = scan.getBodyBlock();
  unsigned numConsts = scan.getNumConsts(), numCarry = scan.getNumCarry();
  SmallVector<Value> consts(scan.getConsts()), inits(scan.getInits()), xs(scan.getXs());
  SmallVector<BlockArgument> constArgs(scan.getConstArgs()), carryArgs(scan.getCarryArgs()),
      xArgs(scan.getXSliceArgs());
  auto floatOnes = [](ValueRange values) {
    SmallVector<unsigned> indices;
    for (auto [i, v] : llvm::enumerate(values))
      if (isFloatValue(v))
        indices.push_back(i);
    return indices;
  };
  SmallVector<unsigned> fConsts = floatOnes(consts), fCarries = floatOnes(inits),
                        fXs = floatOnes(xs);

  // Operands and the body's arguments: consts, S(consts), carries,
  // S(carries), xs, S(xs); the body yields carries, S(carries), ys slices,
  // S(ys slices); results are carries, S(carries), ys, S(ys).
  addShadowArguments(body, consts, constArgs, numConsts);
  addShadowArguments(body, inits, carryArgs, numConsts + fConsts.size() + numCarry);
  addShadowArguments(body, xs, xArgs);
  shadowBlock(body);
  Operation *yield = body.getTerminator();
  SmallVector<Value> yielded(yield->getOperands());
  ValueRange newCarries = ValueRange(yielded).take_front(numCarry);
  ValueRange ysSlices = ValueRange(yielded).drop_front(numCarry);
  SmallVector<unsigned> fYs = floatOnes(ysSlices);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(yield);
    SmallVector<Value> operands = withShadows(newCarries);
    llvm::append_range(operands, withShadows(ysSlices));
    yield->setOperands(operands);
  }

  SmallVector<Value> args = withShadows(consts);
  llvm::append_range(args, withShadows(inits));
  llvm::append_range(args, withShadows(xs));
  SmallVector<int64_t> xsAxes(scan.getXsAxes()), ysAxes(scan.getYsAxes());
  for (unsigned i : fXs)
    xsAxes.push_back(scan.getXsAxis(i));
  for (unsigned i : fYs)
    ysAxes.push_back(scan.getYsAxis(i));
  ResultRange finals = scan.getFinalCarries(), ys = scan.getYs();
  SmallVector<Type> resultTypes(finals.getTypes());
  for (unsigned i : fCarries)
    resultTypes.push_back(finals[i].getType());
  llvm::append_range(resultTypes, ys.getTypes());
  for (unsigned i : fYs)
    resultTypes.push_back(ys[i].getType());

  b.setInsertionPoint(scan);
  auto shadowed = lax::ScanOp::create(b, scan.getLoc(), resultTypes, args, scan.getLength(),
                                      numConsts + fConsts.size(), numCarry + fCarries.size(),
                                      scan.getReverse(), scan.getUnroll(), xsAxes, ysAxes);
  shadowed->setDiscardableAttrs(scan->getDiscardableAttrDictionary());
  shadowed->setAttr(kShadowAttr, b.getUnitAttr());
  shadowed.getBody().takeBody(scan.getBody());
  ResultRange results = shadowed->getResults();
  unsigned numCarries = numCarry + fCarries.size(), numYs = ys.size();
  for (auto [j, i] : llvm::enumerate(fCarries))
    shadows[results[i]] = results[numCarry + j];
  for (auto [j, i] : llvm::enumerate(fYs))
    shadows[results[numCarries + i]] = results[numCarries + numYs + j];
  for (unsigned i = 0; i < numCarry; ++i)
    finals[i].replaceAllUsesWith(results[i]);
  for (unsigned i = 0; i < numYs; ++i)
    ys[i].replaceAllUsesWith(results[numCarries + i]);
  scan.erase();
}

SmallVector<Value> Shadower::withShadows(ValueRange values) {
  SmallVector<Value> result(values);
  for (Value v : values)
    if (isFloatValue(v))
      result.push_back(shadowOf(v));
  return result;
}

void Shadower::addShadowArguments(Block &block, ArrayRef<Value> values,
                                  ArrayRef<BlockArgument> args, std::optional<unsigned> at) {
  for (auto [v, arg] : llvm::zip(values, args))
    if (isFloatValue(v))
      shadows[arg] = at ? block.insertArgument((*at)++, arg.getType(), arg.getLoc())
                        : block.addArgument(arg.getType(), arg.getLoc());
}

void Shadower::yieldShadows(Operation *terminator) {
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(terminator);
  terminator->setOperands(withShadows(terminator->getOperands()));
}

void Shadower::shadowWhile(lax::WhileOp loop) {
  // Operands: cond consts, body consts, S(float body consts), carries,
  // S(float carries). The cond region only computes the predicate: it gets
  // the carries' shadows as arguments and no shadows of its own.
  SmallVector<Value> bodyConsts(loop.getBodyConsts()), inits(loop.getInits());
  SmallVector<BlockArgument> condCarries(loop.getCondCarryArgs()),
      bodyConstArgs(loop.getBodyConstArgs()), bodyCarries(loop.getBodyCarryArgs());
  Block &condBlock = loop.getCondBlock(), &bodyBlock = loop.getBodyBlock();
  for (auto [v, arg] : llvm::zip(inits, condCarries))
    if (isFloatValue(v))
      condBlock.addArgument(arg.getType(), arg.getLoc());
  unsigned numBodyConsts = loop.getNumBodyConsts();
  addShadowArguments(bodyBlock, bodyConsts, bodyConstArgs, numBodyConsts);
  addShadowArguments(bodyBlock, inits, bodyCarries);
  shadowBlock(bodyBlock);
  yieldShadows(bodyBlock.getTerminator());

  SmallVector<Value> newBodyConsts = withShadows(bodyConsts);
  b.setInsertionPoint(loop);
  auto shadowed = lax::WhileOp::create(b, loop.getLoc(), loop.getCondConsts(), newBodyConsts,
                                       withShadows(inits));
  shadowed->setDiscardableAttrs(loop->getDiscardableAttrDictionary());
  shadowed->setAttr(kShadowAttr, b.getUnitAttr());
  shadowed.getCond().takeBody(loop.getCond());
  shadowed.getBody().takeBody(loop.getBody());
  ResultRange results = shadowed->getResults();
  unsigned next = inits.size();
  for (auto [i, r] : llvm::enumerate(loop.getResults())) {
    r.replaceAllUsesWith(results[i]);
    if (isFloatValue(r))
      shadows[results[i]] = results[next++];
  }
  loop.erase();
}

void Shadower::shadowCond(lax::CondOp cond) {
  SmallVector<Value> operands(cond.getBranchOperands());
  for (Region &branch : cond.getBranches()) {
    Block &block = branch.front();
    SmallVector<BlockArgument> args(block.getArguments());
    addShadowArguments(block, operands, args);
    shadowBlock(block);
    yieldShadows(block.getTerminator());
  }
  SmallVector<Type> resultTypes(cond.getResultTypes());
  for (Value r : cond.getResults())
    if (isFloatValue(r))
      resultTypes.push_back(r.getType());
  b.setInsertionPoint(cond);
  auto shadowed = lax::CondOp::create(b, cond.getLoc(), resultTypes, cond.getIndex(),
                                      withShadows(operands), cond.getNumBranches());
  shadowed->setDiscardableAttrs(cond->getDiscardableAttrDictionary());
  shadowed->setAttr(kShadowAttr, b.getUnitAttr());
  for (auto [to, from] : llvm::zip(shadowed.getBranches(), cond.getBranches()))
    to.takeBody(from);
  ResultRange results = shadowed->getResults();
  unsigned next = cond.getNumResults();
  for (auto [i, r] : llvm::enumerate(cond.getResults())) {
    r.replaceAllUsesWith(results[i]);
    if (isFloatValue(r))
      shadows[results[i]] = results[next++];
  }
  cond.erase();
}

func::FuncOp Shadower::shadowedCallee(func::FuncOp f) {
  if (f.isExternal() || !f.getBody().hasOneBlock())
    return nullptr;
  auto it = shadowedCallees.find(f);
  if (it != shadowedCallees.end())
    return it->second;
  func::FuncOp g = f.clone();
  g.setName((f.getSymName() + "__shadowed").str());
  g.setPrivate();
  symbols.insert(g); // renames it if the name is taken
  shadowedCallees[f] = g;

  Block &body = g.getBody().front();
  SmallVector<BlockArgument> args(body.getArguments());
  addShadowArguments(body, SmallVector<Value>(args.begin(), args.end()), args);
  shadowBlock(body);
  Operation *ret = body.getTerminator();
  yieldShadows(ret);
  g.setType(FunctionType::get(g.getContext(), body.getArgumentTypes(), ret->getOperandTypes()));
  return g;
}

void Shadower::shadowCall(func::CallOp call) {
  auto callee = dyn_cast_or_null<func::FuncOp>(
      SymbolTable::lookupNearestSymbolFrom(call, call.getCalleeAttr()));
  func::FuncOp g = callee ? shadowedCallee(callee) : nullptr;
  if (!g)
    return unknown(call);
  b.setInsertionPoint(call);
  auto shadowed = func::CallOp::create(b, call.getLoc(), g, withShadows(call.getOperands()));
  unsigned next = call.getNumResults();
  for (auto [i, r] : llvm::enumerate(call.getResults())) {
    r.replaceAllUsesWith(shadowed.getResult(i));
    if (isFloatValue(r))
      shadows[shadowed.getResult(i)] = shadowed.getResult(next++);
  }
  call.erase();
}

FailureOr<func::FuncOp> Shadower::magnitudeFunction(func::FuncOp entry) {
  if (entry.isExternal() || !entry.getBody().hasOneBlock())
    return failure();
  func::FuncOp g = entry.clone();
  g.setName((entry.getSymName() + "__magnitudes").str());
  g.setPublic();
  symbols.insert(g);
  Block &body = g.getBody().front();
  SmallVector<Operation *> ops = opsOf(body);
  b.setInsertionPointToStart(&body);
  loc = g.getLoc();
  for (BlockArgument arg : body.getArguments())
    if (isFloatValue(arg))
      shadows[arg] = exact(arg);
  shadowOps(ops);
  Operation *ret = body.getTerminator();
  SmallVector<Value> operands;
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ret);
    for (Value v : ret->getOperands())
      operands.push_back(isFloatValue(v) ? shadowOf(v) : v);
  }
  ret->setOperands(operands);
  // What only the original results needed goes (when nothing else uses it).
  SmallVector<Operation *> all = opsOf(body);
  for (Operation *op : llvm::reverse(all))
    if (isOpTriviallyDead(op))
      op->erase();
  return g;
}

} // namespace

OwningOpRef<ModuleOp> kiln::interp::magnitudeModule(ModuleOp module, StringRef entry,
                                                    std::string &function, std::string &error) {
  OwningOpRef<ModuleOp> copy(module.clone());
  auto func = dyn_cast_or_null<func::FuncOp>(SymbolTable::lookupSymbolIn(*copy, entry));
  if (!func) {
    error = ("no function named '" + entry + "'").str();
    return nullptr;
  }
  Shadower shadower(*copy);
  FailureOr<func::FuncOp> g = shadower.magnitudeFunction(func);
  if (failed(g)) {
    error = ("@" + entry + " has no single-block body").str();
    return nullptr;
  }
  std::string messages;
  {
    ScopedDiagnosticHandler handler(copy->getContext(), [&](Diagnostic &d) {
      messages += d.str() + "\n";
      return success();
    });
    if (failed(verify(*copy))) {
      error = "the magnitude version of @" + entry.str() + " does not verify: " + messages;
      return nullptr;
    }
  }
  function = g->getSymName().str();
  return copy;
}

FailureOr<SmallVector<Tensor>> kiln::interp::magnitudes(ModuleOp module, StringRef entry,
                                                        ArrayRef<Tensor> inputs,
                                                        std::string &error) {
  std::string function;
  OwningOpRef<ModuleOp> copy = magnitudeModule(module, entry, function, error);
  if (!copy)
    return failure();
  std::string messages;
  ScopedDiagnosticHandler handler(copy->getContext(), [&](Diagnostic &d) {
    messages += d.str() + "\n";
    return success();
  });
  // The original computation runs as the reference runs it, rounded to its
  // types, so that the shadows' derivatives and |r| are taken at the values
  // the comparison measures against; the shadows run in double. (With the
  // whole run in double, an ill-conditioned rounding moved the point:
  // generated program 30946 converts 2147483646 to f32, 2^31, then takes
  // pow(FLT_MAX, cos(x)): 1.46e9 in f32, 1.4e-38 at the double 2147483646,
  // so S = 2.7e-27 < |ref| and a JIT 5 ulps off in cos, amplified 21-fold
  // by pow as the first-order rule allows, failed: magnitude-rounded-point.mlir.)
  InterpreterOptions options;
  options.unroundedAttr = kShadowAttr;
  FailureOr<SmallVector<Tensor>> result = interpret(*copy, function, inputs, options);
  if (failed(result)) {
    error = "the interpreter cannot run the magnitude version of @" + entry.str() + ": " + messages;
    return failure();
  }
  return result;
}
