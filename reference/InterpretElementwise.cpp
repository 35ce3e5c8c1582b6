//===- InterpretElementwise.cpp - elementwise lax ops ---------------------===//
//
// JAX/XLA semantics: max/min propagate NaN; integer division truncates, x / 0
// is -1 (all bits set) and x % 0 is x, as XLA defines them; float to integer
// conversion truncates toward zero and saturates; logistic is 1/(1+e^-x).
//
//===----------------------------------------------------------------------===//
#include "reference/Evaluator.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/ADT/bit.h"

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
double roundAwayFromZero(double x) { return std::round(x); }
double roundToNearestEven(double x) { return std::nearbyint(x); } // default mode: ties to even

/// erf^-1 on [-1, 1]: a rational first guess (|error| < 1e-3) refined by
/// Newton steps on erf(x) - y, to double precision.
/// digamma in double: the recurrence psi(x) = psi(x + 1) - 1/x up to
/// x >= 6, then the asymptotic series; the reflection formula below 1/2;
/// NaN at the poles (non-positive integers).
double digamma(double x) {
  if (std::isnan(x) || (x <= 0 && x == std::floor(x)))
    return NAN;
  if (x == INFINITY)
    return INFINITY;
  if (x < 0.5)
    return digamma(1 - x) - M_PI / std::tan(M_PI * x);
  double acc = 0;
  while (x < 6) {
    acc -= 1 / x;
    x += 1;
  }
  double f = 1 / (x * x);
  double series = f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f * (1.0 / 132)))));
  return acc + std::log(x) - 0.5 / x - series;
}

double erfInv(double y) {
  if (std::isnan(y) || y < -1 || y > 1)
    return NAN;
  if (y == 1 || y == -1)
    return y * HUGE_VAL;
  double w = -std::log((1 - y) * (1 + y));
  double x;
  if (w < 5) { // Giles' single-precision approximation.
    w -= 2.5;
    double p = 2.81022636e-08;
    for (double c : {3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
                     -0.00125372503, -0.00417768164, 0.246640727, 1.50140941})
      p = c + p * w;
    x = p * y;
  } else {
    w = std::sqrt(w) - 3;
    double p = -0.000200214257;
    for (double c : {0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
                     -0.0076224613, 0.00943887047, 1.00167406, 2.83297682})
      p = c + p * w;
    x = p * y;
  }
  for (int i = 0; i < 3; ++i) {
    double slope = 2 / std::sqrt(M_PI) * std::exp(-x * x);
    if (slope == 0)
      break;
    x -= (std::erf(x) - y) / slope;
  }
  return x;
}

const llvm::fltSemantics &semanticsOf(Type t) {
  return cast<FloatType>(t).getFloatSemantics();
}

/// The representable number of `t` next to `x` toward `y` (C's nextafter in
/// the precision of `t`).
double nextAfter(Type t, double x, double y) {
  if (std::isnan(x) || std::isnan(y))
    return NAN;
  if (x == y)
    return y;
  bool ignored;
  llvm::APFloat v(x);
  v.convert(semanticsOf(t), llvm::APFloat::rmNearestTiesToEven, &ignored);
  v.next(/*nextDown=*/y < x);
  v.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven, &ignored);
  return v.convertToDouble();
}

/// The bits of element `i` of `x` (any type) as an unsigned integer.
uint64_t bitsOf(const Tensor &x, int64_t i) {
  Type t = x.getElementType();
  unsigned width = t.getIntOrFloatBitWidth();
  if (!x.isFloat())
    return width == 64 ? uint64_t(x.getInt(i))
                       : uint64_t(x.getInt(i)) & ((uint64_t(1) << width) - 1);
  bool ignored;
  llvm::APFloat v(x.getFloat(i));
  v.convert(semanticsOf(t), llvm::APFloat::rmNearestTiesToEven, &ignored);
  return v.bitcastToAPInt().getZExtValue();
}

