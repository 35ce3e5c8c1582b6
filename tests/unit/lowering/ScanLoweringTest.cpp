//===- ScanLoweringTest.cpp - JIT vs hand values, lax.scan variants -------===//
#include "tests/unit/lowering/LoweringTestUtils.h"

using namespace kiln;
using namespace kiln::test;

namespace {

std::vector<float> iota(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = static_cast<float>(i);
  return v;
}

/// Cumulative sum over axis 0 of xs[5,3] with a const scale: carry and ys.
TEST(ScanLowering, CumsumWithConst) {
  const char *src = R"(
func.func @main(%k: tensor<3xf32>, %c0: tensor<3xf32>, %xs: tensor<5x3xf32>) -> tensor<5x3xf32> {
  %c, %ys = lax.scan length = 5 consts(%k) carry(%c0) xs(%xs)
      : (tensor<3xf32>, tensor<3xf32>, tensor<5x3xf32>) -> (tensor<3xf32>, tensor<5x3xf32>) {
  ^bb0(%kk: tensor<3xf32>, %acc: tensor<3xf32>, %x: tensor<3xf32>):
    %m = lax.mul %x, %kk : tensor<3xf32>
    %n = lax.add %acc, %m : tensor<3xf32>
    lax.yield %n, %n : tensor<3xf32>, tensor<3xf32>
  }
  return %ys : tensor<5x3xf32>
})";
  auto exe = jit(src);
  ASSERT_TRUE(exe);
  std::vector<float> k = {1, 2, 3}, c0 = {100, 0, -1}, xs = iota(15);
  std::vector<float> want, acc = c0;
  for (int t = 0; t < 5; ++t)
    for (int j = 0; j < 3; ++j) {
      acc[j] += xs[t * 3 + j] * k[j];
      want.push_back(acc[j]);
    }
  expectNear(run1<float>(*exe, k, c0, xs), want);
}

/// Reverse scan over axis 1 of xs[3,4], ys stacked along axis 1, two carries.
TEST(ScanLowering, ReverseAxis1TwoCarries) {
  const char *src = R"(
func.func @main(%a0: tensor<3xf32>, %b0: tensor<3xf32>, %xs: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %a, %b, %ys = lax.scan length = 4 carry(%a0, %b0) xs(%xs)
      {reverse = true, xs_axes = array<i64: 1>, ys_axes = array<i64: 1>}
      : (tensor<3xf32>, tensor<3xf32>, tensor<3x4xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3x4xf32>) {
  ^bb0(%p: tensor<3xf32>, %q: tensor<3xf32>, %x: tensor<3xf32>):
    %s = lax.add %p, %x : tensor<3xf32>
    %m = lax.mul %q, %x : tensor<3xf32>
    %y = lax.sub %s, %m : tensor<3xf32>
    lax.yield %s, %y, %y : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  }
  %r = lax.add %ys, %ys : tensor<3x4xf32>
  return %r : tensor<3x4xf32>
})";
  auto exe = jit(src);
  ASSERT_TRUE(exe);
  std::vector<float> a0 = {1, 2, 3}, b0 = {0.5f, -1, 2}, xs = iota(12);
  std::vector<float> want(12), a = a0, b = b0;
  for (int t = 3; t >= 0; --t)
    for (int r = 0; r < 3; ++r) {
      float x = xs[r * 4 + t];
      float s = a[r] + x, y = s - b[r] * x;
      a[r] = s;
      b[r] = y;
      want[r * 4 + t] = 2 * y;
    }
  expectNear(run1<float>(*exe, a0, b0, xs), want);
}

/// The final carry of a scan whose xs has axis 2 and several xs/ys.
TEST(ScanLowering, FinalCarryAxis2) {
  const char *src = R"(
func.func @main(%c0: tensor<2x2xf32>, %xs: tensor<2x2x3xf32>, %ws: tensor<3x2x2xf32>) -> tensor<2x2xf32> {
  %c, %ys = lax.scan length = 3 carry(%c0) xs(%xs, %ws)
      {xs_axes = array<i64: 2, 0>, ys_axes = array<i64: 0>}
      : (tensor<2x2xf32>, tensor<2x2x3xf32>, tensor<3x2x2xf32>) -> (tensor<2x2xf32>, tensor<3x2x2xf32>) {
  ^bb0(%acc: tensor<2x2xf32>, %x: tensor<2x2xf32>, %w: tensor<2x2xf32>):
    %m = lax.mul %x, %w : tensor<2x2xf32>
    %n = lax.add %acc, %m : tensor<2x2xf32>
    lax.yield %n, %m : tensor<2x2xf32>, tensor<2x2xf32>
  }
  return %c : tensor<2x2xf32>
})";
  auto exe = jit(src);
  ASSERT_TRUE(exe);
  std::vector<float> c0 = {1, 1, 1, 1}, xs = iota(12), ws = randomFloats(12, 9);
  std::vector<float> want = c0;
  for (int t = 0; t < 3; ++t)
    for (int e = 0; e < 4; ++e)
      want[e] += xs[e * 3 + t] * ws[t * 4 + e];
  expectNear(run1<float>(*exe, c0, xs, ws), want);
}

