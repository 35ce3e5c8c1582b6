//===- KilnRuntimeCpu.cpp - the GEMM the JIT calls ------------------------===//
//
// With KILN_GEMM_OPENBLAS (the configure-time backend, see CMakeLists.txt)
// each batch whose operands have a unit stride in one dimension is one
// cblas_?gemm call: BLAS takes exactly that layout (row-major with a leading
// dimension, or its transpose), so nothing is copied. Everything else, and
// every GEMM of an Eigen build, is one Eigen product of strided maps. A matrix whose inner
// stride is 1 (row-major rows, or column-major columns for a transposed
// operand) maps with OuterStride and hits Eigen's packed GEMM/GEMV kernels;
// anything else maps with a general Stride (correct, slower). Eigen picks
// GEMV itself when M or N is 1.
//
//===----------------------------------------------------------------------===//
#include "runtime/cpu/KilnRuntimeCpu.h"

#include <Eigen/Core>

#ifdef KILN_GEMM_OPENBLAS
#include <cblas.h>
#endif

#include <algorithm>
#include <climits>
#include <vector>

namespace {

using Eigen::Dynamic;
template <typename T>
using RowMat = Eigen::Matrix<T, Dynamic, Dynamic, Eigen::RowMajor>;
template <typename T>
using ColMat = Eigen::Matrix<T, Dynamic, Dynamic, Eigen::ColMajor>;
using GeneralStride = Eigen::Stride<Dynamic, Dynamic>;

/// Calls `f` with an Eigen expression of the logical rows x cols matrix
/// stored at `p` with row stride `rs` and column stride `cs`.
template <typename T, typename F>
void withMatrix(const T *p, int64_t rows, int64_t cols, int64_t rs, int64_t cs,
                F &&f) {
  if (cs == 1 || cols == 1) {
    Eigen::Map<const RowMat<T>, 0, Eigen::OuterStride<>> m(
        p, rows, cols, Eigen::OuterStride<>(rows == 1 ? cols : rs));
    f(m);
  } else if (rs == 1 || rows == 1) {
    Eigen::Map<const ColMat<T>, 0, Eigen::OuterStride<>> m(
        p, rows, cols, Eigen::OuterStride<>(cols == 1 ? rows : cs));
    f(m);
  } else {
    // Eigen's Stride is (outer, inner); for a row-major map outer = row.
    Eigen::Map<const RowMat<T>, 0, GeneralStride> m(p, rows, cols,
                                                    GeneralStride(rs, cs));
    f(m);
  }
}

#ifdef KILN_GEMM_OPENBLAS
/// How BLAS sees the rows x cols matrix with strides (rs, cs): row-major
/// with leading dimension `ld`, transposed or not. False when neither
/// stride is 1 (or the leading dimension is too small for BLAS, e.g. a
/// broadcast stride of 0).
struct BlasOperand {
  CBLAS_TRANSPOSE trans = CblasNoTrans;
  int64_t ld = 0;
};
bool blasOperand(int64_t rows, int64_t cols, int64_t rs, int64_t cs,
                 BlasOperand &out) {
  if (cs == 1 || cols == 1) {
    out = {CblasNoTrans, rows == 1 ? std::max<int64_t>(cols, 1) : rs};
    return out.ld >= std::max<int64_t>(cols, 1);
  }
  if (rs == 1 || rows == 1) {
    out = {CblasTrans, cols == 1 ? std::max<int64_t>(rows, 1) : cs};
    return out.ld >= std::max<int64_t>(rows, 1);
  }
  return false;
}

void blasGemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int64_t m, int64_t n,
              int64_t k, const float *a, int64_t lda, const float *b,
              int64_t ldb, float *c, int64_t ldc) {
  cblas_sgemm(CblasRowMajor, ta, tb, m, n, k, 1.0f, a, lda, b, ldb, 0.0f, c,
              ldc);
}
void blasGemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int64_t m, int64_t n,
              int64_t k, const double *a, int64_t lda, const double *b,
              int64_t ldb, double *c, int64_t ldc) {
  cblas_dgemm(CblasRowMajor, ta, tb, m, n, k, 1.0, a, lda, b, ldb, 0.0, c,
              ldc);
}

/// One batch through BLAS, or false when a layout does not fit it.
template <typename T>
bool tryBlas(const T *pa, const T *pb, T *pc, int64_t m, int64_t n, int64_t k,
             int64_t ars, int64_t acs, int64_t brs, int64_t bcs, int64_t crs,
             int64_t ccs) {
  BlasOperand opA, opB, opC;
  // cblas takes int sizes.
  for (int64_t v : {m, n, k, ars, acs, brs, bcs, crs, ccs})
    if (v > INT_MAX)
      return false;
  if (!blasOperand(m, k, ars, acs, opA) || !blasOperand(k, n, brs, bcs, opB) ||
      !blasOperand(m, n, crs, ccs, opC) || opC.trans != CblasNoTrans)
    return false;
  blasGemm(opA.trans, opB.trans, m, n, k, pa, opA.ld, pb, opB.ld, pc, opC.ld);
  return true;
}
#endif

