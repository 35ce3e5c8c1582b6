//===- ReductionLoweringTest.cpp - JIT vs hand values, reductions, dot ----===//
#include "tests/unit/lowering/LoweringTestUtils.h"

#include <limits>

using namespace kiln;
using namespace kiln::test;

namespace {

TEST(ReductionLowering, ReduceOps) {
  const char *src = R"(
func.func @main(%a: tensor<2x3x4xf32>) -> tensor<4xf32> {
  %s = lax.reduce_sum %a axes = [0, 1] : tensor<2x3x4xf32> -> tensor<4xf32>
  %m = lax.reduce_max %a axes = [1, 0] : tensor<2x3x4xf32> -> tensor<4xf32>
  %n = lax.reduce_min %a axes = [0, 1] : tensor<2x3x4xf32> -> tensor<4xf32>
  %p = lax.reduce_prod %a axes = [0, 1] : tensor<2x3x4xf32> -> tensor<4xf32>
  %0 = lax.add %s, %m : tensor<4xf32>
  %1 = lax.mul %0, %n : tensor<4xf32>
  %2 = lax.add %1, %p : tensor<4xf32>
  return %2 : tensor<4xf32>
})";
  auto exe = jit(src);
  ASSERT_TRUE(exe);
  auto a = randomFloats(24, 3);
  std::vector<float> want;
  for (int k = 0; k < 4; ++k) {
    float s = 0, m = -INFINITY, n = INFINITY, p = 1;
    for (int i = 0; i < 6; ++i) {
      float v = a[i * 4 + k];
      s += v;
      m = std::max(m, v);
      n = std::min(n, v);
      p *= v;
    }
    want.push_back((s + m) * n + p);
  }
  expectNear(run1<float>(*exe, a), want, 1e-5f);
}

TEST(ReductionLowering, ArgMaxArgMin) {
  const char *src = R"(
func.func @main(%a: tensor<3x4xf32>) -> tensor<3xi32> {
  %x = lax.argmax %a axes = [1] : tensor<3x4xf32> -> tensor<3xi32>
  %n = lax.argmin %a axes = [1] : tensor<3x4xf32> -> tensor<3xi32>
  %c = lax.constant dense<10> : tensor<3xi32>
  %t = lax.mul %x, %c : tensor<3xi32>
  %r = lax.add %t, %n : tensor<3xi32>
  return %r : tensor<3xi32>
})";
  auto exe = jit(src);
  ASSERT_TRUE(exe);
  // Ties keep the first index; NaN counts as the extreme (JAX).
  std::vector<float> a = {1, 5, 5, 0, -1, -1, -3, -3, 2, NAN, 7, NAN};
  std::vector<int32_t> want = {1 * 10 + 3, 0 * 10 + 2, 1 * 10 + 1};
  EXPECT_EQ(run1<int32_t>(*exe, a), want);
}

/// dot_general against a triple loop, with and without the runtime GEMM.
void checkDot(
    const std::string &dims, std::vector<int64_t> ls, std::vector<int64_t> rs,
    std::vector<int64_t> os,
    const std::function<float(const std::vector<float> &,
                              const std::vector<float> &, int64_t)> &ref) {
  auto ty = [](const std::vector<int64_t> &s) {
    std::string t = "tensor<";
    for (int64_t d : s)
      t += std::to_string(d) + "x";
    return t + "f32>";
  };
  auto count = [](const std::vector<int64_t> &s) {
    int64_t n = 1;
    for (int64_t d : s)
      n *= d;
    return n;
  };
  std::string src = "func.func @main(%a: " + ty(ls) + ", %b: " + ty(rs) +
                    ") -> " + ty(os) + " {\n  %r = lax.dot_general %a, %b " +
                    dims + " : (" + ty(ls) + ", " + ty(rs) + ") -> " + ty(os) +
                    "\n  return %r : " + ty(os) + "\n}\n";
  auto a = randomFloats(count(ls), 1), b = randomFloats(count(rs), 2);
  std::vector<float> want;
  for (int64_t i = 0; i < count(os); ++i)
    want.push_back(ref(a, b, i));
  for (bool runtime : {true, false}) {
    CompileOptions o;
    o.useRuntimeGemm = runtime;
    o.runtimeGemmMinMacs = 0; // the runtime even for these small shapes
    auto exe = jit(src, "main", o);
    ASSERT_TRUE(exe);
    SCOPED_TRACE(src + (runtime ? " (runtime GEMM)" : " (linalg)"));
    expectNear(run1<float>(*exe, a, b), want, 1e-4f);
  }
}