/// A scan body with a matmul (runtime GEMM inside the loop) and tanh: an RNN.
TEST(ScanLowering, RnnWithDotGeneral) {
  const char *src = R"(
func.func @main(%w: tensor<8x8xf32>, %h0: tensor<8xf32>, %xs: tensor<6x8xf32>) -> tensor<8xf32> {
  %h, %ys = lax.scan length = 6 consts(%w) carry(%h0) xs(%xs)
      : (tensor<8x8xf32>, tensor<8xf32>, tensor<6x8xf32>) -> (tensor<8xf32>, tensor<6x8xf32>) {
  ^bb0(%ww: tensor<8x8xf32>, %hh: tensor<8xf32>, %x: tensor<8xf32>):
    %d = lax.dot_general %ww, %hh contracting = [1] x [0] batch = [] x [] : (tensor<8x8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %s = lax.add %d, %x : tensor<8xf32>
    %t = lax.tanh %s : tensor<8xf32>
    lax.yield %t, %t : tensor<8xf32>, tensor<8xf32>
  }
  return %h : tensor<8xf32>
})";
  auto w = randomFloats(64, 4), h0 = randomFloats(8, 5),
       xs = randomFloats(48, 6);
  std::vector<float> h = h0;
  for (int t = 0; t < 6; ++t) {
    std::vector<float> n(8);
    for (int i = 0; i < 8; ++i) {
      float s = xs[t * 8 + i];
      for (int k = 0; k < 8; ++k)
        s += w[i * 8 + k] * h[k];
      n[i] = std::tanh(s);
    }
    h = n;
  }
  for (bool runtime : {true, false}) {
    CompileOptions o;
    o.useRuntimeGemm = runtime;
    o.runtimeGemmMinMacs = 0; // the runtime even for these small shapes
    auto exe = jit(src, "main", o);
    ASSERT_TRUE(exe);
    expectNear(run1<float>(*exe, w, h0, xs), h, 1e-5f);
  }
}

