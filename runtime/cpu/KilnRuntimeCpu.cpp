//===- KilnRuntimeCpu.cpp - the GEMM the JIT calls ------------------------===//
//
// With KILN_GEMM_OPENBLAS (OpenBLAS found at configure time, see
// CMakeLists.txt) a batch whose operands have a unit stride in one dimension
// can be one cblas_?gemm call: BLAS takes exactly that layout (row-major
// with a leading dimension, or its transpose), so nothing is copied. Which
// of OpenBLAS and Eigen is faster depends on the machine, the shape and the
// kernels OpenBLAS runs (on a Zen 5 its detected SkylakeX kernels beat
// Eigen by 1.3x on seed 000's shape, its Haswell ones lose by 1.4x): each
// GEMM shape's first call times both and keeps the faster (`gemm`, below).
// Everything else, and
// every GEMM of an Eigen build, is one Eigen product of strided maps. A matrix whose inner
// stride is 1 (row-major rows, or column-major columns for a transposed
// operand) maps with OuterStride and hits Eigen's packed GEMM/GEMV kernels;
// anything else maps with a general Stride (correct, slower). Eigen picks
// GEMV itself when M or N is 1.
//
//===----------------------------------------------------------------------===//
#include "runtime/cpu/KilnRuntimeCpu.h"
#include "runtime/cpu/KilnThreads.h"

#include <Eigen/Core>

#ifdef KILN_GEMM_OPENBLAS
#include <cblas.h>
#endif

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
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

/// Whether BLAS takes these layouts; their BLAS view in `opA`, `opB`, `opC`.
bool blasLayout(int64_t m, int64_t n, int64_t k, int64_t ars, int64_t acs,
                int64_t brs, int64_t bcs, int64_t crs, int64_t ccs,
                BlasOperand &opA, BlasOperand &opB, BlasOperand &opC) {
  // cblas takes int sizes.
  for (int64_t v : {m, n, k, ars, acs, brs, bcs, crs, ccs})
    if (v > INT_MAX)
      return false;
  return blasOperand(m, k, ars, acs, opA) && blasOperand(k, n, brs, bcs, opB) &&
         blasOperand(m, n, crs, ccs, opC) && opC.trans == CblasNoTrans;
}

/// One batch through BLAS, or false when a layout does not fit it.
template <typename T>
bool tryBlas(const T *pa, const T *pb, T *pc, int64_t m, int64_t n, int64_t k,
             int64_t ars, int64_t acs, int64_t brs, int64_t bcs, int64_t crs,
             int64_t ccs) {
  BlasOperand opA, opB, opC;
  if (!blasLayout(m, n, k, ars, acs, brs, bcs, crs, ccs, opA, opB, opC))
    return false;
  // Kiln's pool runs the blocks in parallel (KilnThreads.cpp); OpenBLAS's
  // own threads would spin beside it.
  static const bool singleThreaded = (openblas_set_num_threads(1), true);
  (void)singleThreaded;
  blasGemm(opA.trans, opB.trans, m, n, k, pa, opA.ld, pb, opB.ld, pc, opC.ld);
  return true;
}
#endif

enum class Backend : int32_t { Measure = 0, Eigen = 1, Blas = 2 };

#if defined(KILN_GEMM_OPENBLAS) && defined(__x86_64__) && defined(__AVX2__) && defined(__FMA__)
/// Whether OpenBLAS runs kernels with AVX2 and FMA: the core families it
/// names (openblas_get_corename) whose kernels do. A runtime built for an
/// AVX2 host whose OpenBLAS does not know the CPU (Debian's 0.3.21 falls
/// back to its SSE3 "Prescott" kernels on an Emerald Rapids Xeon) never
/// wins with BLAS: Eigen's kernels, built for the host, use FMA. Measuring
/// both there only made each GEMM shape's first call slower (bench/
/// ecosystem_speed.py's attention: about 0.1 s of its first call).
bool blasHasHostKernels() {
  std::string core = openblas_get_corename();
  std::transform(core.begin(), core.end(), core.begin(), [](unsigned char c) {
    return char(std::tolower(c));
  });
  for (const char *family : {"haswell", "skylakex", "cooperlake", "sapphirerapids", "zen",
                             "excavator", "steamroller"})
    if (core.find(family) != std::string::npos)
      return true;
  return false;
}
#else
bool blasHasHostKernels() { return true; }
#endif

