//===- JaxprSpecialFunctions.cpp - zeta, bessel_i1e, polygamma ------------===//
//
// JAX lowers these three primitives to CHLO ops (chlo.zeta, chlo.bessel_i1e,
// chlo.polygamma), not to a JAX implementation Kiln's Python side could
// re-trace, so the importer writes them out in lax ops here. Each follows the
// same formula, the same constants and the same order of operations as
// XLA's expansion of the CHLO op, so that results match jax.jit to an ulp
// or two:
//
//   bessel_i1e x   exp(-|x|) I1(x), Cephes' Chebyshev expansions (i1.c):
//                  |x| <= 8: |x| * cheb(|x|/2 - 2, A); else
//                  cheb(32/|x| - 2, B) / sqrt(|x|); times sign(x). The
//                  coefficients A and B are Cephes' (30 and 25 of them in
//                  double; their last 17 and 7, rounded, in float).
//   zeta x q       the Hurwitz zeta function sum_k (q + k)^-x by
//                  Euler-Maclaurin summation as in Cephes (zeta.c): the
//                  first 10 terms directly, then the integral of the tail
//                  and 12 Bernoulli-number corrections (Cephes' A[i] =
//                  (2i+2)!/B_{2i+2}), evaluated by Horner's rule; plus
//                  Cephes' special cases (x = 1: inf; x < 1: NaN; q <= 0
//                  with x not an integer: NaN; q a non-positive integer:
//                  inf for even x, else NaN).
//   polygamma n x  (-1)^(n+1) n! zeta(n + 1, x) for natural n, digamma(x)
//                  for n = 0, NaN for any other n.
//
// f16 and bf16 operands are computed in f32 and rounded once at the end, as
// XLA does for these ops; f32 and f64 are computed in their own type.
//
//===----------------------------------------------------------------------===//
#include "importer/JaxprPrimitives.h"

#include "dialect/LaxOps.h"

#include <limits>

using namespace mlir;
using namespace kiln::jaxpr;
using namespace kiln::lax;
using llvm::SmallVector;

namespace {

/// Builds elementwise lax ops on values of one float tensor type (and i1
/// tensors of its shape for the predicates). Every op is created with its
/// result type, so no inference is needed.
struct Math {
  OpBuilder &b;
  Location loc;
  RankedTensorType type;
  RankedTensorType predType;

  Math(OpBuilder &b, Location loc, RankedTensorType type)
      : b(b), loc(loc), type(type), predType(type.clone(b.getI1Type())) {}

