//===- GpuRuntimeTest.cpp - KilnRuntimeGpu, loaded as the JIT loads it ----===//
//
// Without a GPU (the usual case here and in CI) the runtime must load, say
// why it cannot run, and fail every entry softly. With one, its cuBLAS GEMM
// must match a plain loop on every transpose/broadcast combination.
//
//===----------------------------------------------------------------------===//
#include "runtime/cpu/KilnRuntimeCpu.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cmath>
#include <string>
#include <vector>

namespace {

struct GpuRuntime {
  void *lib = nullptr;
  const char *(*status)() = nullptr;
  const char *(*takeError)() = nullptr;
  void *(*streamCreate)() = nullptr;
  void (*streamSynchronize)(void *) = nullptr;
  void *(*memAlloc)(uint64_t, void *, bool) = nullptr;
  void (*memFree)(void *, void *) = nullptr;
  void (*memcpy)(void *, void *, size_t, void *) = nullptr;
  void (*sgemm)(KilnMemRef3<float> *, KilnMemRef3<float> *, KilnMemRef3<float> *, int64_t,
                int64_t) = nullptr;
};

/// The runtime library, or null when it was not built (no CUDA headers).
const GpuRuntime *runtime() {
#ifdef KILN_RUNTIME_GPU_PATH
  static GpuRuntime rt = [] {
    GpuRuntime r;
    r.lib = dlopen(KILN_RUNTIME_GPU_PATH, RTLD_NOW | RTLD_LOCAL);
    if (!r.lib)
      return r;
    auto get = [&](auto &fn, const char *name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(r.lib, name));
    };
    get(r.status, "kiln_gpu_status");
    get(r.takeError, "kiln_gpu_take_error");
    get(r.streamCreate, "mgpuStreamCreate");
    get(r.streamSynchronize, "mgpuStreamSynchronize");
    get(r.memAlloc, "mgpuMemAlloc");
    get(r.memFree, "mgpuMemFree");
    get(r.memcpy, "mgpuMemcpy");
    get(r.sgemm, "_mlir_ciface_kiln_rt_sgemm");
    return r;
  }();
  return &rt;
#else
  return nullptr;
#endif
}

TEST(GpuRuntime, LoadsAndExportsTheMgpuAbi) {
  const GpuRuntime *rt = runtime();
  if (!rt)
    GTEST_SKIP() << "KilnRuntimeGpu was not built (no CUDA headers)";
  ASSERT_TRUE(rt->lib) << dlerror();
  EXPECT_TRUE(rt->status && rt->takeError && rt->streamCreate && rt->memAlloc && rt->memFree &&
              rt->memcpy && rt->sgemm);
}

TEST(GpuRuntime, WithoutAGpuEveryEntryFailsSoftly) {
  const GpuRuntime *rt = runtime();
  if (!rt || !rt->lib)
    GTEST_SKIP() << "KilnRuntimeGpu was not built";
  const char *why = rt->status();
  if (!why)
    GTEST_SKIP() << "a GPU is present: nothing to check here";
  EXPECT_GT(std::string(why).size(), 5u);
  rt->takeError(); // clear
  EXPECT_EQ(rt->streamCreate(), nullptr);
  const char *error = rt->takeError();
  ASSERT_TRUE(error);
  EXPECT_EQ(std::string(error), std::string("mgpuStreamCreate: ") + why);
  EXPECT_EQ(rt->memAlloc(16, nullptr, false), nullptr);
  EXPECT_TRUE(rt->takeError());
  EXPECT_EQ(rt->takeError(), nullptr); // taken
}

/// C[b] = op(A[b]) op(B[b]) computed by a loop, row-major, batch-broadcast.
std::vector<float> referenceGemm(const std::vector<float> &a, const std::vector<float> &b,
                                 int64_t batchA, int64_t batchB, int64_t batch, int64_t m,
                                 int64_t n, int64_t k, bool transA, bool transB) {
  std::vector<float> c(batch * m * n);
  for (int64_t q = 0; q < batch; ++q)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (int64_t l = 0; l < k; ++l) {
          const float *ab = a.data() + (batchA == 1 ? 0 : q) * m * k;
          const float *bb = b.data() + (batchB == 1 ? 0 : q) * k * n;
          s += double(transA ? ab[l * m + i] : ab[i * k + l]) *
               double(transB ? bb[j * k + l] : bb[l * n + j]);
        }
        c[(q * m + i) * n + j] = float(s);
      }
  return c;
}

TEST(GpuRuntime, CublasGemmMatchesALoop) {
  const GpuRuntime *rt = runtime();
  if (!rt || !rt->lib)
    GTEST_SKIP() << "KilnRuntimeGpu was not built";
  if (const char *why = rt->status())
    GTEST_SKIP() << "no GPU: " << why;
  const int64_t m = 5, n = 7, k = 3, batch = 4;
  for (int trans = 0; trans < 4; ++trans)
    for (int64_t batchA : {int64_t(1), batch}) {
      bool transA = trans & 1, transB = trans & 2;
      std::vector<float> a(batchA * m * k), b(batch * k * n);
      for (size_t i = 0; i < a.size(); ++i)
        a[i] = std::sin(float(i));
      for (size_t i = 0; i < b.size(); ++i)
        b[i] = std::cos(float(i));
      auto want = referenceGemm(a, b, batchA, batch, batch, m, n, k, transA, transB);
      void *stream = rt->streamCreate();
      auto *da = static_cast<float *>(rt->memAlloc(a.size() * 4, stream, false));
      auto *db = static_cast<float *>(rt->memAlloc(b.size() * 4, stream, false));
      auto *dc = static_cast<float *>(rt->memAlloc(want.size() * 4, stream, false));
      rt->memcpy(da, a.data(), a.size() * 4, stream);
      rt->memcpy(db, b.data(), b.size() * 4, stream);
      rt->streamSynchronize(stream);
      int64_t ra = transA ? k : m, ca = transA ? m : k, rb = transB ? n : k, cb = transB ? k : n;
      KilnMemRef3<float> ma{da, da, 0, {batchA, ra, ca}, {ra * ca, ca, 1}};
      KilnMemRef3<float> mb{db, db, 0, {batch, rb, cb}, {rb * cb, cb, 1}};
      KilnMemRef3<float> mc{dc, dc, 0, {batch, m, n}, {m * n, n, 1}};
      rt->sgemm(&ma, &mb, &mc, transA, transB);
      std::vector<float> got(want.size());
      rt->memcpy(got.data(), dc, got.size() * 4, stream);
      rt->streamSynchronize(stream);
      const char *error = rt->takeError();
      EXPECT_EQ(error, nullptr) << error;
      for (size_t i = 0; i < got.size(); ++i)
        EXPECT_NEAR(got[i], want[i], 1e-4) << "trans " << trans << " batchA " << batchA;
      rt->memFree(da, stream);
      rt->memFree(db, stream);
      rt->memFree(dc, stream);
    }
}

} // namespace
