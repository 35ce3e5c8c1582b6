//===- InterpretElementwise.cpp - elementwise lax ops ---------------------===//
//
// JAX/XLA semantics: max/min propagate NaN; integer division truncates, x / 0
// is -1 (all bits set) and x % 0 is x, as XLA defines them; float to integer
// conversion truncates toward zero and saturates; logistic is 1/(1+e^-x).
//
//===----------------------------------------------------------------------===//
#include "reference/Evaluator.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace kiln;
using namespace kiln::interp;
using namespace kiln::lax;

namespace {

using FloatFn1 = double (*)(double);

double logistic(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double rsqrt(double x) { return 1.0 / std::sqrt(x); }
double square(double x) { return x * x; }
double signOf(double x) { return std::isnan(x) || x == 0 ? x : (x > 0 ? 1.0 : -1.0); }
double negate(double x) { return -x; }
double nanMax(double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b); }
double nanMin(double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b); }

/// Integer division as XLA defines it for the corner cases.
int64_t intDiv(int64_t a, int64_t b, bool isUnsigned) {
  if (b == 0)
    return -1;
  if (isUnsigned)
    return int64_t(uint64_t(a) / uint64_t(b));
  if (b == -1 && a == std::numeric_limits<int64_t>::min())
    return a;
  return a / b;
}
int64_t intRem(int64_t a, int64_t b, bool isUnsigned) {
  if (b == 0)
    return a;
  if (isUnsigned)
    return int64_t(uint64_t(a) % uint64_t(b));
  if (b == -1)
    return 0;
  return a % b;
}

Tensor unaryFloat(const Evaluator &ev, Operation *op, const Tensor &x, FloatFn1 f) {
  Tensor r = ev.make(op->getResult(0).getType());
  for (int64_t i = 0; i < x.size(); ++i)
    r.setFloat(i, f(x.getFloat(i)));
  return r;
}

template <typename FloatFn, typename IntFn>
Tensor binary(const Evaluator &ev, Operation *op, const Tensor &a, const Tensor &b, FloatFn f,
              IntFn g) {
  Tensor r = ev.make(op->getResult(0).getType());
  if (a.isFloat()) {
    for (int64_t i = 0; i < a.size(); ++i)
      r.setFloat(i, f(a.getFloat(i), b.getFloat(i)));
  } else {
    for (int64_t i = 0; i < a.size(); ++i)
      r.setInt(i, g(a.getInt(i), b.getInt(i)));
  }
  return r;
}

template <typename T> bool compare(ComparisonDirection d, T a, T b) {
  switch (d) {
  case ComparisonDirection::EQ: return a == b;
  case ComparisonDirection::NE: return a != b;
  case ComparisonDirection::LT: return a < b;
  case ComparisonDirection::LE: return a <= b;
  case ComparisonDirection::GT: return a > b;
  case ComparisonDirection::GE: return a >= b;
  }
  return false;
}

/// Converts element i of `x` into element i of `r` (any types).
void convertElement(const Tensor &x, Tensor &r, int64_t i) {
  if (r.isFloat()) {
    r.setFloat(i, x.asDouble(i));
    return;
  }
  if (!x.isFloat()) {
    r.setInt(i, r.getElementType().isInteger(1) ? x.getInt(i) != 0 : x.getInt(i));
    return;
  }
  double v = x.getFloat(i);
  if (r.getElementType().isInteger(1)) {
    r.setInt(i, v != 0);
    return;
  }
  unsigned width = r.getElementType().getIntOrFloatBitWidth();
  bool isUnsigned = r.getElementType().isUnsignedInteger();
  double lo = isUnsigned ? 0 : -std::ldexp(1.0, width - 1);
  double hi = isUnsigned ? std::ldexp(1.0, width) - 1 : std::ldexp(1.0, width - 1) - 1;
  if (std::isnan(v))
    v = 0;
  // 2^63 - 1 is not a double: saturate i64 explicitly (the cast would be UB).
  if (width == 64 && v >= std::ldexp(1.0, 63)) {
    r.setInt(i, std::numeric_limits<int64_t>::max());
    return;
  }
  r.setInt(i, int64_t(std::trunc(std::clamp(v, lo, hi))));
}

} // namespace