/// Stores `bits` into element `i` of `r` (any type of their width).
void setBits(Tensor &r, int64_t i, uint64_t bits) {
  Type t = r.getElementType();
  if (!r.isFloat()) {
    r.setInt(i, int64_t(bits));
    return;
  }
  llvm::APFloat v(semanticsOf(t), llvm::APInt(t.getIntOrFloatBitWidth(), bits));
  bool ignored;
  v.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven, &ignored);
  r.setFloat(i, v.convertToDouble());
}

/// XLA's ReducePrecision of the bits of a non-NaN value of type `t`: the
/// mantissa rounded to `m` bits (nearest even), then an exponent outside the
/// range of `e` exponent bits gives a signed infinity or zero.
uint64_t reducePrecisionBits(uint64_t bits, FloatType t, int64_t e, int64_t m) {
  unsigned w = t.getWidth();
  int64_t srcMantissa = t.getFPMantissaWidth() - 1, srcExponent = w - 1 - srcMantissa;
  uint64_t widthMask = w == 64 ? ~uint64_t(0) : (uint64_t(1) << w) - 1;
  if (m < srcMantissa) {
    uint64_t shift = uint64_t(srcMantissa - m), lastBit = uint64_t(1) << shift;
    uint64_t bias = ((bits & lastBit) >> shift) + (lastBit >> 1) - 1;
    bits = ((bits + bias) & widthMask) & ~(lastBit - 1);
  }
  if (e < srcExponent) {
    uint64_t exponentMask = ((uint64_t(1) << srcExponent) - 1) << srcMantissa;
    uint64_t bias = (uint64_t(1) << (srcExponent - 1)) - 1;
    uint64_t narrowBias = (uint64_t(1) << (e - 1)) - 1;
    uint64_t exponent = bits & exponentMask, sign = bits & (uint64_t(1) << (w - 1));
    if (exponent > (bias + narrowBias) << srcMantissa)
      return sign | exponentMask;
    if (exponent <= (bias - narrowBias) << srcMantissa)
      return sign;
  }
  return bits;
}

/// Shifts as XLA defines them: an amount outside [0, width) shifts every bit
/// out (0, or the sign for an arithmetic right shift).
enum class Shift { Left, RightLogical, RightArithmetic };
int64_t shiftBits(Shift kind, uint64_t x, uint64_t amount, unsigned width) {
  uint64_t mask = width == 64 ? ~uint64_t(0) : (uint64_t(1) << width) - 1;
  x &= mask;
  bool negative = width > 1 && (x >> (width - 1)) & 1;
  if (amount >= width)
    return kind == Shift::RightArithmetic && negative ? -1 : 0;
  switch (kind) {
  case Shift::Left: return int64_t(x << amount);
  case Shift::RightLogical: return int64_t(x >> amount);
  case Shift::RightArithmetic: {
    uint64_t shifted = x >> amount;
    if (negative && amount > 0)
      shifted |= mask & ~(mask >> amount); // fill the vacated bits with the sign
    return int64_t(shifted);
  }
  }
  return 0;
}

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

// Integer arithmetic wraps modulo 2^64 (two's complement), as XLA's; the
// result is truncated to the element width when stored.
int64_t wrappingAdd(int64_t a, int64_t b, bool) { return int64_t(uint64_t(a) + uint64_t(b)); }
int64_t wrappingSub(int64_t a, int64_t b, bool) { return int64_t(uint64_t(a) - uint64_t(b)); }
int64_t wrappingMul(int64_t a, int64_t b, bool) { return int64_t(uint64_t(a) * uint64_t(b)); }
int64_t wrappingNeg(int64_t x) { return int64_t(0 - uint64_t(x)); }
int64_t wrappingAbs(int64_t x) { return x < 0 ? wrappingNeg(x) : x; }
int64_t wrappingSquare(int64_t x) { return int64_t(uint64_t(x) * uint64_t(x)); }
int64_t intSign(int64_t x) { return int64_t((x > 0) - (x < 0)); }
int64_t intMax(int64_t a, int64_t b, bool isUnsigned) {
  return isUnsigned ? int64_t(std::max(uint64_t(a), uint64_t(b))) : std::max(a, b);
}
int64_t intMin(int64_t a, int64_t b, bool isUnsigned) {
  return isUnsigned ? int64_t(std::min(uint64_t(a), uint64_t(b))) : std::min(a, b);
}
int64_t bitAnd(int64_t a, int64_t b, bool) { return a & b; }
int64_t bitOr(int64_t a, int64_t b, bool) { return a | b; }
int64_t bitXor(int64_t a, int64_t b, bool) { return a ^ b; }