/// kiln_rt_force_gemm_backend's choice, else $KILN_GEMM_BACKEND's (eigen or
/// openblas), read once; else Eigen where OpenBLAS's kernels are older than
/// the host's (blasHasHostKernels); Measure otherwise.
std::atomic<int32_t> &forcedBackend() {
  static std::atomic<int32_t> forced = [] {
    const char *env = std::getenv("KILN_GEMM_BACKEND");
    if (env && !std::strcmp(env, "eigen"))
      return int32_t(Backend::Eigen);
    if (env && !std::strcmp(env, "openblas"))
      return int32_t(Backend::Blas);
    if (!blasHasHostKernels())
      return int32_t(Backend::Eigen);
    return int32_t(Backend::Measure);
  }();
  return forced;
}

/// One batch's sizes and the logical strides of op(A) [M,K] and op(B) [K,N].
struct Logical {
  int64_t m, n, k, ars, acs, brs, bcs;
};
template <typename T>
Logical logicalShape(const KilnMemRef3<T> *a, const KilnMemRef3<T> *b, const KilnMemRef3<T> *c,
                     int64_t transA, int64_t transB) {
  return {c->sizes[1],
          c->sizes[2],
          transA ? a->sizes[1] : a->sizes[2],
          transA ? a->strides[2] : a->strides[1],
          transA ? a->strides[1] : a->strides[2],
          transB ? b->strides[2] : b->strides[1],
          transB ? b->strides[1] : b->strides[2]};
}

/// One matrix product of a batch, or a block of its rows or columns:
/// C [m, n] = A [m, k] B [k, n], each with its row and column strides.
template <typename T>
struct Block {
  const T *a, *b;
  T *c;
  int64_t m, n, k, ars, acs, brs, bcs, crs, ccs;
};

/// Bytes of the host's vector registers (the runtime is built for the host).
#if defined(__AVX512F__)
constexpr int kVectorBytes = 64;
#elif defined(__AVX__)
constexpr int kVectorBytes = 32;
#else
constexpr int kVectorBytes = 16;
#endif
/// Rows of C one tile of smallGemm holds: 8 rows of two vectors are 16
/// accumulators (of AVX-512's 32 registers); 4 rows with 16 registers.
constexpr int kSmallGemmRows = kVectorBytes == 64 ? 8 : 4;
/// The most rows of C smallGemm takes: A's rows are read again for every
/// two vectors of columns, which pays while they stay in L1 (at 96 rows
/// and K = 128 Eigen's packed kernel was faster: 126 against 96 GFLOP/s).
constexpr int64_t kSmallGemmMaxRows = 64;

template <typename T>
using Vec [[gnu::vector_size(kVectorBytes)]] = T;

template <typename T>
Vec<T> loadVec(const T *p) {
  Vec<T> v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

/// Rows [0, R) of C and `V` vectors of its columns from column 0:
/// C[r, j] = sum over q of A[r, q] B[q, j], q in order, each product added
/// to its lane's sum (one rounding each, as the FMA the compiler emits).
template <typename T, int R, int V>
void smallGemmTile(const T *a, int64_t ars, const T *b, int64_t brs, T *c, int64_t crs,
                   int64_t k) {
  constexpr int W = kVectorBytes / sizeof(T);
  Vec<T> acc[R][V] = {};
  for (int64_t q = 0; q < k; ++q) {
    Vec<T> row[V];
    for (int v = 0; v < V; ++v)
      row[v] = loadVec(b + q * brs + v * W);
    for (int r = 0; r < R; ++r) {
      // x - 0 is x for every x (-0 and NaN included): a broadcast.
      Vec<T> x = a[r * ars + q] - Vec<T>{};
      for (int v = 0; v < V; ++v)
        acc[r][v] += x * row[v];
    }
  }
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < V; ++v)
      std::memcpy(c + r * crs + v * W, &acc[r][v], sizeof(Vec<T>));
}

