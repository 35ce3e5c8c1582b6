//===- InterpretContraction.cpp - dot_general, reductions, arg-reductions -===//
//
// Sums accumulate in double (integers in 64-bit wrap-around) and round once
// to the result type; a float dot_general sums its products exactly
// (ExactSum), so its result does not depend on the contraction order. dot_general packs both operands as [batch, free,
// contracting] so the innermost loop is a dot product of contiguous rows.
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

/// Flat offsets into `t` of every index over `dims` (row-major over them).
SmallVector<int64_t> offsetsOver(const Tensor &t, ArrayRef<int64_t> dims) {
  SmallVector<int64_t> strides = t.strides(), sizes, offsets = {0};
  for (int64_t d : dims) {
    SmallVector<int64_t> next;
    for (int64_t base : offsets)
      for (int64_t i = 0; i < t.shape()[d]; ++i)
        next.push_back(base + i * strides[d]);
    offsets = std::move(next);
  }
  return offsets;
}

/// The exact sum of terms, rounded once to double (Shewchuk's algorithm, as
/// Python's math.fsum): a float dot product does not depend on the order of
/// its terms, so a rewrite that only reorders a contraction (sorting the
/// contracting dimensions, folding a transpose into dot_general) gives the
/// same bits, as "exact" promises. The partials are long doubles (x87's
/// 15-bit exponent on x86-64): a partial sum of finite doubles cannot
/// overflow there, where in double DBL_MAX/2 + DBL_MAX/2 - DBL_MAX - DBL_MAX
/// overflowed or not by the order of its terms (-DBL_MAX against NaN after
/// kiln-canonicalize-dot-general; the unit test
/// InterpretContractionTest.F64DotIsExactInEveryOrder and
/// tests/differential/regressions/dot-intermediate-overflow.mlir). f64
/// products enter as their two exact halves in long double (fmal), so a
/// product beyond DBL_MAX is a finite term too; products of narrower floats
/// are exact. Infinities and NaN sum separately (their sum has no order
/// either). A NaN sum is the canonical quiet NaN: which of several NaN terms
/// an ordered sum keeps, sign and payload, depends on the order (x86 keeps
/// the first), so a rewrite that reorders the contraction would change the
/// bits a bitcast_convert_type shows
/// (tests/differential/regressions/dot-nan-order.mlir).
class ExactSum {
public:
  void add(double x) {
    if (!std::isfinite(x)) {
      special += x;
      hasSpecial = true;
      return;
    }
    addPartial(x);
  }
  void addProduct(double a, double b, bool exactProducts) {
    if (!std::isfinite(a) || !std::isfinite(b)) {
      add(a * b); // inf or NaN, as IEEE says (0 * inf is NaN)
      return;
    }
    long double p = static_cast<long double>(a) * b;
    addPartial(p);
    // The exact rest of the 106-bit product, where there is one: a zero rest
    // is no term (-0 * 1.5 has the rest +0, which would make a sum of -0
    // products +0, where the JIT's is -0;
    // tests/differential/regressions/dot-negative-zero-f64.mlir).
    if (!exactProducts)
      if (long double rest = std::fmal(a, b, -p); rest != 0.0L)
        addPartial(rest);
  }
  double result() const {
    if (hasSpecial)
      return std::isnan(special) ? std::numeric_limits<double>::quiet_NaN() : special;
    size_t n = partials.size();
    if (n == 0)
      return -0.0; // the empty sum, as the interpreter's other sums
    long double hi = partials[n - 1], lo = 0;
    size_t i = n - 1;
    while (i > 0) {
      long double x = hi, y = partials[--i];
      hi = x + y;
      lo = y - (hi - x);
      if (lo != 0.0L)
        break;
    }
    // Round half-way cases of long double as the exact sum says (math.fsum).
    if (i > 0 && ((lo < 0 && partials[i - 1] < 0) || (lo > 0 && partials[i - 1] > 0))) {
      long double y = lo * 2, x = hi + y;
      if (y == x - hi)
        hi = x;
    }
    // hi is the exact sum rounded to long double, which has more bits than
    // double: rounding it again gives the exact sum's double unless hi is
    // half-way between two doubles, where the sign of the rest (lo: the
    // partials below it are smaller than its ulp) decides.
    double d = static_cast<double>(hi); // +-inf where the exact sum overflows
    if (lo != 0.0L) {
      // A double as a long double, an infinity as the power of two it
      // rounds from (2^1024), so that the half-way point to DBL_MAX exists.
      auto wide = [](double x) {
        return std::isinf(x) ? std::copysign(0x1p1024L, x) : static_cast<long double>(x);
      };
      double next = std::nextafter(d, lo > 0 ? INFINITY : -INFINITY);
      if (hi == (wide(d) + wide(next)) / 2)
        return next;
    }
    return d;
  }

private:
  void addPartial(long double x) {
    size_t i = 0;
    for (long double y : partials) {
      if (std::fabs(x) < std::fabs(y))
        std::swap(x, y);
      long double hi = x + y, lo = y - (hi - x);
      if (lo != 0.0L)
        partials[i++] = lo;
      x = hi;
    }
    partials.resize(i);
    partials.push_back(x);
  }