template <typename T>
void gemm(KilnMemRef3<T> *a, KilnMemRef3<T> *b, KilnMemRef3<T> *c,
          int64_t transA, int64_t transB) {
  int64_t batch = c->sizes[0], m = c->sizes[1], n = c->sizes[2];
  int64_t k = transA ? a->sizes[1] : a->sizes[2];
  // Logical strides of op(A) [M,K] and op(B) [K,N].
  int64_t ars = transA ? a->strides[2] : a->strides[1];
  int64_t acs = transA ? a->strides[1] : a->strides[2];
  int64_t brs = transB ? b->strides[2] : b->strides[1];
  int64_t bcs = transB ? b->strides[1] : b->strides[2];
  for (int64_t i = 0; i < batch; ++i) {
    const T *pa =
        a->aligned + a->offset + (a->sizes[0] == 1 ? 0 : i * a->strides[0]);
    const T *pb =
        b->aligned + b->offset + (b->sizes[0] == 1 ? 0 : i * b->strides[0]);
    T *pc = c->aligned + c->offset + i * c->strides[0];
    if (k == 0) {
      for (int64_t r = 0; r < m; ++r)
        for (int64_t s = 0; s < n; ++s)
          pc[r * c->strides[1] + s * c->strides[2]] = T(0);
      continue;
    }
#ifdef KILN_GEMM_OPENBLAS
    if (tryBlas(pa, pb, pc, m, n, k, ars, acs, brs, bcs, c->strides[1],
                c->strides[2]))
      continue;
#endif
    withMatrix(pa, m, k, ars, acs, [&](const auto &ma) {
      withMatrix(pb, k, n, brs, bcs, [&](const auto &mb) {
        if (c->strides[2] == 1) {
          Eigen::Map<RowMat<T>, 0, Eigen::OuterStride<>> mc(
              pc, m, n, Eigen::OuterStride<>(m == 1 ? n : c->strides[1]));
          mc.noalias() = ma * mb;
        } else {
          Eigen::Map<RowMat<T>, 0, GeneralStride> mc(
              pc, m, n, GeneralStride(c->strides[1], c->strides[2]));
          mc.noalias() = ma * mb;
        }
      });
    });
  }
}

} // namespace

extern "C" {

void _mlir_ciface_kiln_rt_sgemm(KilnMemRef3<float> *a, KilnMemRef3<float> *b,
                                KilnMemRef3<float> *c, int64_t transA,
                                int64_t transB) {
  gemm(a, b, c, transA, transB);
}

void _mlir_ciface_kiln_rt_dgemm(KilnMemRef3<double> *a, KilnMemRef3<double> *b,
                                KilnMemRef3<double> *c, int64_t transA,
                                int64_t transB) {
  gemm(a, b, c, transA, transB);
}
}

//===----------------------------------------------------------------------===//
// memrefCopy: what finalize-memref-to-llvm calls for a memref.copy between
// non-contiguous memrefs (the same symbol libmlir_c_runner_utils provides),
// so JIT-compiled code needs no MLIR runner library.
//===----------------------------------------------------------------------===//

#include <cstring>

namespace {
struct UnrankedDesc {
  int64_t rank;
  void *descriptor;
};
/// The ranked descriptor's fields: two pointers, offset, sizes, strides.
struct RankedView {
  char *aligned;
  int64_t offset;
  const int64_t *sizes;
  const int64_t *strides;
};
RankedView view(const UnrankedDesc *d) {
  auto *p = static_cast<char *>(d->descriptor);
  char *aligned;
  std::memcpy(&aligned, p + sizeof(void *), sizeof(void *));
  auto *ints = reinterpret_cast<const int64_t *>(p + 2 * sizeof(void *));
  return {aligned, ints[0], ints + 1, ints + 1 + d->rank};
}
} // namespace

extern "C" void memrefCopy(int64_t elemSize, UnrankedDesc *src,
                           UnrankedDesc *dst) {
  int64_t rank = src->rank;
  RankedView s = view(src), d = view(dst);
  for (int64_t i = 0; i < rank; ++i)
    if (s.sizes[i] == 0)
      return;
  char *sp = s.aligned + s.offset * elemSize,
       *dp = d.aligned + d.offset * elemSize;
  if (rank == 0) {
    std::memcpy(dp, sp, elemSize);
    return;
  }
  // Odometer over all but the last dim; the last dim copies element-wise
  // (or as one block when both are unit-stride).
  std::vector<int64_t> idx(rank, 0);
  int64_t last = rank - 1, n = s.sizes[last];
  bool contiguous = s.strides[last] == 1 && d.strides[last] == 1;
  while (true) {
    int64_t so = 0, doff = 0;
    for (int64_t i = 0; i < last; ++i) {
      so += idx[i] * s.strides[i];
      doff += idx[i] * d.strides[i];
    }
    if (contiguous) {
      std::memmove(dp + doff * elemSize, sp + so * elemSize, n * elemSize);
    } else {
      for (int64_t j = 0; j < n; ++j)
        std::memmove(dp + (doff + j * d.strides[last]) * elemSize,
                     sp + (so + j * s.strides[last]) * elemSize, elemSize);
    }
    int64_t k = last - 1;
    while (k >= 0 && ++idx[k] == s.sizes[k])
      idx[k--] = 0;
    if (k < 0)
      break;
  }
}