/// Rows [i, i + R) of `p`, over every column: tiles of V vectors, then of
/// one, then single columns.
template <typename T, int R, int V>
void smallGemmRows(const Block<T> &p, int64_t i) {
  constexpr int W = kVectorBytes / sizeof(T);
  const T *a = p.a + i * p.ars;
  T *c = p.c + i * p.crs;
  int64_t j = 0;
  for (; j + V * W <= p.n; j += V * W)
    smallGemmTile<T, R, V>(a, p.ars, p.b + j, p.brs, c + j, p.crs, p.k);
  for (; j + W <= p.n; j += W)
    smallGemmTile<T, R, 1>(a, p.ars, p.b + j, p.brs, c + j, p.crs, p.k);
  for (int r = 0; r < R; ++r)
    for (int64_t s = j; s < p.n; ++s) {
      T sum = T(0);
      for (int64_t q = 0; q < p.k; ++q)
        sum += a[r * p.ars + q] * p.b[q * p.brs + s];
      c[r * p.crs + s] = sum;
    }
}

/// C = A B for few rows of row-major operands (A's rows, B's rows and C's
/// rows each contiguous), without packing: tiles of rows times vectors of
/// columns read B's rows as they lie and broadcast A's elements. Eigen
/// packs both operands and zeroes C first, which at an RNN step's few rows
/// cost more than the product (8 x 384 x 128 on an Emerald Rapids core: 144
/// GFLOP/s here, 71 by Eigen; 64 x 384 x 128: 155 against 131). Every tile
/// keeps at least 8 sums apart (a single row: 8 vectors of columns), so
/// that no FMA waits for the one before it. False when the block is not of
/// that kind.
template <typename T>
bool smallGemm(const Block<T> &p) {
  constexpr int W = kVectorBytes / sizeof(T);
  if (p.m > kSmallGemmMaxRows || p.n < W || (p.acs != 1 && p.k > 1) || p.bcs != 1 ||
      (p.ccs != 1 && p.n > 1))
    return false;
  // Full row tiles column panel by column panel, so that a panel of B
  // stays in L1 while every row tile reads it; then their last columns.
  int64_t rows = p.m / kSmallGemmRows * kSmallGemmRows, j = 0;
  for (; rows > 0 && j + 2 * W <= p.n; j += 2 * W)
    for (int64_t i = 0; i < rows; i += kSmallGemmRows)
      smallGemmTile<T, kSmallGemmRows, 2>(p.a + i * p.ars, p.ars, p.b + j, p.brs,
                                          p.c + i * p.crs + j, p.crs, p.k);
  Block<T> last = p;
  last.b += j;
  last.c += j;
  last.n -= j;
  for (int64_t i = 0; i < rows; i += kSmallGemmRows)
    smallGemmRows<T, kSmallGemmRows, 1>(last, i);
  int64_t i = rows;
  for (; i + 2 <= p.m; i += 2)
    smallGemmRows<T, 2, 4>(p, i);
  for (; i < p.m; ++i)
    smallGemmRows<T, 1, 8>(p, i);
  return true;
}

template <typename T>
void gemmBlock(Backend backend, const Block<T> &p) {
  if (p.k == 0) {
    for (int64_t r = 0; r < p.m; ++r)
      for (int64_t s = 0; s < p.n; ++s)
        p.c[r * p.crs + s * p.ccs] = T(0);
    return;
  }
#ifdef KILN_GEMM_OPENBLAS
  if (backend == Backend::Blas &&
      tryBlas(p.a, p.b, p.c, p.m, p.n, p.k, p.ars, p.acs, p.brs, p.bcs, p.crs, p.ccs))
    return;
#endif
  if (smallGemm(p))
    return;
  withMatrix(p.a, p.m, p.k, p.ars, p.acs, [&](const auto &ma) {
    withMatrix(p.b, p.k, p.n, p.brs, p.bcs, [&](const auto &mb) {
      if (p.ccs == 1) {
        Eigen::Map<RowMat<T>, 0, Eigen::OuterStride<>> mc(
            p.c, p.m, p.n, Eigen::OuterStride<>(p.m == 1 ? p.n : p.crs));
        mc.noalias() = ma * mb;
      } else {
        Eigen::Map<RowMat<T>, 0, GeneralStride> mc(p.c, p.m, p.n,
                                                   GeneralStride(p.crs, p.ccs));
        mc.noalias() = ma * mb;
      }
    });
  });
}