  SmallVector<long double, 4> partials;
  double special = 0;
  bool hasSpecial = false;
};

SmallVector<int64_t> freeDims(int64_t rank, ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  SmallVector<int64_t> free;
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(a, d) && !llvm::is_contained(b, d))
      free.push_back(d);
  return free;
}

/// Packs `t` as rows [outer][inner] of doubles.
std::vector<double> pack(const Tensor &t, ArrayRef<int64_t> outer, ArrayRef<int64_t> inner) {
  std::vector<double> rows;
  rows.reserve(outer.size() * inner.size());
  for (int64_t o : outer)
    for (int64_t i : inner)
      rows.push_back(t.asDouble(o + i));
  return rows;
}

Tensor dotGeneral(const Evaluator &ev, DotGeneralOp op, const Tensor &lhs, const Tensor &rhs) {
  SmallVector<int64_t> lb = offsetsOver(lhs, op.getLhsBatchDimensions());
  SmallVector<int64_t> rb = offsetsOver(rhs, op.getRhsBatchDimensions());
  SmallVector<int64_t> lk = offsetsOver(lhs, op.getLhsContractingDimensions());
  SmallVector<int64_t> rk = offsetsOver(rhs, op.getRhsContractingDimensions());
  SmallVector<int64_t> lf = offsetsOver(
      lhs, freeDims(lhs.rank(), op.getLhsBatchDimensions(), op.getLhsContractingDimensions()));
  SmallVector<int64_t> rf = offsetsOver(
      rhs, freeDims(rhs.rank(), op.getRhsBatchDimensions(), op.getRhsContractingDimensions()));
  // Rows [batch * free][k] of both operands.
  SmallVector<int64_t> lOuter, rOuter;
  for (int64_t b : lb)
    for (int64_t f : lf)
      lOuter.push_back(b + f);
  for (int64_t b : rb)
    for (int64_t f : rf)
      rOuter.push_back(b + f);
  size_t K = lk.size(), LF = lf.size(), RF = rf.size();
  Tensor out = ev.make(op.getType());
  if (!out.isFloat() && !lhs.isFloat() && !rhs.isFloat()) {
    // Integers: exact 64-bit wrap-around products and sums, wrapped to the
    // result type when stored (doubles would lose bits beyond 2^53).
    std::vector<uint64_t> l, r;
    for (int64_t o : lOuter)
      for (int64_t k : lk)
        l.push_back(uint64_t(lhs.getInt(o + k)));
    for (int64_t o : rOuter)
      for (int64_t k : rk)
        r.push_back(uint64_t(rhs.getInt(o + k)));
    int64_t flat = 0;
    for (size_t b = 0; b < lb.size(); ++b)
      for (size_t i = 0; i < LF; ++i)
        for (size_t j = 0; j < RF; ++j, ++flat) {
          uint64_t acc = 0;
          for (size_t k = 0; k < K; ++k)
            acc += l[(b * LF + i) * K + k] * r[(b * RF + j) * K + k];
          out.setInt(flat, int64_t(acc));
        }
    return out;
  }
  std::vector<double> l = pack(lhs, lOuter, lk), r = pack(rhs, rOuter, rk);
  bool isFloat = out.isFloat();
  if (K == 0) {
    // An empty contraction is +0, as JAX's (XLA starts its sums at +0).
    for (int64_t i = 0; i < out.size(); ++i)
      isFloat ? out.setFloat(i, 0.0) : out.setInt(i, 0);
    return out;
  }
  // Every float dot product is the exact sum of its terms rounded once to
  // double, then to the result type, so that it does not depend on the
  // order of the contraction (a rewrite may reorder it). Products of
  // operands narrower than f64 are exact in double; their double sum with
  // TwoSum's error terms brackets the exact sum, and where the whole bracket
  // rounds to one value of the result type (the rounding is monotone), that
  // value is the result -- almost always. Otherwise (a bracket across a
  // rounding boundary, an inf or NaN term, terms spanning more than double's
  // 53 bits as FLT_MAX * FLT_MIN beside 1 * FLT_MIN, an f64 dot) ExactSum
  // computes it, about 20 times slower than a double sum. Unrounded
  // evaluation (f64Reference) keeps the plain double sum.
  bool exactProducts = !lhs.getElementType().isF64() && !rhs.getElementType().isF64();
  Type outElement = out.getElementType();
  auto roundToOut = [&](double v) -> double {
    if (outElement.isF64())
      return v;
    if (outElement.isF32())
      return double(float(v));
    llvm::APFloat f(v);
    bool lost = false;
    f.convert(cast<FloatType>(outElement).getFloatSemantics(),
              llvm::APFloat::rmNearestTiesToEven, &lost);
    f.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven, &lost);
    return f.convertToDouble();
  };
  int64_t flat = 0;
  for (size_t b = 0; b < lb.size(); ++b)
    for (size_t i = 0; i < LF; ++i) {
      const double *lrow = &l[(b * LF + i) * K];
      for (size_t j = 0; j < RF; ++j, ++flat) {
        const double *rrow = &r[(b * RF + j) * K];
        if (!isFloat || (exactProducts && !out.roundsFloats())) {
          // -0.0: the additive identity, as the other sums (a sum of -0
          // terms is -0, as in the JIT).
          double acc = isFloat ? -0.0 : 0.0;
          for (size_t k = 0; k < K; ++k)
            acc += lrow[k] * rrow[k];
          isFloat ? out.setFloat(flat, acc) : out.setInt(flat, int64_t(acc));
          continue;
        }
        if (exactProducts) {
          // s + sum(lo) is the exact sum (TwoSum is exact without overflow).
          double s = -0.0, err = 0.0, errAbs = 0.0;
          for (size_t k = 0; k < K; ++k) {
            double p = lrow[k] * rrow[k], t = s + p, bp = t - s;
            double lo = (s - (t - bp)) + (p - bp);
            err += lo;
            errAbs += std::fabs(lo);
            s = t;
          }
          if (std::isfinite(s) && std::isfinite(errAbs)) {
            if (errAbs == 0.0) { // no addition rounded: s is the exact sum
              out.setFloat(flat, s);
              continue;
            }
            // |fl(sum lo) - sum lo| <= (K - 1) u sum|lo|, |fl(s + err) -
            // (s + err)| <= u |s + err| (u = 2^-53), both bounds doubled,
            // and the bracket's own rounding covered by two ulps each way.
            double t = s + err;
            double bound = 0x1p-52 * std::fabs(t) + 0x1p-51 * double(K + 1) * errAbs +
                           0x1p-1072;
            double lo = std::nextafter(std::nextafter(t - bound, -INFINITY), -INFINITY);
            double hi = std::nextafter(std::nextafter(t + bound, INFINITY), INFINITY);
            double rlo = roundToOut(lo), rhi = roundToOut(hi);
            if (rlo == rhi && std::signbit(rlo) == std::signbit(rhi)) {
              out.setFloat(flat, rlo);
              continue;
            }
          }
        }
        ExactSum acc;
        for (size_t k = 0; k < K; ++k)
          acc.addProduct(lrow[k], rrow[k], exactProducts);
        out.setFloat(flat, acc.result());
      }
    }
  return out;
}