double floatAdd(double a, double b) { return a + b; }
double floatSub(double a, double b) { return a - b; }
double floatMul(double a, double b) { return a * b; }
double floatDiv(double a, double b) { return a / b; }
double floatRem(double a, double b) { return std::fmod(a, b); }
double floatPow(double a, double b) { return std::pow(a, b); }
double floatAtan2(double y, double x) { return std::atan2(y, x); }

// The other half of an op the verifier admits on integers only (and, or,
// xor, shifts) or on floats only (pow, atan2, nextafter): never called on
// verified IR.
double noFloatForm(double, double) { return 0.0; }
int64_t noIntForm(int64_t, int64_t, bool) { return 0; }

/// A binary elementwise op: what it computes on floats and on integers
/// (whose operands are unsigned when `isUnsigned`).
struct BinaryFns {
  double (*onFloats)(double, double);
  int64_t (*onInts)(int64_t a, int64_t b, bool isUnsigned);
};

/// A unary elementwise op on floats and on integers.
struct UnaryFns {
  FloatFn1 onFloats;
  int64_t (*onInts)(int64_t);
};

/// x^n by square and multiply: O(log n). With T = uint64_t the products wrap
/// modulo 2^64 in any order, as integer powers should.
template <typename T> T powBySquaring(T base, uint64_t n) {
  T acc = 1;
  for (uint64_t e = n; e; e >>= 1) {
    if (e & 1)
      acc *= base;
    if (e > 1)
      base *= base;
  }
  return acc;
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

Tensor applyBinary(const Evaluator &ev, Operation *op, const Tensor &a, const Tensor &b,
                   BinaryFns fns, bool isUnsigned) {
  return binary(ev, op, a, b, fns.onFloats,
                [&](int64_t x, int64_t y) { return fns.onInts(x, y, isUnsigned); });
}

Tensor unaryInt(const Evaluator &ev, Operation *op, const Tensor &x,
                llvm::function_ref<int64_t(int64_t)> g) {
  Tensor r = ev.make(op->getResult(0).getType());
  for (int64_t i = 0; i < x.size(); ++i)
    r.setInt(i, g(x.getInt(i)));
  return r;
}

Tensor applyUnary(const Evaluator &ev, Operation *op, const Tensor &x, UnaryFns fns) {
  return x.isFloat() ? unaryFloat(ev, op, x, fns.onFloats) : unaryInt(ev, op, x, fns.onInts);
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
    // As XLA converts: to f16/bf16 from an integer or f64 through f32
    // (rounded twice: ui32 4286578687 is bf16 2^32, as jax.jit gives); an
    // integer rounded once into its float type (through double, an i64
    // past 2^53 would be rounded twice).
    Type to = r.getElementType();
    bool through32 = to.getIntOrFloatBitWidth() == 16;
    if (!x.isFloat()) {
      llvm::APFloat f(through32 ? llvm::APFloat::IEEEsingle() : semanticsOf(to));
      f.convertFromAPInt(llvm::APInt(64, uint64_t(x.getInt(i)), /*isSigned=*/true),
                         /*IsSigned=*/true, llvm::APFloat::rmNearestTiesToEven);
      bool ignored;
      f.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven, &ignored);
      r.setFloat(i, f.convertToDouble());
      return;
    }
    double v = x.asDouble(i);
    r.setFloat(i, through32 && x.getElementType().isF64() ? double(float(v)) : v);
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
  // 2^63 - 1 and 2^64 - 1 are not doubles: saturate 64-bit results
  // explicitly (the cast would be UB).
  if (width == 64 && isUnsigned) {
    r.setInt(i, v >= std::ldexp(1.0, 64) ? -1 /* all ones */
                                         : int64_t(uint64_t(std::trunc(std::max(v, 0.0)))));
    return;
  }
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
  auto binaryOp = [&](BinaryFns fns) -> R {
    return applyBinary(*this, op, in(0), in(1), fns, isUnsigned);
  };
  auto unaryOp = [&](UnaryFns fns) -> R { return applyUnary(*this, op, in(0), fns); };
  auto unaryFloatOp = [&](FloatFn1 f) -> R { return unaryFloat(*this, op, in(0), f); };
  return TypeSwitch<Operation *, R>(op)
      .Case([&](AddOp) { return binaryOp({floatAdd, wrappingAdd}); })
      .Case([&](SubOp) { return binaryOp({floatSub, wrappingSub}); })
      .Case([&](MulOp) { return binaryOp({floatMul, wrappingMul}); })
      .Case([&](DivOp) { return binaryOp({floatDiv, intDiv}); })
      .Case([&](RemOp) { return binaryOp({floatRem, intRem}); })
      .Case([&](MaxOp) { return binaryOp({ieeeMaximum, intMax}); })
      .Case([&](MinOp) { return binaryOp({ieeeMinimum, intMin}); })
      .Case([&](PowOp) { return binaryOp({floatPow, noIntForm}); })
      .Case([&](Atan2Op) { return binaryOp({floatAtan2, noIntForm}); })
      .Case([&](AndOp) { return binaryOp({noFloatForm, bitAnd}); })
      .Case([&](OrOp) { return binaryOp({noFloatForm, bitOr}); })
      .Case([&](XorOp) { return binaryOp({noFloatForm, bitXor}); })
      .Case([&](NotOp) -> R {
        // On predicates a logical not, on other integers a bitwise one.
        bool pred = in(0).getElementType().isInteger(1);
        return unaryInt(*this, op, in(0), [&](int64_t x) { return pred ? int64_t(!x) : ~x; });
      })
      .Case([&](NegOp) { return unaryOp({negate, wrappingNeg}); })
      .Case([&](AbsOp) { return unaryOp({std::fabs, wrappingAbs}); })
      .Case([&](SignOp) { return unaryOp({signOf, intSign}); })
      .Case([&](SquareOp) { return unaryOp({square, wrappingSquare}); })
      .Case([&](ExpOp) { return unaryFloatOp(std::exp); })
      .Case([&](LogOp) { return unaryFloatOp(std::log); })
      .Case([&](Log1pOp) { return unaryFloatOp(std::log1p); })
      .Case([&](SinOp) { return unaryFloatOp(std::sin); })
      .Case([&](CosOp) { return unaryFloatOp(std::cos); })
      .Case([&](TanhOp) { return unaryFloatOp(std::tanh); })
      .Case([&](LogisticOp) { return unaryFloatOp(logistic); })
      .Case([&](SqrtOp) { return unaryFloatOp(std::sqrt); })
      .Case([&](RsqrtOp) { return unaryFloatOp(rsqrt); })
      .Case([&](Expm1Op) { return unaryFloatOp(std::expm1); })
      .Case([&](Exp2Op) { return unaryFloatOp(std::exp2); })
      .Case([&](TanOp) { return unaryFloatOp(std::tan); })
      .Case([&](AsinOp) { return unaryFloatOp(std::asin); })
      .Case([&](AcosOp) { return unaryFloatOp(std::acos); })
      .Case([&](AtanOp) { return unaryFloatOp(std::atan); })
      .Case([&](SinhOp) { return unaryFloatOp(std::sinh); })
      .Case([&](CoshOp) { return unaryFloatOp(std::cosh); })
      .Case([&](AsinhOp) { return unaryFloatOp(std::asinh); })
      .Case([&](AcoshOp) { return unaryFloatOp(std::acosh); })
      .Case([&](AtanhOp) { return unaryFloatOp(std::atanh); })
      .Case([&](CbrtOp) { return unaryFloatOp(std::cbrt); })
      .Case([&](ErfOp) { return unaryFloatOp(std::erf); })
      .Case([&](ErfcOp) { return unaryFloatOp(std::erfc); })
      .Case([&](ErfInvOp) { return unaryFloatOp(erfInv); })
      .Case([&](LgammaOp) { return unaryFloatOp([](double x) { return std::lgamma(x); }); })
      .Case([&](DigammaOp) { return unaryFloatOp(digamma); })
      .Case([&](FloorOp) { return unaryFloatOp(std::floor); })
      .Case([&](CeilOp) { return unaryFloatOp(std::ceil); })
      .Case([&](RoundOp r) {
        return unaryFloatOp(r.getRoundingMethod() == 0 ? roundAwayFromZero
                                                       : roundToNearestEven);
      })
      .Case([&](IsFiniteOp) -> R {
        Tensor r = make(op->getResult(0).getType());
        for (int64_t i = 0; i < r.size(); ++i)
          r.setInt(i, std::isfinite(in(0).getFloat(i)));
        return r;
      })
      .Case([&](NextAfterOp) -> R {
        Type t = in(0).getElementType();
        return binary(*this, op, in(0), in(1),
                      [&](double x, double y) { return nextAfter(t, x, y); },
                      [](int64_t a, int64_t b) { return noIntForm(a, b, false); });
      })
      .Case<ShiftLeftOp, ShiftRightLogicalOp, ShiftRightArithmeticOp>([&](Operation *) -> R {
        Shift kind = isa<ShiftLeftOp>(op)           ? Shift::Left
                     : isa<ShiftRightLogicalOp>(op) ? Shift::RightLogical
                                                    : Shift::RightArithmetic;
        unsigned width = in(0).getElementType().getIntOrFloatBitWidth();
        return binary(*this, op, in(0), in(1), noFloatForm, [&](int64_t a, int64_t b) {
          // The amount is read as unsigned: a negative one is out of range.
          uint64_t amount =
              width == 64 ? uint64_t(b) : uint64_t(b) & ((uint64_t(1) << width) - 1);
          return shiftBits(kind, uint64_t(a), amount, width);
        });
      })
      .Case([&](PopulationCountOp) -> R {
        Tensor r = make(op->getResult(0).getType());
        for (int64_t i = 0; i < r.size(); ++i)
          r.setInt(i, llvm::popcount(bitsOf(in(0), i)));
        return r;
      })
      .Case([&](ClzOp) -> R {
        Tensor r = make(op->getResult(0).getType());
        unsigned width = in(0).getElementType().getIntOrFloatBitWidth();
        for (int64_t i = 0; i < r.size(); ++i)
          r.setInt(i, llvm::countl_zero(bitsOf(in(0), i)) - (64 - int(width)));
        return r;
      })
      .Case([&](ReducePrecisionOp p) -> R {
        Tensor r = make(op->getResult(0).getType());
        auto ft = cast<FloatType>(in(0).getElementType());
        for (int64_t i = 0; i < r.size(); ++i) {
          double x = in(0).getFloat(i);
          if (std::isnan(x))
            r.setFloat(i, x);
          else
            setBits(r, i, reducePrecisionBits(bitsOf(in(0), i), ft, p.getExponentBits(),
                                              p.getMantissaBits()));
        }
        return r;
      })
      .Case([&](BitcastConvertTypeOp) -> R {
        Tensor r = make(op->getResult(0).getType());
        for (int64_t i = 0; i < r.size(); ++i)
          setBits(r, i, bitsOf(in(0), i));
        return r;
      })
      .Case([&](IntegerPowOp p) -> R {
        int64_t y = p.getY();
        // |y| as an unsigned number (INT64_MIN's magnitude is 2^63), by
        // square and multiply: O(log |y|) per element (it was O(|y|): y = 1e9
        // took 2 s for 3 elements, and y = INT64_MIN gave 1 for every x).
        // x^-n is 1 / x^n, as in JAX: 0.5^INT64_MIN = 1 / 0 = inf.
        uint64_t n = y < 0 ? uint64_t(0) - uint64_t(y) : uint64_t(y);
        Tensor r = make(op->getResult(0).getType());
        for (int64_t i = 0; i < in(0).size(); ++i) {
          if (in(0).isFloat()) {
            double acc = powBySquaring<double>(in(0).getFloat(i), n);
            r.setFloat(i, y < 0 ? 1 / acc : acc);
          } else {
            // Truncated to the width when stored.
            r.setInt(i, int64_t(powBySquaring<uint64_t>(in(0).getInt(i), n)));
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