/// A product smaller than this many flops (2 m n k over the batch) runs on
/// the calling thread: waking a worker costs microseconds, a sleeping one
/// tens of them. Larger ones are cut into blocks of at least
/// kBlockFlops, about four per thread so that a worker that starts late
/// (a busy machine) leaves its share to the others. Each block packs its
/// share of the operands again and zeroes its part of C, so a block must be
/// large beside that: at 1 MFLOP an RNN step's 64x128x384 product (6.3
/// MFLOP) made six bands of 64 columns, each packing all of A, and the GRU
/// of bench/ecosystem_speed.py ran 1.2x slower than with two bands.
constexpr double kParallelFlops = double(1 << 22);
constexpr double kBlockFlops = double(1 << 22);
/// Rows or columns of a block: a multiple of this (the kernels' tiles).
constexpr int64_t kBlockStep = 16;
/// The most GEMMs of one group call (kiln_rt_sgemm_group2..4).
constexpr int kMaxGemmGroup = 4;

/// One GEMM of a call: its operands, flags and the backend that runs it.
template <typename T>
struct Job {
  KilnMemRef3<T> *a, *b, *c;
  int64_t transA, transB;
  Backend backend;

  double flops() const {
    auto [m, n, k, ars, acs, brs, bcs] = logicalShape(a, b, c, transA, transB);
    return 2.0 * double(m) * double(n) * double(k) * double(c->sizes[0]);
  }
};

/// A job cut into units of work for the pool: `bands` per matrix of its
/// batch, each `step` rows (or columns) of the longer of M and N.
template <typename T>
struct Split {
  const Job<T> *job;
  Logical shape;
  int64_t bands, step, extent;
  bool rows;
  int64_t units() const { return job->c->sizes[0] * bands; }
};

/// `job` in about `wanted` blocks: whole matrices when the batch has enough
/// of them, else bands of the longer of M and N (a band of rows repacks B,
/// one of columns A: the shorter side's operand is the one packed again).
template <typename T>
Split<T> split(const Job<T> &job, int64_t wanted) {
  auto [m, n, k, ars, acs, brs, bcs] = logicalShape(job.a, job.b, job.c, job.transA, job.transB);
  int64_t batch = job.c->sizes[0];
  int64_t perMatrix = batch >= wanted ? 1 : (wanted + batch - 1) / batch;
  bool rows = m > n;
  int64_t extent = rows ? m : n;
  int64_t step = std::max<int64_t>(
      kBlockStep, ((extent + perMatrix - 1) / perMatrix + kBlockStep - 1) / kBlockStep * kBlockStep);
  int64_t bands = perMatrix == 1 ? 1 : (extent + step - 1) / step;
  return {&job, {m, n, k, ars, acs, brs, bcs}, bands, step, extent, rows};
}

/// Unit `unit` of `s`: one matrix of the batch, or one band of it.
template <typename T>
void runUnit(const Split<T> &s, int64_t unit) {
  const Job<T> &job = *s.job;
  auto [m, n, k, ars, acs, brs, bcs] = s.shape;
  int64_t i = unit / s.bands;
  KilnMemRef3<T> *a = job.a, *b = job.b, *c = job.c;
  Block<T> p{a->aligned + a->offset + (a->sizes[0] == 1 ? 0 : i * a->strides[0]),
             b->aligned + b->offset + (b->sizes[0] == 1 ? 0 : i * b->strides[0]),
             c->aligned + c->offset + i * c->strides[0],
             m, n, k, ars, acs, brs, bcs, c->strides[1], c->strides[2]};
  if (s.bands > 1) {
    int64_t begin = (unit % s.bands) * s.step, size = std::min(s.step, s.extent - begin);
    if (s.rows) {
      p.a += begin * p.ars;
      p.c += begin * p.crs;
      p.m = size;
    } else {
      p.b += begin * p.bcs;
      p.c += begin * p.ccs;
      p.n = size;
    }
  }
  gemmBlock(job.backend, p);
}