enum class Combine { Sum, Max, Min, Prod };

Tensor reduce(const Evaluator &ev, Operation *op, const Tensor &x, ArrayRef<int64_t> axes,
              Combine combine) {
  Tensor out = ev.make(op->getResult(0).getType());
  // Output stride of each operand dimension (0 for reduced ones).
  SmallVector<int64_t> outStrides(x.rank(), 0);
  SmallVector<int64_t> strides = out.strides();
  for (int64_t d = 0, o = 0; d < x.rank(); ++d)
    if (!llvm::is_contained(axes, d))
      outStrides[d] = strides[o++];
  // -0.0 is the additive identity of IEEE floats (-0 + x = x for every x,
  // +0 + -0 is +0): a sum of one element is that element, sign of zero
  // included. An empty sum is +0 (below), as in JAX.
  double init = combine == Combine::Sum ? -0.0 : combine == Combine::Prod ? 1
                : combine == Combine::Max ? -INFINITY : INFINITY;
  bool isFloat = x.isFloat();
  // Integer identities are computed in integers: INT64_MAX does not round-trip
  // through a double, and a float identity (+-inf) has no integer value.
  int64_t intInit = combine == Combine::Prod ? 1 : 0;
  if (!isFloat && (combine == Combine::Max || combine == Combine::Min)) {
    Type t = x.getElementType();
    unsigned bits = t.getIntOrFloatBitWidth();
    bool isUnsigned = t.isUnsignedInteger() || t.isInteger(1);
    int64_t signedMax = bits >= 64 ? INT64_MAX : (int64_t(1) << (bits - 1)) - 1;
    int64_t unsignedMax = bits >= 63 ? INT64_MAX : (int64_t(1) << bits) - 1;
    if (combine == Combine::Max)
      intInit = isUnsigned ? 0 : -signedMax - 1;
    else
      intInit = isUnsigned ? unsignedMax : signedMax;
    init = double(intInit);
  }
  std::vector<double> acc(out.size(), init);
  std::vector<int64_t> intAcc(out.size(), intInit);
  // Walk the operand in row-major order; `o` (its output element) follows
  // incrementally, odometer-style.
  SmallVector<int64_t> index(x.rank(), 0);
  int64_t o = 0;
  for (int64_t flat = 0; flat < x.size(); ++flat) {
    if (flat > 0)
      for (int64_t d = x.rank() - 1; d >= 0; --d) {
        o += outStrides[d];
        if (++index[d] < x.shape()[d])
          break;
        o -= outStrides[d] * x.shape()[d];
        index[d] = 0;
      }
    if (isFloat) {
      double v = x.getFloat(flat);
      double &a = acc[o];
      switch (combine) {
      case Combine::Sum: a += v; break;
      case Combine::Prod: a *= v; break;
      // As lax.max/min: NaN propagates (of two, the same one in any
      // order), -0 < +0.
      case Combine::Max: a = ieeeMaximum(a, v); break;
      case Combine::Min: a = ieeeMinimum(a, v); break;
      }
    } else {
      int64_t v = x.getInt(flat);
      int64_t &a = intAcc[o];
      switch (combine) {
      case Combine::Sum: a = int64_t(uint64_t(a) + uint64_t(v)); break;
      case Combine::Prod: a = int64_t(uint64_t(a) * uint64_t(v)); break;
      case Combine::Max: a = std::max(a, v); break;
      case Combine::Min: a = std::min(a, v); break;
      }
    }
  }
  bool empty = x.size() == 0;
  for (int64_t i = 0; i < out.size(); ++i)
    isFloat ? out.setFloat(i, empty && combine == Combine::Sum ? 0.0 : acc[i])
            : out.setInt(i, intAcc[i]);
  return out;
}