std::optional<FailureOr<Tensor>> Evaluator::evalElementwise(Operation *op) {
  auto in = [&](unsigned i) -> const Tensor & { return lookup(op->getOperand(i)); };
  bool isUnsigned = op->getNumOperands() > 0 &&
                    cast<RankedTensorType>(op->getOperand(0).getType())
                        .getElementType()
                        .isUnsignedInteger();
  using R = std::optional<FailureOr<Tensor>>;
  auto unaryInt = [&](auto g) {
    Tensor r = make(op->getResult(0).getType());
    for (int64_t i = 0; i < in(0).size(); ++i)
      r.setInt(i, g(in(0).getInt(i)));
    return r;
  };
  return TypeSwitch<Operation *, R>(op)
      .Case([&](AddOp) { return binary(*this, op, in(0), in(1), std::plus<double>(), [](int64_t a, int64_t b) { return int64_t(uint64_t(a) + uint64_t(b)); }); })
      .Case([&](SubOp) { return binary(*this, op, in(0), in(1), std::minus<double>(), [](int64_t a, int64_t b) { return int64_t(uint64_t(a) - uint64_t(b)); }); })
      .Case([&](MulOp) { return binary(*this, op, in(0), in(1), std::multiplies<double>(), [](int64_t a, int64_t b) { return int64_t(uint64_t(a) * uint64_t(b)); }); })
      .Case([&](DivOp) { return binary(*this, op, in(0), in(1), std::divides<double>(), [&](int64_t a, int64_t b) { return intDiv(a, b, isUnsigned); }); })
      .Case([&](RemOp) { return binary(*this, op, in(0), in(1), [](double a, double b) { return std::fmod(a, b); }, [&](int64_t a, int64_t b) { return intRem(a, b, isUnsigned); }); })
      .Case([&](MaxOp) { return binary(*this, op, in(0), in(1), nanMax, [&](int64_t a, int64_t b) { return isUnsigned ? int64_t(std::max(uint64_t(a), uint64_t(b))) : std::max(a, b); }); })
      .Case([&](MinOp) { return binary(*this, op, in(0), in(1), nanMin, [&](int64_t a, int64_t b) { return isUnsigned ? int64_t(std::min(uint64_t(a), uint64_t(b))) : std::min(a, b); }); })
      .Case([&](PowOp) { return binary(*this, op, in(0), in(1), [](double a, double b) { return std::pow(a, b); }, [](int64_t, int64_t) { return int64_t(0); }); })
      .Case([&](AndOp) { return binary(*this, op, in(0), in(1), [](double, double) { return 0.0; }, [](int64_t a, int64_t b) { return a & b; }); })
      .Case([&](OrOp) { return binary(*this, op, in(0), in(1), [](double, double) { return 0.0; }, [](int64_t a, int64_t b) { return a | b; }); })
      .Case([&](NotOp) -> R {
        bool pred = in(0).getElementType().isInteger(1);
        return unaryInt([&](int64_t x) { return pred ? int64_t(!x) : ~x; });
      })
      .Case([&](NegOp) -> R { return in(0).isFloat() ? unaryFloat(*this, op, in(0), negate) : unaryInt([](int64_t x) { return int64_t(0 - uint64_t(x)); }); })
      .Case([&](AbsOp) -> R { return in(0).isFloat() ? unaryFloat(*this, op, in(0), std::fabs) : unaryInt([](int64_t x) { return x < 0 ? int64_t(0 - uint64_t(x)) : x; }); })
      .Case([&](SignOp) -> R { return in(0).isFloat() ? unaryFloat(*this, op, in(0), signOf) : unaryInt([](int64_t x) { return int64_t((x > 0) - (x < 0)); }); })
      .Case([&](SquareOp) -> R { return in(0).isFloat() ? unaryFloat(*this, op, in(0), square) : unaryInt([](int64_t x) { return int64_t(uint64_t(x) * uint64_t(x)); }); })
      .Case([&](ExpOp) -> R { return unaryFloat(*this, op, in(0), std::exp); })
      .Case([&](LogOp) -> R { return unaryFloat(*this, op, in(0), std::log); })
      .Case([&](Log1pOp) -> R { return unaryFloat(*this, op, in(0), std::log1p); })
      .Case([&](SinOp) -> R { return unaryFloat(*this, op, in(0), std::sin); })
      .Case([&](CosOp) -> R { return unaryFloat(*this, op, in(0), std::cos); })
      .Case([&](TanhOp) -> R { return unaryFloat(*this, op, in(0), std::tanh); })
      .Case([&](LogisticOp) -> R { return unaryFloat(*this, op, in(0), logistic); })
      .Case([&](SqrtOp) -> R { return unaryFloat(*this, op, in(0), std::sqrt); })
      .Case([&](RsqrtOp) -> R { return unaryFloat(*this, op, in(0), rsqrt); })
      .Case([&](IntegerPowOp p) -> R {
        int64_t y = p.getY();
        Tensor r = make(op->getResult(0).getType());
        for (int64_t i = 0; i < in(0).size(); ++i) {
          if (in(0).isFloat()) {
            double x = in(0).getFloat(i), acc = 1;
            for (int64_t k = 0; k < (y < 0 ? -y : y); ++k)
              acc *= x;
            r.setFloat(i, y < 0 ? 1 / acc : acc);
          } else {
            uint64_t x = in(0).getInt(i), acc = 1;
            for (int64_t k = 0; k < y; ++k)
              acc *= x;
            r.setInt(i, int64_t(acc));
          }
        }
        return r;
      })
      .Case([&](CompareOp c) -> R {
        Tensor r = make(op->getResult(0).getType());
        const Tensor &a = in(0), &b = in(1);
        for (int64_t i = 0; i < a.size(); ++i) {
          bool v;
          if (a.isFloat())
            v = compare(c.getDirection(), a.getFloat(i), b.getFloat(i));
          else if (isUnsigned)
            v = compare(c.getDirection(), uint64_t(a.getInt(i)), uint64_t(b.getInt(i)));
          else
            v = compare(c.getDirection(), a.getInt(i), b.getInt(i));
          r.setInt(i, v);
        }
        return r;
      })
      .Case([&](SelectNOp s) -> R {
        const Tensor &which = in(0);
        Tensor r = make(op->getResult(0).getType());
        int64_t numCases = s.getCases().size();
        for (int64_t i = 0; i < r.size(); ++i) {
          int64_t w = which.getInt(which.rank() == 0 ? 0 : i);
          if (w < 0 || w >= numCases)
            return FailureOr<Tensor>(op->emitError("select_n index ") << w << " is out of range");
          r.copyElement(i, in(1 + w), i);
        }
        return r;
      })
      .Case([&](ConvertElementTypeOp) -> R {
        Tensor r = make(op->getResult(0).getType());
        for (int64_t i = 0; i < r.size(); ++i)
          convertElement(in(0), r, i);
        return r;
      })
      .Default([](Operation *) -> R { return std::nullopt; });
}
