//===- KilnLinalg.cpp - matrix decompositions and triangular solves ------===//
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

#include "linalg/Decompositions.h"

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

/// Matrix `b` of `m` ([B, rows, cols], any strides) as dense row-major
/// doubles, and back (rounded once to T).
template <typename T> std::vector<double> load(KilnMemRef3<T> *m, int64_t b) {
  int64_t rows = m->sizes[1], cols = m->sizes[2];
  std::vector<double> x(static_cast<size_t>(rows * cols));
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      x[i * cols + j] = double(at(m, b, i, j));
  return x;
}

template <typename T> void store(KilnMemRef3<T> *m, int64_t b, const std::vector<double> &x) {
  int64_t rows = m->sizes[1], cols = m->sizes[2];
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      at(m, b, i, j) = T(x[i * cols + j]);
}

template <typename T> void geqrf(KilnMemRef3<T> *a, KilnMemRef3<T> *out, KilnMemRef3<T> *taus) {
  int64_t m = a->sizes[1], n = a->sizes[2];
  std::vector<double> tau(static_cast<size_t>(std::min(m, n)));
  for (int64_t b = 0; b < a->sizes[0]; ++b) {
    std::vector<double> x = load(a, b);
    kiln::linalg::geqrf(x.data(), m, n, tau.data());
    store(out, b, x);
    store(taus, b, tau);
  }
}

template <typename T>
void householderProduct(KilnMemRef3<T> *a, KilnMemRef3<T> *taus, KilnMemRef3<T> *out) {
  int64_t m = a->sizes[1], n = a->sizes[2], k = taus->sizes[2];
  for (int64_t b = 0; b < a->sizes[0]; ++b) {
    std::vector<double> x = load(a, b), tau = load(taus, b);
    kiln::linalg::householderProduct(x.data(), m, n, tau.data(), k);
    store(out, b, x);
  }
}

template <typename T>
void svd(KilnMemRef3<T> *a, KilnMemRef3<T> *s, KilnMemRef3<T> *u, KilnMemRef3<T> *vt, bool full) {
  int64_t m = a->sizes[1], n = a->sizes[2], k = std::min(m, n);
  std::vector<double> values(static_cast<size_t>(k)), uu, vv;
  if (u) {
    uu.resize(static_cast<size_t>(u->sizes[1] * u->sizes[2]));
    vv.resize(static_cast<size_t>(vt->sizes[1] * vt->sizes[2]));
  }
  for (int64_t b = 0; b < a->sizes[0]; ++b) {
    std::vector<double> x = load(a, b);
    kiln::linalg::svd(x.data(), m, n, values.data(), u ? uu.data() : nullptr,
                      u ? vv.data() : nullptr, full);
    store(s, b, values);
    if (u) {
      store(u, b, uu);
      store(vt, b, vv);
    }
  }
}

template <typename T>
void eigh(KilnMemRef3<T> *a, KilnMemRef3<T> *vectors, KilnMemRef3<T> *values, bool lower) {
  int64_t n = a->sizes[1];
  std::vector<double> w(static_cast<size_t>(n)), v(static_cast<size_t>(n * n));
  for (int64_t b = 0; b < a->sizes[0]; ++b) {
    std::vector<double> x = load(a, b);
    kiln::linalg::eigh(x.data(), n, lower, w.data(), v.data());
    store(vectors, b, v);
    store(values, b, w);
  }
}

template <typename T>
void eig(KilnMemRef3<T> *a, KilnMemRef3<T> *wr, KilnMemRef3<T> *wi, KilnMemRef3<T> *vr,
         KilnMemRef3<T> *vi) {
  int64_t n = a->sizes[1];
  std::vector<double> re(static_cast<size_t>(n)), im(static_cast<size_t>(n)), vre, vim;
  if (vr) {
    vre.resize(static_cast<size_t>(n * n));
    vim.resize(static_cast<size_t>(n * n));
  }
  for (int64_t b = 0; b < a->sizes[0]; ++b) {
    std::vector<double> x = load(a, b);
    kiln::linalg::eig(x.data(), n, re.data(), im.data(), vr ? vre.data() : nullptr,
                      vr ? vim.data() : nullptr);
    store(wr, b, re);
    store(wi, b, im);
    if (vr) {
      store(vr, b, vre);
      store(vi, b, vim);
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

#define KILN_DECOMPOSITIONS(prefix, T)                                                          \
  void _mlir_ciface_kiln_rt_##prefix##geqrf(KilnMemRef3<T> *a, KilnMemRef3<T> *out,             \
                                            KilnMemRef3<T> *taus) {                             \
    geqrf(a, out, taus);                                                                         \
  }                                                                                              \
  void _mlir_ciface_kiln_rt_##prefix##householder_product(                                      \
      KilnMemRef3<T> *a, KilnMemRef3<T> *taus, KilnMemRef3<T> *out) {                          \
    householderProduct(a, taus, out);                                                            \
  }                                                                                              \
  void _mlir_ciface_kiln_rt_##prefix##svd(KilnMemRef3<T> *a, KilnMemRef3<T> *s,                 \
                                          KilnMemRef3<T> *u, KilnMemRef3<T> *vt, int64_t full) { \
    svd(a, s, u, vt, full != 0);                                                                 \
  }                                                                                              \
  void _mlir_ciface_kiln_rt_##prefix##svd_values(KilnMemRef3<T> *a, KilnMemRef3<T> *s) {       \
    svd<T>(a, s, nullptr, nullptr, false);                                                       \
  }                                                                                              \
  void _mlir_ciface_kiln_rt_##prefix##eigh(KilnMemRef3<T> *a, KilnMemRef3<T> *vectors,          \
                                           KilnMemRef3<T> *values, int64_t lower) {              \
    eigh(a, vectors, values, lower != 0);                                                        \
  }                                                                                              \
  void _mlir_ciface_kiln_rt_##prefix##eig(KilnMemRef3<T> *a, KilnMemRef3<T> *wr,                \
                                          KilnMemRef3<T> *wi, KilnMemRef3<T> *vr,                \
                                          KilnMemRef3<T> *vi) {                                  \
    eig(a, wr, wi, vr, vi);                                                                      \
  }                                                                                              \
  void _mlir_ciface_kiln_rt_##prefix##eig_values(KilnMemRef3<T> *a, KilnMemRef3<T> *wr,         \
                                                 KilnMemRef3<T> *wi) {                           \
    eig<T>(a, wr, wi, nullptr, nullptr);                                                         \
  }
KILN_DECOMPOSITIONS(s, float)
KILN_DECOMPOSITIONS(d, double)
#undef KILN_DECOMPOSITIONS
}