  Value c(double v) { return ConstantOp::create(b, loc, type, v); }
  Value add(Value x, Value y) { return AddOp::create(b, loc, type, x, y); }
  Value sub(Value x, Value y) { return SubOp::create(b, loc, type, x, y); }
  Value mul(Value x, Value y) { return MulOp::create(b, loc, type, x, y); }
  Value div(Value x, Value y) { return DivOp::create(b, loc, type, x, y); }
  Value rem(Value x, Value y) { return RemOp::create(b, loc, type, x, y); }
  Value pow(Value x, Value y) { return PowOp::create(b, loc, type, x, y); }
  Value neg(Value x) { return NegOp::create(b, loc, type, x); }
  Value abs(Value x) { return AbsOp::create(b, loc, type, x); }
  Value sign(Value x) { return SignOp::create(b, loc, type, x); }
  Value sqrt(Value x) { return SqrtOp::create(b, loc, type, x); }
  Value exp(Value x) { return ExpOp::create(b, loc, type, x); }
  Value floor(Value x) { return FloorOp::create(b, loc, type, x); }
  Value lgamma(Value x) { return LgammaOp::create(b, loc, type, x); }
  Value digamma(Value x) { return DigammaOp::create(b, loc, type, x); }
  Value cmp(ComparisonDirection d, Value x, Value y) {
    return CompareOp::create(b, loc, predType, d, x, y);
  }
  Value lt(Value x, Value y) { return cmp(ComparisonDirection::LT, x, y); }
  Value le(Value x, Value y) { return cmp(ComparisonDirection::LE, x, y); }
  Value eq(Value x, Value y) { return cmp(ComparisonDirection::EQ, x, y); }
  Value ne(Value x, Value y) { return cmp(ComparisonDirection::NE, x, y); }
  Value both(Value p, Value q) { return AndOp::create(b, loc, predType, p, q); }
  Value either(Value p, Value q) { return OrOp::create(b, loc, predType, p, q); }
  /// `pred ? onTrue : onFalse`.
  Value select(Value pred, Value onTrue, Value onFalse) {
    return SelectNOp::create(b, loc, type, pred, ValueRange{onFalse, onTrue});
  }
  /// x == floor(x).
  Value isInteger(Value x) { return eq(x, floor(x)); }
  double nan() { return std::numeric_limits<double>::quiet_NaN(); }
  double inf() { return std::numeric_limits<double>::infinity(); }
};

//===--- bessel_i1e -----------------------------------------------------------===//

// Cephes' Chebyshev coefficients of exp(-x) I1(x) / x on [0, 8] (A, in the
// variable x/2 - 2) and of exp(-x) sqrt(x) I1(x) on (8, inf) (B, in the
// variable 32/x - 2), highest order first.
constexpr double kI1eA[] = {
    2.77791411276104639959E-18, -2.11142121435816608115E-17, 1.55363195773620046921E-16,
    -1.10559694773538630805E-15, 7.60068429473540693410E-15, -5.04218550472791168711E-14,
    3.22379336594557470981E-13, -1.98397439776494371520E-12, 1.17361862988909016308E-11,
    -6.66348972350202774223E-11, 3.62559028155211703701E-10, -1.88724975172282928790E-9,
    9.38153738649577178388E-9, -4.44505912879632808065E-8, 2.00329475355213526229E-7,
    -8.56872026469545474066E-7, 3.47025130813767847674E-6, -1.32731636560394358279E-5,
    4.78156510755005422638E-5, -1.61760815825896745588E-4, 5.12285956168575772895E-4,
    -1.51357245063125314899E-3, 4.15642294431288815669E-3, -1.05640848946261981558E-2,
    2.47264490306265168283E-2, -5.29459812080949914269E-2, 1.02643658689847095384E-1,
    -1.76416518357834055153E-1, 2.52587186443633654823E-1};
constexpr double kI1eB[] = {
    7.51729631084210481353E-18, 4.41434832307170791151E-18, -4.65030536848935832153E-17,
    -3.20952592199342395980E-17, 2.96262899764595013876E-16, 3.30820231092092828324E-16,
    -1.88035477551078244854E-15, -3.81440307243700780478E-15, 1.04202769841288027642E-14,
    4.27244001671195135429E-14, -2.10154184277266431302E-14, -4.08355111109219731823E-13,
    -7.19855177624590851209E-13, 2.03562854414708950722E-12, 1.41258074366137813316E-11,
    3.25260358301548823856E-11, -1.89749581235054123450E-11, -5.58974346219658380687E-10,
    -3.83538038596423702205E-9, -2.63146884688951950684E-8, -2.51223623787020892529E-7,
    -3.88256480887769039346E-6, -1.10588938762623716291E-4, -9.76109749136146840777E-3,
    7.78576235018280120474E-1};
// In float, the series is cut to the coefficients float can still tell
// apart: the last 17 of A and the last 7 of B (Cephes' single-precision
// i1f.c).
constexpr size_t kI1eAFloatTerms = 17, kI1eBFloatTerms = 7;

/// Cephes' chbevl: the Chebyshev series sum' c_i T_i(t/2), by Clenshaw's
/// recurrence b0 = t*b1 - b2 + c, then (b0 - b2) / 2.
Value chebyshev(Math &m, Value t, llvm::ArrayRef<double> coefficients) {
  Value b0 = m.c(0.0), b1 = m.c(0.0), b2 = m.c(0.0);
  for (double coefficient : coefficients) {
    b2 = b1;
    b1 = b0;
    b0 = m.add(m.sub(m.mul(t, b1), b2), m.c(coefficient));
  }
  return m.mul(m.sub(b0, b2), m.c(0.5));
}

Value besselI1e(Math &m, Value x, bool isF64) {
  llvm::ArrayRef<double> a(kI1eA), bb(kI1eB);
  if (!isF64) {
    a = a.take_back(kI1eAFloatTerms);
    bb = bb.take_back(kI1eBFloatTerms);
  }
  Value z = m.abs(x);
  Value small = m.mul(z, chebyshev(m, m.sub(m.mul(m.c(0.5), z), m.c(2.0)), a));
  Value large = m.div(chebyshev(m, m.sub(m.div(m.c(32.0), z), m.c(2.0)), bb), m.sqrt(z));
  return m.mul(m.sign(x), m.select(m.le(z, m.c(8.0)), small, large));
}

//===--- zeta -----------------------------------------------------------------===//

// Cephes' A[i] = (2i+2)! / B_{2i+2} of the Euler-Maclaurin corrections, for
// i = 11 down to 0 (the order Horner's rule consumes them).
constexpr double kZetaA[] = {
    -7.1661652561756670113e18, 1.8152105401943546773e17, -4.5979787224074726105e15,
    1.1646782814350067249e14,  -2.950130727918164224e12, 7.47242496e10,
    -1.8924375803183791606e9,  47900160.0,               -1209600.0,
    30240.0,                   -720.0,                   12.0};
constexpr int kZetaTerms = 12;
constexpr int kZetaDirectTerms = 9; // after q^-x itself

/// The Hurwitz zeta function zeta(x, q) = sum_{k>=0} (q + k)^-x.
Value zeta(Math &m, Value x, Value q, double smallestDenormal) {
  Value one = m.c(1.0), zero = m.c(0.0);
  Value negX = m.neg(x);
  // The direct sum of (q + k)^-x for k = 0..9.
  Value a = q;
  Value term = zero;
  Value sum = m.pow(q, negX);
  for (int k = 0; k < kZetaDirectTerms; ++k) {
    a = m.add(a, one);
    term = m.pow(a, negX);
    sum = m.add(sum, term);
  }
  // The tail from a = q + 10: its integral a^(1-x) / (x-1), then
  // a^-x (1/2 + x/a (1/A_0 + (x+1)(x+2)/a^2 (1/A_1 + ...))).
  a = m.add(a, one);
  term = m.pow(a, negX);
  Value integral = m.div(m.mul(term, a), m.sub(x, one));
  Value invASquared = m.div(one, m.mul(a, a));
  Value horner = zero;
  for (int i = 0; i < kZetaTerms - 1; ++i) {
    // The factor (x + 2j - 1)(x + 2j) between corrections j-1 and j, for
    // j = 11 - i.
    Value factor = m.mul(m.add(x, m.c(2 * kZetaTerms - 2 - 2 * i)),
                         m.add(x, m.c(2 * kZetaTerms - 3 - 2 * i)));
    horner = m.mul(factor, m.mul(invASquared, m.add(horner, m.c(1.0 / kZetaA[i]))));
  }
  Value corrections = m.mul(
      term, m.add(m.c(0.5), m.mul(m.div(x, a), m.add(m.c(1.0 / kZetaA[kZetaTerms - 1]), horner))));
  Value full = m.add(m.add(sum, integral), corrections);
  // The direct sum alone where the tail no longer counts.
  Value out = m.select(m.lt(m.abs(term), m.mul(m.abs(sum), m.c(smallestDenormal))), sum, full);

  Value nan = m.c(m.nan()), inf = m.c(m.inf());
  // Not defined for x < 1.
  out = m.select(m.lt(x, one), nan, out);
  // For q <= 0, x must be an integer.
  Value qNotPositive = m.le(q, zero);
  out = m.select(m.both(qNotPositive, m.ne(x, m.floor(x))), nan, out);
  // At the poles (q a non-positive integer): +inf for even integer x.
  Value xEvenInteger = m.both(m.isInteger(x), m.eq(m.rem(x, m.c(2.0)), zero));
  out = m.select(m.both(qNotPositive, m.isInteger(q)), m.select(xEvenInteger, inf, nan), out);
  // x = 1: the harmonic series diverges.
  return m.select(m.eq(x, one), inf, out);
}

//===--- polygamma ------------------------------------------------------------===//

Value polygamma(Math &m, Value n, Value x, double smallestDenormal) {
  Value one = m.c(1.0), two = m.c(2.0), zero = m.c(0.0);
  // (-1)^(n+1) = 2 (n mod 2) - 1 for natural n; n! = exp(lgamma(n + 1)).
  Value sign = m.sub(m.mul(two, m.rem(n, two)), one);
  Value nPlusOne = m.add(n, one);
  Value result = m.mul(m.mul(sign, m.exp(m.lgamma(nPlusOne))),
                       zeta(m, nPlusOne, x, smallestDenormal));
  result = m.select(m.eq(n, zero), m.digamma(x), result);
  Value notNatural = m.either(m.ne(n, m.floor(n)), m.lt(n, zero));
  return m.select(notNatural, m.c(m.nan()), result);
}

//===--- Emitters -------------------------------------------------------------===//

/// Runs `compute` on the operands in the type the math is done in (f32 for
/// f16 and bf16, else the operands' own), and rounds the result back.
template <typename Compute>
EmitResult emitSpecial(PrimitiveEmitter &e, size_t arity, Compute compute) {
  EmitResult x = e.elementwise(arity);
  if (failed(x))
    return failure();
  auto type = cast<RankedTensorType>((*x)[0].getType());
  Type element = type.getElementType();
  for (Value v : *x)
    if (cast<RankedTensorType>(v.getType()) != type || !isa<FloatType>(element))
      return e.builder.emitError(e.eqn.primitiveLoc)
             << "'" << e.primitive() << "' takes float operands of one type, got "
             << v.getType();
  bool widen = element.isF16() || element.isBF16();
  bool isF64 = element.isF64();
  if (!widen && !isF64 && !element.isF32())
    return e.builder.emitError(e.eqn.primitiveLoc)
           << "'" << e.primitive() << "' takes f16, bf16, f32 or f64, got " << type;
  RankedTensorType work = widen ? type.clone(e.b.getF32Type()) : type;
  SmallVector<Value> args;
  for (Value v : *x)
    args.push_back(widen ? Value(ConvertElementTypeOp::create(e.b, e.loc, work, v)) : v);
  Math m(e.b, e.loc, work);
  double smallestDenormal = isF64 ? std::numeric_limits<double>::denorm_min()
                                  : double(std::numeric_limits<float>::denorm_min());
  Value result = compute(m, args, isF64, smallestDenormal);
  Operation *last = widen ? ConvertElementTypeOp::create(e.b, e.loc, type, result).getOperation()
                          : result.getDefiningOp();
  // The ops above are typed by construction; verify the last one (and so
  // its type) like any other equation's result.
  return e.finish(last);
}

EmitResult emitBesselI1e(PrimitiveEmitter &e) {
  return emitSpecial(e, 1, [](Math &m, ArrayRef<Value> a, bool isF64, double) {
    return besselI1e(m, a[0], isF64);
  });
}

EmitResult emitZeta(PrimitiveEmitter &e) {
  return emitSpecial(e, 2, [](Math &m, ArrayRef<Value> a, bool, double smallest) {
    return zeta(m, a[0], a[1], smallest);
  });
}

EmitResult emitPolygamma(PrimitiveEmitter &e) {
  return emitSpecial(e, 2, [](Math &m, ArrayRef<Value> a, bool, double smallest) {
    return polygamma(m, a[0], a[1], smallest);
  });
}

} // namespace

void kiln::jaxpr::registerSpecialFunctionPrimitives(PrimitiveTable &table) {
  addPrimitives(table, {
      {"bessel_i1e", emitBesselI1e},
      {"zeta", emitZeta},
      {"polygamma", emitPolygamma},
  });
}
