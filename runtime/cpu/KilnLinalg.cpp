//===- KilnLinalg.cpp - Cholesky and triangular solves --------------------===//
//
// lax.cholesky, lax.lu and lax.triangular_solve on the CPU: the reference
// interpreter's algorithms (reference/InterpretContraction.cpp), per matrix
// of a [batch, m, m] memref, with sums in double and one rounding to the
// element type on store, so the compiled code and the interpreter agree to
// the last bit wherever double rounding does not differ. O(m^3) per matrix
// without blocking: the sizes of Gaussian-process and Newton-solver
// programs (m up to a few hundred), not large dense factorizations.
//
//===----------------------------------------------------------------------===//
#include "runtime/cpu/KilnRuntimeCpu.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <vector>

namespace {

template <typename T> T &at(KilnMemRef3<T> *m, int64_t b, int64_t i, int64_t j) {
  return m->aligned[m->offset + b * m->strides[0] + i * m->strides[1] + j * m->strides[2]];
}

template <typename T> void cholesky(KilnMemRef3<T> *a, KilnMemRef3<T> *out) {
  int64_t batch = a->sizes[0], n = a->sizes[1];
  std::vector<double> l(static_cast<size_t>(n * n));
  for (int64_t b = 0; b < batch; ++b) {
    bool ok = true;
    std::fill(l.begin(), l.end(), 0.0);
    for (int64_t i = 0; i < n && ok; ++i)
      for (int64_t j = 0; j <= i; ++j) {
        double sum = double(at(a, b, i, j));
        for (int64_t k = 0; k < j; ++k)
          sum -= l[i * n + k] * l[j * n + k];
        if (i == j) {
          if (!(sum > 0)) { // not positive definite (or NaN): all NaN, as JAX
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
        at(out, b, i, j) = !ok    ? std::numeric_limits<T>::quiet_NaN()
                           : j <= i ? T(l[i * n + j])
                                    : at(a, b, i, j); // the upper triangle as potrf leaves it
  }
}

template <typename T>
void triangularSolve(KilnMemRef3<T> *a, KilnMemRef3<T> *bm, KilnMemRef3<T> *out, bool left,
                     bool lower, bool trans, bool unit) {
  int64_t batch = bm->sizes[0], rows = bm->sizes[1], cols = bm->sizes[2], m = a->sizes[1];
  std::vector<double> x(static_cast<size_t>(m));
  for (int64_t b = 0; b < batch; ++b) {
    // Element (i, j) of op(a); 0 outside the triangle read.
    auto opA = [&](int64_t i, int64_t j) -> double {
      if (trans)
        std::swap(i, j);
      if (lower ? j > i : j < i)
        return 0.0;
      if (i == j && unit)
        return 1.0;
      return double(at(a, b, i, j));
    };
    bool opLower = lower != trans;
    int64_t systems = left ? cols : rows;
    for (int64_t s = 0; s < systems; ++s) {
      auto rhs = [&](KilnMemRef3<T> *mem, int64_t k) -> T & {
        return left ? at(mem, b, k, s) : at(mem, b, s, k);
      };
      // x op(a) = b is op(a)^T x^T = b^T.
      auto coef = [&](int64_t i, int64_t j) { return left ? opA(i, j) : opA(j, i); };
      bool forward = left ? opLower : !opLower;
      for (int64_t t = 0; t < m; ++t) {
        int64_t i = forward ? t : m - 1 - t;
        double sum = double(rhs(bm, i));
        for (int64_t u = 0; u < t; ++u) {
          int64_t k = forward ? u : m - 1 - u;
          sum -= coef(i, k) * x[k];
        }
        x[i] = sum / coef(i, i);
      }
      for (int64_t k = 0; k < m; ++k)
        rhs(out, k) = T(x[k]);
    }
  }
}

/// getrf's unblocked algorithm (the interpreter's lu): rows swapped to the
/// largest pivot of each column, the column below it scaled, the trailing
/// block updated; in the element type, as LAPACK computes.
template <typename T>
void lu(KilnMemRef3<T> *a, KilnMemRef3<T> *out, KilnMemRef3<int32_t> *pivots,
        KilnMemRef3<int32_t> *permutation) {
  int64_t batch = a->sizes[0], m = a->sizes[1], n = a->sizes[2], k = std::min(m, n);
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j)
        at(out, b, i, j) = at(a, b, i, j);
      at(permutation, b, 0, i) = int32_t(i);
    }
    for (int64_t j = 0; j < k; ++j) {
      int64_t p = j;
      for (int64_t i = j + 1; i < m; ++i)
        if (std::abs(at(out, b, i, j)) > std::abs(at(out, b, p, j)))
          p = i;
      at(pivots, b, 0, j) = int32_t(p);
      if (p != j) {
        std::swap(at(permutation, b, 0, p), at(permutation, b, 0, j));
        for (int64_t c = 0; c < n; ++c)
          std::swap(at(out, b, j, c), at(out, b, p, c));
      }
      T pivot = at(out, b, j, j);
      if (pivot == T(0))
        continue; // a singular column: nothing below it is eliminated
      for (int64_t i = j + 1; i < m; ++i) {
        T l = at(out, b, i, j) / pivot;
        at(out, b, i, j) = l;
        for (int64_t c = j + 1; c < n; ++c)
          at(out, b, i, c) -= l * at(out, b, j, c);
      }
    }
  }
}

} // namespace

extern "C" {

void _mlir_ciface_kiln_rt_slu(KilnMemRef3<float> *a, KilnMemRef3<float> *out,
                              KilnMemRef3<int32_t> *pivots, KilnMemRef3<int32_t> *permutation) {
  lu(a, out, pivots, permutation);
}
void _mlir_ciface_kiln_rt_dlu(KilnMemRef3<double> *a, KilnMemRef3<double> *out,
                              KilnMemRef3<int32_t> *pivots, KilnMemRef3<int32_t> *permutation) {
  lu(a, out, pivots, permutation);
}

void _mlir_ciface_kiln_rt_scholesky(KilnMemRef3<float> *a, KilnMemRef3<float> *out) {
  cholesky(a, out);
}
void _mlir_ciface_kiln_rt_dcholesky(KilnMemRef3<double> *a, KilnMemRef3<double> *out) {
  cholesky(a, out);
}
void _mlir_ciface_kiln_rt_strsm(KilnMemRef3<float> *a, KilnMemRef3<float> *b,
                                KilnMemRef3<float> *out, int64_t leftSide, int64_t lower,
                                int64_t transposeA, int64_t unitDiagonal) {
  triangularSolve(a, b, out, leftSide, lower, transposeA, unitDiagonal);
}
void _mlir_ciface_kiln_rt_dtrsm(KilnMemRef3<double> *a, KilnMemRef3<double> *b,
                                KilnMemRef3<double> *out, int64_t leftSide, int64_t lower,
                                int64_t transposeA, int64_t unitDiagonal) {
  triangularSolve(a, b, out, leftSide, lower, transposeA, unitDiagonal);
}
}
