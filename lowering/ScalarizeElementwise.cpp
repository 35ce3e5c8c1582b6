//===- ScalarizeElementwise.cpp - lax elementwise ops on scalars ----------===//
//
// One element of each lax elementwise op, in arith/math, with JAX's
// semantics: max/min propagate NaN (arith.maximumf), integer division and
// remainder are signed (truncating) unless the type is unsigned, logistic is
// 1 / (1 + exp(-x)), sign(0) = 0, integer_pow by repeated squaring.
// The operands may also be vectors of such scalars (lanes of a vectorized
// loop): every op built here is elementwise on vectors in arith and math.
//
//===----------------------------------------------------------------------===//
#include "lowering/ScalarizeElementwise.h"

#include "dialect/LaxOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::lax;

Value kiln::scalarConstant(OpBuilder &b, Location loc, Type type, double value) {
  Type elem = getElementTypeOrSelf(type);
  TypedAttr attr = isa<FloatType>(elem) ? (TypedAttr)b.getFloatAttr(elem, value)
                                        : (TypedAttr)b.getIntegerAttr(elem, (int64_t)value);
  if (auto vector = dyn_cast<VectorType>(type))
    attr = DenseElementsAttr::get(vector, attr);
  return arith::ConstantOp::create(b, loc, attr);
}

namespace {

/// Integer types in arith are signless: unsigned lax types need the
/// unsigned variants and a signless view.
bool isUnsigned(Type t) { return t.isUnsignedInteger(); }

Value integerPow(OpBuilder &b, Location loc, Value x, int64_t y) {
  Type type = x.getType();
  bool isFloat = isa<FloatType>(getElementTypeOrSelf(type));
  auto mul = [&](Value l, Value r) -> Value {
    return isFloat ? (Value)arith::MulFOp::create(b, loc, l, r)
                   : (Value)arith::MulIOp::create(b, loc, l, r);
  };
  int64_t n = y < 0 ? -y : y;
  Value result = scalarConstant(b, loc, type, 1.0), base = x;
  while (n > 0) { // square-and-multiply, as XLA expands integer_pow
    if (n & 1)
      result = mul(result, base);
    n >>= 1;
    if (n)
      base = mul(base, base);
  }
  if (y < 0)
    result = arith::DivFOp::create(b, loc, scalarConstant(b, loc, type, 1.0), result);
  return result;
}

arith::CmpFPredicate floatPredicate(ComparisonDirection d) {
  switch (d) {
  case ComparisonDirection::EQ: return arith::CmpFPredicate::OEQ;
  case ComparisonDirection::NE: return arith::CmpFPredicate::UNE;
  case ComparisonDirection::LT: return arith::CmpFPredicate::OLT;
  case ComparisonDirection::LE: return arith::CmpFPredicate::OLE;
  case ComparisonDirection::GT: return arith::CmpFPredicate::OGT;
  case ComparisonDirection::GE: return arith::CmpFPredicate::OGE;
  }
  llvm_unreachable("direction");
}

arith::CmpIPredicate intPredicate(ComparisonDirection d, bool isUnsignedType) {
  switch (d) {
  case ComparisonDirection::EQ: return arith::CmpIPredicate::eq;
  case ComparisonDirection::NE: return arith::CmpIPredicate::ne;
  case ComparisonDirection::LT: return isUnsignedType ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt;
  case ComparisonDirection::LE: return isUnsignedType ? arith::CmpIPredicate::ule : arith::CmpIPredicate::sle;
  case ComparisonDirection::GT: return isUnsignedType ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt;
  case ComparisonDirection::GE: return isUnsignedType ? arith::CmpIPredicate::uge : arith::CmpIPredicate::sge;
  }
  llvm_unreachable("direction");
}

/// `x` (a scalar of type `from`, or a vector of them) converted to element
/// type `toElem`.
Value convert(OpBuilder &b, Location loc, Value x, Type from, Type toElem) {
  if (from == toElem)
    return x;
  Type to = toElem;
  if (auto vector = dyn_cast<VectorType>(x.getType()))
    to = vector.clone(toElem);
  auto ff = dyn_cast<FloatType>(from), tf = dyn_cast<FloatType>(toElem);
  if (ff && tf)
    return ff.getWidth() < tf.getWidth() ? (Value)arith::ExtFOp::create(b, loc, to, x)
                                          : (Value)arith::TruncFOp::create(b, loc, to, x);
  if (ff) // float -> int truncates toward zero, as JAX
    return isUnsigned(toElem) ? (Value)arith::FPToUIOp::create(b, loc, to, x)
                          : (Value)arith::FPToSIOp::create(b, loc, to, x);
  if (tf) {
    if (from.isInteger(1) || isUnsigned(from))
      return arith::UIToFPOp::create(b, loc, to, x);
    return arith::SIToFPOp::create(b, loc, to, x);
  }
  unsigned fw = from.getIntOrFloatBitWidth(), tw = toElem.getIntOrFloatBitWidth();
  if (toElem.isInteger(1)) // int -> bool is x != 0
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x,
                                 scalarConstant(b, loc, x.getType(), 0));
  if (fw < tw)
    return (from.isInteger(1) || isUnsigned(from)) ? (Value)arith::ExtUIOp::create(b, loc, to, x)
                                                   : (Value)arith::ExtSIOp::create(b, loc, to, x);
  if (fw > tw)
    return arith::TruncIOp::create(b, loc, to, x);
  return arith::BitcastOp::create(b, loc, to, x); // i32 <-> ui32: same bits
}

} // namespace