/// Runs `jobs` (independent: no job reads or writes what another writes)
/// on the calling thread, or, when together they reach kParallelFlops, as
/// one parallel loop over the blocks of all of them. A single job is cut
/// into at least two blocks; in a group each job gets one block per
/// kBlockFlops (at least one), so that the two 6 MFLOP products of an RNN
/// step run one per thread, each packing its operands once.
template <typename T>
void runJobs(const Job<T> *jobs, int count) {
  double flops = 0;
  for (int j = 0; j < count; ++j)
    flops += jobs[j].flops();
  int threads = kiln::runtime::threadsForCaller();
  std::array<Split<T>, kMaxGemmGroup> splits;
  if (threads <= 1 || flops < kParallelFlops || count > int(splits.size())) {
    for (int j = 0; j < count; ++j) {
      Split<T> whole = split(jobs[j], 1);
      for (int64_t u = 0; u < whole.units(); ++u)
        runUnit(whole, u);
    }
    return;
  }
  int64_t units = 0;
  for (int j = 0; j < count; ++j) {
    double wanted = std::min<double>(4 * threads, jobs[j].flops() / kBlockFlops);
    splits[j] = split(jobs[j], std::max<int64_t>(count == 1 ? 2 : 1, int64_t(wanted)));
    units += splits[j].units();
  }
  kiln::runtime::parallelFor(units, threads, [&](int64_t unit) {
    int j = 0;
    while (unit >= splits[j].units())
      unit -= splits[j++].units();
    runUnit(splits[j], unit);
  });
}

/// The backend that runs `job`: the forced one, or the one kept for its
/// shape, or on the shape's first call both timed (twice each, the faster
/// run counting: the first pays for the pool's or a buffer's first use)
/// and the faster kept -- then the job has run (`ran`), its result the
/// kept backend's. OpenBLAS, the configured default, is kept unless Eigen
/// is at least 15 % faster, so that near ties choose alike from run to run
/// (the two sum in different orders, so their results differ within the
/// error model; a process always uses one per shape). Concurrent first
/// calls may both measure; either choice is right.
template <typename T>
Backend chooseBackend(Job<T> &job, bool &ran) {
  ran = false;
#ifdef KILN_GEMM_OPENBLAS
  auto forced = Backend(forcedBackend().load(std::memory_order_relaxed));
  if (forced != Backend::Measure)
    return forced;
  auto [m, n, k, ars, acs, brs, bcs] = logicalShape(job.a, job.b, job.c, job.transA, job.transB);
  KilnMemRef3<T> *c = job.c;
  BlasOperand opA, opB, opC;
  if (m == 0 || n == 0 || k == 0 ||
      !blasLayout(m, n, k, ars, acs, brs, bcs, c->strides[1], c->strides[2], opA, opB, opC))
    return Backend::Eigen;
  using Key = std::array<int64_t, 13>;
  Key key = {int64_t(sizeof(T)), c->sizes[0], m, n, k, ars, acs, brs, bcs,
             c->strides[1], c->strides[2], job.a->sizes[0] == 1, job.b->sizes[0] == 1};
  static std::mutex mutex;
  static std::map<Key, Backend> chosen;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = chosen.find(key);
    if (it != chosen.end())
      return it->second;
  }
  double best[3] = {0, 1e300, 1e300};
  for (Backend backend : {Backend::Eigen, Backend::Blas})
    for (int round = 0; round < 2; ++round) {
      job.backend = backend;
      auto start = std::chrono::steady_clock::now();
      runJobs(&job, 1);
      std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
      double &fastest = best[int(backend)];
      fastest = std::min(fastest, took.count());
    }
  Backend winner = best[int(Backend::Eigen)] < 0.85 * best[int(Backend::Blas)] ? Backend::Eigen
                                                                              : Backend::Blas;
  if (winner != Backend::Blas) { // C holds BLAS's product, which ran last
    job.backend = winner;
    runJobs(&job, 1);
  }
  ran = true;
  std::lock_guard<std::mutex> lock(mutex);
  chosen.emplace(key, winner);
  return winner;
#else
  (void)job;
  return Backend::Eigen;
#endif
}

