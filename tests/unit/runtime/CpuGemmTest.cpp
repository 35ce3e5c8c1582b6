//===- CpuGemmTest.cpp - the CPU runtime's GEMM on every layout -----------===//
//
// _mlir_ciface_kiln_rt_{s,d}gemm against a plain triple loop, on the layouts
// the lowering hands it: row- and column-major operands with padded leading
// dimensions (the BLAS path of an OpenBLAS build), strides BLAS cannot take
// (the Eigen fallback), a broadcast batch, few rows (the unpacked kernel)
// and degenerate sizes; each
// through either backend (kiln_rt_force_gemm_backend) and as chosen by
// measuring both on a shape's first call.
//
//===----------------------------------------------------------------------===//
#include "runtime/cpu/KilnRuntimeCpu.h"

#include <gtest/gtest.h>

#include <cmath>
#include <dlfcn.h>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

namespace {

template <typename T>
using GemmFn = void (*)(KilnMemRef3<T> *, KilnMemRef3<T> *, KilnMemRef3<T> *,
                        int64_t, int64_t);

template <typename T> GemmFn<T> gemmEntry() {
  static void *lib = dlopen(KILN_RUNTIME_CPU_PATH, RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    return nullptr;
  return reinterpret_cast<GemmFn<T>>(
      dlsym(lib, sizeof(T) == 4 ? "_mlir_ciface_kiln_rt_sgemm"
                                : "_mlir_ciface_kiln_rt_dgemm"));
}

/// The runtime's kiln_rt_force_gemm_backend (0 measure, 1 Eigen, 2 OpenBLAS).
void forceBackend(int32_t backend) {
  static void *lib = dlopen(KILN_RUNTIME_CPU_PATH, RTLD_NOW | RTLD_LOCAL);
  ASSERT_TRUE(lib) << dlerror();
  auto force = reinterpret_cast<void (*)(int32_t)>(dlsym(lib, "kiln_rt_force_gemm_backend"));
  ASSERT_TRUE(force);
  force(backend);
}

/// A [d0, d1, d2] view with explicit strides into its own storage.
template <typename T> struct Strided {
  std::vector<T> storage;
  KilnMemRef3<T> desc;
  Strided(int64_t d0, int64_t d1, int64_t d2, int64_t s0, int64_t s1,
          int64_t s2, unsigned seed) {
    int64_t extent = 1 + (d0 - 1) * s0 + (d1 - 1) * s1 + (d2 - 1) * s2;
    storage.resize(std::max<int64_t>(extent, 1));
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> dist(-1, 1);
    for (T &v : storage)
      v = T(dist(rng));
    desc = {storage.data(), storage.data(), 0, {d0, d1, d2}, {s0, s1, s2}};
  }
  T &at(int64_t i, int64_t j, int64_t k) {
    return storage[i * desc.strides[0] + j * desc.strides[1] +
                   k * desc.strides[2]];
  }
};

struct Layout {
  const char *name;
  int64_t batch, m, n, k;
  bool transA, transB;
  bool rowMajorA, rowMajorB; // unit stride last (true) or first (false)
  int64_t padA, padB, padC;  // extra leading-dimension elements
  bool broadcastB;           // B has batch size 1
  bool generalStrideA;       // neither stride of A is 1
};

/// Layout `l`'s operands as the lowering passes them (C holding random
/// values, so that an element left unwritten shows).
template <typename T> struct Problem {
  Layout l;
  Strided<T> a, b, c;

  explicit Problem(const Layout &layout)
      : l(layout), a(make(l, true)), b(make(l, false)),
        c(l.batch, l.m, l.n, (l.n + l.padC) * l.m, l.n + l.padC, 1, 3) {}

  /// A ([B, M, K], or [B, K, M] when transA) or B ([B, K, N] or [B, N, K]).
  static Strided<T> make(const Layout &l, bool isA) {
    bool trans = isA ? l.transA : l.transB;
    int64_t d1 = isA ? (trans ? l.k : l.m) : (trans ? l.n : l.k);
    int64_t d2 = isA ? (trans ? l.m : l.k) : (trans ? l.k : l.n);
    bool rowMajor = isA ? l.rowMajorA : l.rowMajorB, general = isA && l.generalStrideA;
    int64_t pad = isA ? l.padA : l.padB;
    int64_t batch = !isA && l.broadcastB ? 1 : l.batch;
    if (general)
      return Strided<T>(batch, d1, d2, (2 * d2 + pad) * d1 * 2, 2 * d2 + pad, 2, 1);
    if (rowMajor)
      return Strided<T>(batch, d1, d2, (d2 + pad) * d1, d2 + pad, 1, isA ? 1 : 2);
    return Strided<T>(batch, d1, d2, (d1 + pad) * d2, 1, d1 + pad, isA ? 1 : 2);
  }

  /// C against a plain triple loop in double.
  void verify() {
    for (int64_t i = 0; i < l.batch; ++i)
      for (int64_t r = 0; r < l.m; ++r)
        for (int64_t s = 0; s < l.n; ++s) {
          double want = 0;
          for (int64_t q = 0; q < l.k; ++q) {
            T x = l.transA ? a.at(i, q, r) : a.at(i, r, q);
            int64_t ib = l.broadcastB ? 0 : i;
            T y = l.transB ? b.at(ib, s, q) : b.at(ib, q, s);
            want += double(x) * double(y);
          }
          double tol = (sizeof(T) == 4 ? 1e-5 : 1e-12) * (l.k + 1);
          ASSERT_NEAR(double(c.at(i, r, s)), want, tol)
              << l.name << " at [" << i << "," << r << "," << s << "]";
        }
  }
};

template <typename T> void checkLayout(const Layout &l) {
  GemmFn<T> gemm = gemmEntry<T>();
  ASSERT_TRUE(gemm) << dlerror();
  Problem<T> p(l);
  gemm(&p.a.desc, &p.b.desc, &p.c.desc, l.transA, l.transB);
  p.verify();
}

const Layout kLayouts[] = {
    {"row-major", 2, 17, 13, 29, false, false, true, true, 0, 0, 0, false, false},
    {"padded leading dims", 2, 17, 13, 29, false, false, true, true, 3, 5, 7, false, false},
    {"transposed operands", 3, 9, 11, 8, true, true, true, true, 1, 2, 0, false, false},
    {"column-major storage", 2, 10, 12, 7, false, false, false, false, 2, 0, 1, false, false},
    {"broadcast B (seed 000 f2)", 4, 6, 5, 21, false, true, true, true, 0, 0, 0, true, false},
    {"general strides (Eigen fallback)", 2, 7, 6, 5, false, false, true, true, 1, 0, 0, false, true},
    {"matvec (N = 1)", 2, 33, 1, 40, false, false, true, true, 0, 0, 0, false, false},
    {"row vector (M = 1)", 2, 1, 19, 40, false, true, true, true, 0, 0, 0, false, false},
    {"empty contraction (K = 0)", 1, 3, 4, 0, false, false, true, true, 0, 0, 0, false, false},
    // Few rows, row-major (the runtime's unpacked kernel, smallGemm): tiles
    // of rows and the rows left (13 = 8 + 2 + 2 + 1), column panels of two
    // vectors, one vector, then single columns (77); a broadcast B.
    {"few rows (unpacked kernel)", 2, 13, 77, 29, false, false, true, true, 3, 5, 7, false, false},
    {"few rows, broadcast B", 3, 8, 40, 16, false, false, true, true, 0, 0, 0, true, false},
    // Past the parallel threshold (2 m n k >= 2^22 flops, KilnThreads.cpp):
    // bands of rows, bands of columns (a last band shorter than the rest),
    // whole matrices of a batch, and a general stride.
    {"parallel row bands", 1, 301, 40, 200, false, false, true, true, 3, 0, 5, false, false},
    {"parallel column bands", 1, 40, 333, 200, true, true, true, true, 1, 2, 0, false, false},
    {"parallel batch", 9, 64, 64, 64, false, false, false, true, 0, 1, 0, true, false},
    {"parallel general strides", 2, 130, 100, 90, false, false, true, true, 1, 0, 0, false, true},
    {"parallel few rows (column bands of the unpacked kernel)", 1, 48, 700, 128, false, false, true, true, 1, 2, 3, false, false},
};

// Each backend forced, then measured (0) twice: the first call of each
// shape times both backends, the second uses the one kept.
template <typename T> void checkEveryBackend() {
  for (int32_t backend : {1, 2, 0, 0}) {
    SCOPED_TRACE("backend " + std::to_string(backend));
    forceBackend(backend);
    for (const Layout &l : kLayouts)
      checkLayout<T>(l);
  }
  forceBackend(0);
}

TEST(CpuGemm, FloatLayouts) { checkEveryBackend<float>(); }

/// The runtime's kiln_rt_set_thread_limit for the calling thread.
int32_t setThreadLimit(int32_t threads) {
  static void *lib = dlopen(KILN_RUNTIME_CPU_PATH, RTLD_NOW | RTLD_LOCAL);
  auto set = reinterpret_cast<int32_t (*)(int32_t)>(dlsym(lib, "kiln_rt_set_thread_limit"));
  return set ? set(threads) : -1;
}

// One thread (no pool), and more threads than this machine may have: the
// same products, cut into other blocks.
TEST(CpuGemm, ThreadLimits) {
  for (int32_t threads : {1, 2, 3, 8}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    ASSERT_GE(setThreadLimit(threads), 0);
    for (const Layout &l : kLayouts) {
      checkLayout<float>(l);
      checkLayout<double>(l);
    }
  }
  setThreadLimit(0);
}

// Several callers share the pool at once (Kiln's calls are thread-safe).
TEST(CpuGemm, ConcurrentCallers) {
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t)
    callers.emplace_back([t] {
      setThreadLimit(t % 2 ? 3 : 0);
      for (int round = 0; round < 3; ++round)
        for (const Layout &l : kLayouts)
          if (l.m * l.n * l.k * l.batch >= (1 << 21))
            checkLayout<float>(l);
    });
  for (std::thread &t : callers)
    t.join();
}

TEST(CpuGemm, DoubleLayouts) { checkEveryBackend<double>(); }

/// _mlir_ciface_kiln_rt_{s,d}gemm_group<n> (kiln-group-runtime-gemms).
template <typename T> void *groupEntry(int n) {
  static void *lib = dlopen(KILN_RUNTIME_CPU_PATH, RTLD_NOW | RTLD_LOCAL);
  std::string name = std::string("_mlir_ciface_kiln_rt_") + (sizeof(T) == 4 ? "s" : "d") +
                     "gemm_group" + std::to_string(n);
  return lib ? dlsym(lib, name.c_str()) : nullptr;
}

/// Layouts `first`.. `first + n - 1` of kLayouts as one group call, each
/// product checked: small and parallel shapes together, so that a group
/// runs on the calling thread or as one loop over blocks of all of them.
template <typename T> void checkGroup(size_t first, int n) {
  using M = KilnMemRef3<T> *;
  std::vector<std::unique_ptr<Problem<T>>> p;
  for (int j = 0; j < n; ++j)
    p.push_back(std::make_unique<Problem<T>>(kLayouts[(first + j) % std::size(kLayouts)]));
  auto op = [&](int j) { return std::tuple<M, M, M>(&p[j]->a.desc, &p[j]->b.desc, &p[j]->c.desc); };
  auto flags = [&](int j) { return std::tuple<int64_t, int64_t>(p[j]->l.transA, p[j]->l.transB); };
  void *entry = groupEntry<T>(n);
  ASSERT_TRUE(entry) << n;
  if (n == 2)
    std::apply(reinterpret_cast<void (*)(M, M, M, M, M, M, int64_t, int64_t, int64_t, int64_t)>(entry),
               std::tuple_cat(op(0), op(1), flags(0), flags(1)));
  else if (n == 3)
    std::apply(reinterpret_cast<void (*)(M, M, M, M, M, M, M, M, M, int64_t, int64_t, int64_t,
                                         int64_t, int64_t, int64_t)>(entry),
               std::tuple_cat(op(0), op(1), op(2), flags(0), flags(1), flags(2)));
  else
    std::apply(reinterpret_cast<void (*)(M, M, M, M, M, M, M, M, M, M, M, M, int64_t, int64_t,
                                         int64_t, int64_t, int64_t, int64_t, int64_t, int64_t)>(
                   entry),
               std::tuple_cat(op(0), op(1), op(2), op(3), flags(0), flags(1), flags(2), flags(3)));
  for (auto &problem : p)
    problem->verify();
}

// Groups of two to four products of every run of layouts, at the default
// thread count, on one thread and on three; each backend forced and
// measured.
TEST(CpuGemm, Groups) {
  for (int32_t threads : {0, 1, 3})
    for (int32_t backend : {1, 2, 0}) {
      SCOPED_TRACE("threads " + std::to_string(threads) + ", backend " + std::to_string(backend));
      ASSERT_GE(setThreadLimit(threads), 0);
      forceBackend(backend);
      for (int n = 2; n <= 4; ++n)
        for (size_t first = 0; first < std::size(kLayouts); ++first) {
          SCOPED_TRACE("group of " + std::to_string(n) + " from " + kLayouts[first].name);
          checkGroup<float>(first, n);
          checkGroup<double>(first, n);
        }
    }
  forceBackend(0);
  setThreadLimit(0);
}

} // namespace