/// Index of the max (or min) along `axis`; NaN wins (as JAX's argmax), ties
/// go to the first index.
Tensor argReduce(const Evaluator &ev, Operation *op, const Tensor &x, int64_t axis, bool isMax) {
  Tensor out = ev.make(op->getResult(0).getType());
  SmallVector<int64_t> strides = x.strides(), index;
  SmallVector<int64_t> outShape(out.shape());
  for (int64_t o = 0; o < out.size(); ++o) {
    unravel(o, outShape, index);
    index.insert(index.begin() + axis, 0);
    int64_t base = 0;
    for (int64_t d = 0; d < x.rank(); ++d)
      base += index[d] * strides[d];
    int64_t best = 0;
    if (!x.isFloat()) {
      // Integers compare exactly (i64 beyond 2^53 would tie as doubles).
      int64_t bestInt = x.getInt(base);
      for (int64_t i = 1; i < x.shape()[axis]; ++i) {
        int64_t v = x.getInt(base + i * strides[axis]);
        if (isMax ? v > bestInt : v < bestInt) {
          best = i;
          bestInt = v;
        }
      }
      out.setInt(o, best);
      continue;
    }
    double bestValue = x.asDouble(base);
    for (int64_t i = 1; i < x.shape()[axis]; ++i) {
      double v = x.asDouble(base + i * strides[axis]);
      if (std::isnan(bestValue))
        break;
      if (std::isnan(v) || (isMax ? v > bestValue : v < bestValue)) {
        best = i;
        bestValue = v;
      }
    }
    out.setInt(o, best);
  }
  return out;
}

} // namespace