/// C = op(A) op(B) for each of `count` independent jobs (at most
/// kMaxGemmGroup), each by the backend chosen for its shape
/// (chooseBackend); those a measurement has not run already run together
/// (runJobs).
template <typename T>
void gemmJobs(Job<T> *jobs, int count) {
  int pending = 0;
  for (int j = 0; j < count; ++j) {
    bool ran = false;
    jobs[j].backend = chooseBackend(jobs[j], ran);
    if (!ran)
      jobs[pending++] = jobs[j];
  }
  runJobs(jobs, pending);
}

} // namespace

extern "C" {

void kiln_rt_force_gemm_backend(int32_t backend) {
  forcedBackend().store(backend, std::memory_order_relaxed);
}

int32_t kiln_rt_gemm_backends() {
#ifdef KILN_GEMM_OPENBLAS
  return 2;
#else
  return 1;
#endif
}

void _mlir_ciface_kiln_rt_sgemm(KilnMemRef3<float> *a, KilnMemRef3<float> *b,
                                KilnMemRef3<float> *c, int64_t transA,
                                int64_t transB) {
  Job<float> job{a, b, c, transA, transB, Backend::Eigen};
  gemmJobs(&job, 1);
}

void _mlir_ciface_kiln_rt_dgemm(KilnMemRef3<double> *a, KilnMemRef3<double> *b,
                                KilnMemRef3<double> *c, int64_t transA,
                                int64_t transB) {
  Job<double> job{a, b, c, transA, transB, Backend::Eigen};
  gemmJobs(&job, 1);
}

// The groups: (A, B, C) of each GEMM, then (transA, transB) of each.
#define KILN_GEMM_OPERANDS(T, i) KilnMemRef3<T> *a##i, KilnMemRef3<T> *b##i, KilnMemRef3<T> *c##i
#define KILN_GEMM_FLAGS(i) int64_t ta##i, int64_t tb##i
#define KILN_GEMM_JOB(T, i) Job<T>{a##i, b##i, c##i, ta##i, tb##i, Backend::Eigen}
#define KILN_GEMM_GROUPS(NAME, T)                                                                 \
  void _mlir_ciface_##NAME##_group2(KILN_GEMM_OPERANDS(T, 0), KILN_GEMM_OPERANDS(T, 1),           \
                                    KILN_GEMM_FLAGS(0), KILN_GEMM_FLAGS(1)) {                     \
    Job<T> jobs[] = {KILN_GEMM_JOB(T, 0), KILN_GEMM_JOB(T, 1)};                                    \
    gemmJobs(jobs, 2);                                                                             \
  }                                                                                                \
  void _mlir_ciface_##NAME##_group3(KILN_GEMM_OPERANDS(T, 0), KILN_GEMM_OPERANDS(T, 1),           \
                                    KILN_GEMM_OPERANDS(T, 2), KILN_GEMM_FLAGS(0),                 \
                                    KILN_GEMM_FLAGS(1), KILN_GEMM_FLAGS(2)) {                     \
    Job<T> jobs[] = {KILN_GEMM_JOB(T, 0), KILN_GEMM_JOB(T, 1), KILN_GEMM_JOB(T, 2)};               \
    gemmJobs(jobs, 3);                                                                             \
  }                                                                                                \
  void _mlir_ciface_##NAME##_group4(KILN_GEMM_OPERANDS(T, 0), KILN_GEMM_OPERANDS(T, 1),           \
                                    KILN_GEMM_OPERANDS(T, 2), KILN_GEMM_OPERANDS(T, 3),           \
                                    KILN_GEMM_FLAGS(0), KILN_GEMM_FLAGS(1), KILN_GEMM_FLAGS(2),   \
                                    KILN_GEMM_FLAGS(3)) {                                         \
    Job<T> jobs[] = {KILN_GEMM_JOB(T, 0), KILN_GEMM_JOB(T, 1), KILN_GEMM_JOB(T, 2),                \
                     KILN_GEMM_JOB(T, 3)};                                                         \
    gemmJobs(jobs, 4);                                                                             \
  }
KILN_GEMM_GROUPS(kiln_rt_sgemm, float)
KILN_GEMM_GROUPS(kiln_rt_dgemm, double)
#undef KILN_GEMM_GROUPS
#undef KILN_GEMM_JOB
#undef KILN_GEMM_FLAGS
#undef KILN_GEMM_OPERANDS
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