TEST(ReductionLowering, DotGeneralMatmulLayouts) {
  const int M = 5, K = 7, N = 6;
  // [M,K] x [K,N]
  checkDot("contracting = [1] x [0] batch = [] x []", {M, K}, {K, N}, {M, N},
           [&](auto &a, auto &b, int64_t o) {
             int64_t i = o / N, j = o % N;
             float s = 0;
             for (int k = 0; k < K; ++k)
               s += a[i * K + k] * b[k * N + j];
             return s;
           });
  // [K,M] x [N,K]: both operands transposed.
  checkDot("contracting = [0] x [1] batch = [] x []", {K, M}, {N, K}, {M, N},
           [&](auto &a, auto &b, int64_t o) {
             int64_t i = o / N, j = o % N;
             float s = 0;
             for (int k = 0; k < K; ++k)
               s += a[k * M + i] * b[j * K + k];
             return s;
           });
  // Matvec: [M,K] x [K].
  checkDot("contracting = [1] x [0] batch = [] x []", {M, K}, {K}, {M},
           [&](auto &a, auto &b, int64_t i) {
             float s = 0;
             for (int k = 0; k < K; ++k)
               s += a[i * K + k] * b[k];
             return s;
           });
}

TEST(ReductionLowering, DotGeneralBatchedAndSeed000) {
  const int B = 3, M = 4, K = 5, N = 6;
  // Batch dim in the middle of the rhs: needs a transpose for the GEMM.
  checkDot("contracting = [2] x [0] batch = [0] x [1]", {B, M, K}, {K, B, N},
           {B, M, N}, [&](auto &a, auto &b, int64_t o) {
             int64_t bb = o / (M * N), i = (o / N) % M, j = o % N;
             float s = 0;
             for (int k = 0; k < K; ++k)
               s += a[(bb * M + i) * K + k] * b[(k * B + bb) * N + j];
             return s;
           });
  // Seed 000 f2 in small: a[2,3,K] . w[N,K] -> [2,3,N].
  checkDot("contracting = [2] x [1] batch = [] x []", {2, 3, K}, {N, K},
           {2, 3, N}, [&](auto &a, auto &w, int64_t o) {
             int64_t r = o / N, j = o % N;
             float s = 0;
             for (int k = 0; k < K; ++k)
               s += a[r * K + k] * w[j * K + k];
             return s;
           });
  // Seed 000 f1 in small: w[N,K] . a[2,3,K] -> [N,2,3].
  checkDot("contracting = [1] x [2] batch = [] x []", {N, K}, {2, 3, K},
           {N, 2, 3}, [&](auto &w, auto &a, int64_t o) {
             int64_t j = o / 6, r = o % 6;
             float s = 0;
             for (int k = 0; k < K; ++k)
               s += a[r * K + k] * w[j * K + k];
             return s;
           });
}

TEST(ReductionLowering, DotGeneralVectorCases) {
  const int K = 9, N = 7;
  // Vector . matrix (M = 1) and vector . vector (scalar result).
  checkDot("contracting = [0] x [0] batch = [] x []", {K}, {K, N}, {N},
           [&](auto &a, auto &b, int64_t j) {
             float s = 0;
             for (int k = 0; k < K; ++k)
               s += a[k] * b[k * N + j];
             return s;
           });
  checkDot("contracting = [0] x [0] batch = [] x []", {K}, {K}, {},
           [&](auto &a, auto &b, int64_t) {
             float s = 0;
             for (int k = 0; k < K; ++k)
               s += a[k] * b[k];
             return s;
           });
  // Outer product (no contraction): always linalg.
  checkDot("contracting = [] x [] batch = [] x []", {K}, {N}, {K, N},
           [&](auto &a, auto &b, int64_t o) { return a[o / N] * b[o % N]; });
}

} // namespace