/// Seed 003's TDMA (scaled to 8 systems of size 5): two scans, four xs, two
/// carries, rev and transposes, vs the textbook algorithm.
TEST(ScanLowering, Seed003Tdma) {
  const char *src = R"(
func.func @tdma(%a: tensor<8x5xf32>, %b: tensor<8x5xf32>,
                %c: tensor<8x5xf32>, %d: tensor<8x5xf32>) -> tensor<8x5xf32> {
  %at = lax.transpose %a permutation = [1, 0] : tensor<8x5xf32> -> tensor<5x8xf32>
  %bt = lax.transpose %b permutation = [1, 0] : tensor<8x5xf32> -> tensor<5x8xf32>
  %ct = lax.transpose %c permutation = [1, 0] : tensor<8x5xf32> -> tensor<5x8xf32>
  %dt = lax.transpose %d permutation = [1, 0] : tensor<8x5xf32> -> tensor<5x8xf32>
  %zero = lax.constant dense<0.0> : tensor<8xf32>
  %lastcp, %lastdp, %cp, %dp = lax.scan length = 5 carry(%zero, %zero) xs(%at, %bt, %ct, %dt)
      : (tensor<8xf32>, tensor<8xf32>, tensor<5x8xf32>, tensor<5x8xf32>,
         tensor<5x8xf32>, tensor<5x8xf32>)
        -> (tensor<8xf32>, tensor<8xf32>, tensor<5x8xf32>, tensor<5x8xf32>) {
  ^bb0(%pcp: tensor<8xf32>, %pdp: tensor<8xf32>, %ai: tensor<8xf32>,
       %bi: tensor<8xf32>, %ci: tensor<8xf32>, %di: tensor<8xf32>):
    %one = lax.constant dense<1.0> : tensor<8xf32>
    %acp = lax.mul %ai, %pcp : tensor<8xf32>
    %den = lax.sub %bi, %acp : tensor<8xf32>
    %inv = lax.div %one, %den : tensor<8xf32>
    %cpi = lax.mul %ci, %inv : tensor<8xf32>
    %adp = lax.mul %ai, %pdp : tensor<8xf32>
    %num = lax.sub %di, %adp : tensor<8xf32>
    %dpi = lax.mul %num, %inv : tensor<8xf32>
    lax.yield %cpi, %dpi, %cpi, %dpi : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
  }
  %cpr = lax.rev %cp dims = [0] : tensor<5x8xf32>
  %dpr = lax.rev %dp dims = [0] : tensor<5x8xf32>
  %lastx, %sol = lax.scan length = 5 carry(%zero) xs(%cpr, %dpr)
      : (tensor<8xf32>, tensor<5x8xf32>, tensor<5x8xf32>)
        -> (tensor<8xf32>, tensor<5x8xf32>) {
  ^bb0(%px: tensor<8xf32>, %cpi: tensor<8xf32>, %dpi: tensor<8xf32>):
    %t = lax.mul %cpi, %px : tensor<8xf32>
    %x = lax.sub %dpi, %t : tensor<8xf32>
    lax.yield %x, %x : tensor<8xf32>, tensor<8xf32>
  }
  %solr = lax.rev %sol dims = [0] : tensor<5x8xf32>
  %out = lax.transpose %solr permutation = [1, 0] : tensor<5x8xf32> -> tensor<8x5xf32>
  return %out : tensor<8x5xf32>
}
)";
  auto exe = jit(src, "tdma");
  ASSERT_TRUE(exe);
  const int S = 8, N = 5;
  auto a = randomFloats(S * N, 11), c = randomFloats(S * N, 12),
       d = randomFloats(S * N, 13);
  std::vector<float> b(S * N);
  for (int i = 0; i < S * N; ++i)
    b[i] = 4.0f + a[i]; // diagonally dominant
  std::vector<float> want(S * N);
  for (int s = 0; s < S; ++s) {
    std::vector<float> cp(N), dp(N);
    float pcp = 0, pdp = 0;
    for (int i = 0; i < N; ++i) {
      int k = s * N + i;
      float inv = 1.0f / (b[k] - a[k] * pcp);
      cp[i] = c[k] * inv;
      dp[i] = (d[k] - a[k] * pdp) * inv;
      pcp = cp[i];
      pdp = dp[i];
    }
    float x = 0;
    for (int i = N - 1; i >= 0; --i) {
      x = dp[i] - cp[i] * x;
      want[s * N + i] = x;
    }
  }
  expectNear(run1<float>(*exe, a, b, c, d), want, 1e-4f);
}

/// A scan inside a scan body, and a scan of length 0.
TEST(ScanLowering, NestedAndEmpty) {
  const char *src = R"(
func.func @main(%c0: tensor<f32>, %xs: tensor<3x4xf32>) -> tensor<f32> {
  %c, %ys = lax.scan length = 3 carry(%c0) xs(%xs)
      : (tensor<f32>, tensor<3x4xf32>) -> (tensor<f32>, tensor<3xf32>) {
  ^bb0(%acc: tensor<f32>, %row: tensor<4xf32>):
    %inner = lax.scan length = 4 carry(%acc) xs(%row)
        : (tensor<f32>, tensor<4xf32>) -> tensor<f32> {
    ^bb0(%a: tensor<f32>, %x: tensor<f32>):
      %m = lax.mul %a, %x : tensor<f32>
      %s = lax.add %m, %x : tensor<f32>
      lax.yield %s : tensor<f32>
    }
    lax.yield %inner, %inner : tensor<f32>, tensor<f32>
  }
  %e, %eys = lax.scan length = 0 carry(%c) xs()
      : (tensor<f32>) -> (tensor<f32>, tensor<0xf32>) {
  ^bb0(%a: tensor<f32>):
    %n = lax.neg %a : tensor<f32>
    lax.yield %n, %n : tensor<f32>, tensor<f32>
  }
  return %e : tensor<f32>
})";
  auto exe = jit(src);
  ASSERT_TRUE(exe);
  std::vector<float> c0 = {0.5f}, xs = randomFloats(12, 21);
  float acc = c0[0];
  for (int r = 0; r < 3; ++r)
    for (int k = 0; k < 4; ++k)
      acc = acc * xs[r * 4 + k] + xs[r * 4 + k];
  expectNear(run1<float>(*exe, c0, xs), {acc}, 1e-5f);
}

} // namespace