namespace {

/// lax.cholesky: per matrix of the two trailing dimensions, the
/// Cholesky-Banachiewicz factor computed in double (the declared type's
/// rounding happens once, on store); the strict upper triangle is the
/// operand's; a pivot that is not positive makes the whole matrix NaN.
Tensor cholesky(const Evaluator &ev, CholeskyOp op, const Tensor &a) {
  Tensor r = ev.make(op.getType());
  int64_t n = a.shape().back(), count = n == 0 ? 0 : a.size() / (n * n);
  std::vector<double> l(n * n);
  for (int64_t m = 0; m < count; ++m) {
    int64_t base = m * n * n;
    bool ok = true;
    std::fill(l.begin(), l.end(), 0.0);
    for (int64_t i = 0; i < n && ok; ++i)
      for (int64_t j = 0; j <= i; ++j) {
        double sum = a.getFloat(base + i * n + j);
        for (int64_t k = 0; k < j; ++k)
          sum -= l[i * n + k] * l[j * n + k];
        if (i == j) {
          if (!(sum > 0)) { // also NaN
            ok = false;
            break;
          }
          l[i * n + i] = std::sqrt(sum);
        } else {
          l[i * n + j] = sum / l[j * n + j];
        }
      }
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j)
        r.setFloat(base + i * n + j,
                   !ok ? NAN : j <= i ? l[i * n + j] : a.getFloat(base + i * n + j));
  }
  return r;
}

/// lax.lu: getrf's unblocked algorithm per matrix, on the result tensor
/// itself, so that each update rounds to the element type as LAPACK's does
/// (an a - l * u is one rounding, as the runtime's contracted FMA).
SmallVector<Tensor> lu(const Evaluator &ev, LuOp op, const Tensor &a) {
  Tensor r = ev.make(op.getLu().getType()), pivots = ev.make(op.getPivots().getType()),
         perm = ev.make(op.getPermutation().getType());
  int64_t m = a.shape()[a.rank() - 2], n = a.shape().back(), k = std::min(m, n);
  int64_t count = m * n == 0 ? 0 : a.size() / (m * n);
  for (int64_t i = 0; i < a.size(); ++i)
    r.setFloat(i, a.getFloat(i));
  for (int64_t batch = 0; batch < count; ++batch) {
    int64_t base = batch * m * n;
    auto at = [&](int64_t i, int64_t j) { return base + i * n + j; };
    std::vector<int64_t> order(m);
    for (int64_t i = 0; i < m; ++i)
      order[i] = i;
    for (int64_t j = 0; j < k; ++j) {
      int64_t p = j;
      for (int64_t i = j + 1; i < m; ++i)
        if (std::abs(r.getFloat(at(i, j))) > std::abs(r.getFloat(at(p, j))))
          p = i;
      pivots.setInt(batch * k + j, p);
      if (p != j) {
        std::swap(order[p], order[j]);
        for (int64_t c = 0; c < n; ++c) {
          double t = r.getFloat(at(j, c));
          r.setFloat(at(j, c), r.getFloat(at(p, c)));
          r.setFloat(at(p, c), t);
        }
      }
      double pivot = r.getFloat(at(j, j));
      if (pivot == 0)
        continue; // a singular column: nothing below it is eliminated
      for (int64_t i = j + 1; i < m; ++i) {
        r.setFloat(at(i, j), r.getFloat(at(i, j)) / pivot);
        double l = r.getFloat(at(i, j));
        for (int64_t c = j + 1; c < n; ++c)
          r.setFloat(at(i, c), r.getFloat(at(i, c)) - l * r.getFloat(at(j, c)));
      }
    }
    for (int64_t i = 0; i < m; ++i)
      perm.setInt(batch * m + i, order[i]);
  }
  return {r, pivots, perm};
}