Value kiln::scalarizeElementwise(OpBuilder &b, Operation *op, ValueRange s) {
  Location loc = op->getLoc();
  Type type = s.empty() ? Type() : s[0].getType(); // a scalar or a vector of lanes
  Type elem = type ? getElementTypeOrSelf(type) : Type();
  bool isFloat = isa_and_nonnull<FloatType>(elem);
  bool unsignedType = elem && isUnsigned(elem);
  auto fi = [&](auto makeFloat, auto makeInt) -> Value {
    return isFloat ? (Value)makeFloat() : (Value)makeInt();
  };
  return TypeSwitch<Operation *, Value>(op)
      .Case([&](AddOp) { return fi([&] { return arith::AddFOp::create(b, loc, s[0], s[1]); },
                                   [&] { return arith::AddIOp::create(b, loc, s[0], s[1]); }); })
      .Case([&](SubOp) { return fi([&] { return arith::SubFOp::create(b, loc, s[0], s[1]); },
                                   [&] { return arith::SubIOp::create(b, loc, s[0], s[1]); }); })
      .Case([&](MulOp) { return fi([&] { return arith::MulFOp::create(b, loc, s[0], s[1]); },
                                   [&] { return arith::MulIOp::create(b, loc, s[0], s[1]); }); })
      .Case([&](DivOp) -> Value {
        if (isFloat)
          return arith::DivFOp::create(b, loc, s[0], s[1]);
        return unsignedType ? (Value)arith::DivUIOp::create(b, loc, s[0], s[1])
                            : (Value)arith::DivSIOp::create(b, loc, s[0], s[1]);
      })
      .Case([&](RemOp) -> Value {
        if (isFloat)
          return arith::RemFOp::create(b, loc, s[0], s[1]);
        return unsignedType ? (Value)arith::RemUIOp::create(b, loc, s[0], s[1])
                            : (Value)arith::RemSIOp::create(b, loc, s[0], s[1]);
      })
      .Case([&](MaxOp) -> Value {
        if (isFloat)
          return arith::MaximumFOp::create(b, loc, s[0], s[1]);
        return unsignedType ? (Value)arith::MaxUIOp::create(b, loc, s[0], s[1])
                            : (Value)arith::MaxSIOp::create(b, loc, s[0], s[1]);
      })
      .Case([&](MinOp) -> Value {
        if (isFloat)
          return arith::MinimumFOp::create(b, loc, s[0], s[1]);
        return unsignedType ? (Value)arith::MinUIOp::create(b, loc, s[0], s[1])
                            : (Value)arith::MinSIOp::create(b, loc, s[0], s[1]);
      })
      .Case([&](PowOp) { return math::PowFOp::create(b, loc, s[0], s[1]); })
      .Case([&](AndOp) { return arith::AndIOp::create(b, loc, s[0], s[1]); })
      .Case([&](OrOp) { return arith::OrIOp::create(b, loc, s[0], s[1]); })
      .Case([&](NotOp) {
        return arith::XOrIOp::create(b, loc, s[0],
                                     scalarConstant(b, loc, type, -1));
      })
      .Case([&](NegOp) {
        return fi([&] { return arith::NegFOp::create(b, loc, s[0]); },
                  [&] { return arith::SubIOp::create(b, loc, scalarConstant(b, loc, type, 0), s[0]); });
      })
      .Case([&](AbsOp) {
        return fi([&] { return math::AbsFOp::create(b, loc, s[0]); },
                  [&] { return math::AbsIOp::create(b, loc, s[0]); });
      })
      .Case([&](SignOp) -> Value {
        Value zero = scalarConstant(b, loc, type, 0);
        if (isFloat) // copysign(1, x) for x != 0, x itself for 0 and NaN
          return arith::SelectOp::create(
              b, loc, arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, s[0], zero),
              math::CopySignOp::create(b, loc, scalarConstant(b, loc, type, 1), s[0]), s[0]);
        Value pos = arith::ExtUIOp::create(
            b, loc, type, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, s[0], zero));
        Value neg = arith::ExtUIOp::create(
            b, loc, type, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, s[0], zero));
        return arith::SubIOp::create(b, loc, pos, neg);
      })
      .Case([&](ExpOp) { return math::ExpOp::create(b, loc, s[0]); })
      .Case([&](LogOp) { return math::LogOp::create(b, loc, s[0]); })
      .Case([&](Log1pOp) { return math::Log1pOp::create(b, loc, s[0]); })
      .Case([&](SinOp) { return math::SinOp::create(b, loc, s[0]); })
      .Case([&](CosOp) { return math::CosOp::create(b, loc, s[0]); })
      .Case([&](TanhOp) { return math::TanhOp::create(b, loc, s[0]); })
      .Case([&](SqrtOp) { return math::SqrtOp::create(b, loc, s[0]); })
      .Case([&](RsqrtOp) { return math::RsqrtOp::create(b, loc, s[0]); })
      .Case([&](LogisticOp) -> Value {
        Value one = scalarConstant(b, loc, type, 1);
        Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, s[0]));
        return arith::DivFOp::create(b, loc, one, arith::AddFOp::create(b, loc, one, e));
      })
      .Case([&](SquareOp) {
        return fi([&] { return arith::MulFOp::create(b, loc, s[0], s[0]); },
                  [&] { return arith::MulIOp::create(b, loc, s[0], s[0]); });
      })
      .Case([&](IntegerPowOp p) { return integerPow(b, loc, s[0], p.getY()); })
      .Case([&](CompareOp c) -> Value {
        if (isFloat)
          return arith::CmpFOp::create(b, loc, floatPredicate(c.getDirection()), s[0], s[1]);
        return arith::CmpIOp::create(b, loc, intPredicate(c.getDirection(), unsignedType), s[0],
                                     s[1]);
      })
      .Case([&](SelectNOp sel) -> Value {
        // select_n(which, c0, c1, ...): cases[which]; an i1 which picks c1 when true.
        Value which = s[0];
        ValueRange cases = s.drop_front();
        if (getElementTypeOrSelf(which.getType()).isInteger(1))
          return cases.size() == 1 ? cases[0]
                                   : (Value)arith::SelectOp::create(b, loc, which, cases[1], cases[0]);
        Value result = cases[0];
        for (unsigned i = 1; i < cases.size(); ++i) {
          Value isI = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, which,
                                            scalarConstant(b, loc, which.getType(), i));
          result = arith::SelectOp::create(b, loc, isI, cases[i], result);
        }
        return result;
      })
      .Case([&](ConvertElementTypeOp c) {
        return convert(b, loc, s[0], elem, c.getType().getElementType());
      })
      .Default([](Operation *) { return Value(); });
}