/// lax.triangular_solve by substitution in double, per matrix: op(a) x = b
/// (left_side) or x op(a) = b, reading a's lower or upper triangle.
Tensor triangularSolve(const Evaluator &ev, TriangularSolveOp op, const Tensor &a,
                       const Tensor &b) {
  Tensor r = ev.make(op.getType());
  int64_t m = a.shape().back();
  int64_t rows = b.shape()[b.rank() - 2], cols = b.shape().back();
  int64_t count = m == 0 || rows * cols == 0 ? 0 : b.size() / (rows * cols);
  bool left = op.getLeftSide(), lower = op.getLower(), trans = op.getTransposeA(),
       unit = op.getUnitDiagonal();
  // Element (i, j) of op(a), 0 outside the triangle read.
  auto opA = [&](int64_t base, int64_t i, int64_t j) -> double {
    if (trans)
      std::swap(i, j);
    if (lower ? j > i : j < i)
      return 0.0;
    if (i == j && unit)
      return 1.0;
    return a.getFloat(base + i * m + j);
  };
  // op(a) is lower triangular when exactly one of lower, transpose_a holds.
  bool opLower = lower != trans;
  std::vector<double> x(m);
  for (int64_t batch = 0; batch < count; ++batch) {
    int64_t aBase = batch * m * m, bBase = batch * rows * cols;
    // Each right-hand side: a column of b (left) or a row (right; x op(a) = b
    // is op(a)^T x^T = b^T).
    int64_t systems = left ? cols : rows;
    for (int64_t s = 0; s < systems; ++s) {
      auto bAt = [&](int64_t k) { return left ? bBase + k * cols + s : bBase + s * cols + k; };
      // The matrix solved: op(a) (left) or op(a)^T (right).
      auto coef = [&](int64_t i, int64_t j) { return left ? opA(aBase, i, j) : opA(aBase, j, i); };
      bool forward = left ? opLower : !opLower;
      for (int64_t t = 0; t < m; ++t) {
        int64_t i = forward ? t : m - 1 - t;
        double sum = b.getFloat(bAt(i));
        for (int64_t u = 0; u < t; ++u) {
          int64_t k = forward ? u : m - 1 - u;
          sum -= coef(i, k) * x[k];
        }
        x[i] = sum / coef(i, i);
      }
      for (int64_t k = 0; k < m; ++k)
        r.setFloat(bAt(k), x[k]);
    }
  }
  return r;
}

} // namespace

SmallVector<Tensor> Evaluator::evalLu(LuOp op) { return lu(*this, op, lookup(op.getOperand())); }

std::optional<FailureOr<Tensor>> Evaluator::evalContraction(Operation *op) {
  using R = std::optional<FailureOr<Tensor>>;
  auto in = [&](unsigned i) -> const Tensor & { return lookup(op->getOperand(i)); };
  return TypeSwitch<Operation *, R>(op)
      .Case([&](DotGeneralOp d) -> R { return dotGeneral(*this, d, in(0), in(1)); })
      .Case([&](ReduceSumOp r) -> R { return reduce(*this, op, in(0), r.getAxes(), Combine::Sum); })
      .Case([&](ReduceMaxOp r) -> R { return reduce(*this, op, in(0), r.getAxes(), Combine::Max); })
      .Case([&](ReduceMinOp r) -> R { return reduce(*this, op, in(0), r.getAxes(), Combine::Min); })
      .Case([&](ReduceProdOp r) -> R { return reduce(*this, op, in(0), r.getAxes(), Combine::Prod); })
      .Case([&](ArgMaxOp a) -> R { return argReduce(*this, op, in(0), a.getAxes()[0], true); })
      .Case([&](ArgMinOp a) -> R { return argReduce(*this, op, in(0), a.getAxes()[0], false); })
      .Case([&](CholeskyOp c) -> R { return cholesky(*this, c, in(0)); })
      .Case([&](TriangularSolveOp t) -> R { return triangularSolve(*this, t, in(0), in(1)); })
      .Default([](Operation *) -> R { return std::nullopt; });
}
