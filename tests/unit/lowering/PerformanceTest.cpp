//===- PerformanceTest.cpp - timing, not correctness gates ----------------===//
//
// DISABLED_ by default (timings are not tests); run with
//   build-cpu/bin/PerformanceTest --gtest_also_run_disabled_tests
// Prints seed 000 f2 GF/s (runtime GEMM and pure linalg) and the per-call
// latency of the seed 004 MLP (4-64-64-2) through Executable::callRaw.
//
//===----------------------------------------------------------------------===//
#include "tests/unit/lowering/LoweringTestUtils.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

using namespace kiln;
using namespace kiln::test;
using Clock = std::chrono::steady_clock;

namespace {

// Copies of examples/seeds/seed000_f2.mlir and seed004_mlp_eqx.mlir.
const char *kSeed000F2 =
    R"(// Seed 000, f2: the same batched matvec as f1 written as
// jnp.einsum('a b, ... b -> ... a', w, a): operands swapped, no transpose.
func.func @f2(%w: tensor<600x821xf32>, %a: tensor<32x100x821xf32>) -> tensor<32x100x600xf32> {
  %f = lax.dot_general %a, %w contracting = [2] x [1] batch = [] x []
      : (tensor<32x100x821xf32>, tensor<600x821xf32>) -> tensor<32x100x600xf32>
  return %f : tensor<32x100x600xf32>
}
)";
const char *kSeed004Mlp =
    R"(// Seed 004: Equinox's MLP 4-64-64-2 with relu, batch 1. Weights are stored
// [out, in] so each layer is dot_general(W, x) contracting [1] x [0]. relu is
// a private function called twice, as pjit makes it.
func.func private @relu(%a: tensor<64xf32>) -> tensor<64xf32> {
  %zero = lax.constant dense<0.0> : tensor<64xf32>
  %b = lax.max %a, %zero : tensor<64xf32>
  return %b : tensor<64xf32>
}

func.func @mlp(%x: tensor<4xf32>, %w1: tensor<64x4xf32>, %b1: tensor<64xf32>,
               %w2: tensor<64x64xf32>, %b2: tensor<64xf32>,
               %w3: tensor<2x64xf32>, %b3: tensor<2xf32>) -> tensor<2xf32> {
  %l = lax.dot_general %w1, %x contracting = [1] x [0] batch = [] x []
      : (tensor<64x4xf32>, tensor<4xf32>) -> tensor<64xf32>
  %m = lax.add %l, %b1 : tensor<64xf32>
  %n = func.call @relu(%m) : (tensor<64xf32>) -> tensor<64xf32>
  %q = lax.dot_general %w2, %n contracting = [1] x [0] batch = [] x []
      : (tensor<64x64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %r = lax.add %q, %b2 : tensor<64xf32>
  %s = func.call @relu(%r) : (tensor<64xf32>) -> tensor<64xf32>
  %v = lax.dot_general %w3, %s contracting = [1] x [0] batch = [] x []
      : (tensor<2x64xf32>, tensor<64xf32>) -> tensor<2xf32>
  %w = lax.add %v, %b3 : tensor<2xf32>
  return %w : tensor<2xf32>
}
)";

/// Min and median seconds of `reps` timed runs of `f` (after `warmup`).
template <typename F>
std::pair<double, double> timeIt(F &&f, int warmup, int reps) {
  for (int i = 0; i < warmup; ++i)
    f();
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    auto s = Clock::now();
    f();
    t.push_back(std::chrono::duration<double>(Clock::now() - s).count());
  }
  std::sort(t.begin(), t.end());
  return {t.front(), t[t.size() / 2]};
}

TEST(Performance, DISABLED_Seed000F2) {
  std::string src = kSeed000F2;
  auto w = randomFloats(600 * 821, 1), a = randomFloats(32 * 100 * 821, 2);
  std::vector<float> out(32 * 100 * 600);
  double flops = 2.0 * 3200 * 600 * 821;
  for (bool runtime : {true, false}) {
    CompileOptions o;
    o.useRuntimeGemm = runtime;
    auto c0 = Clock::now();
    auto exe = jit(src, "f2", o);
    double compileS = std::chrono::duration<double>(Clock::now() - c0).count();
    ASSERT_TRUE(exe);
    void *bufs[] = {w.data(), a.data(), out.data()};
    auto [mn, med] = timeIt([&] { exe->callRaw(bufs); }, 2, runtime ? 20 : 3);
    std::printf("seed000 f2 (%s): compile %.2f s, min %.3f ms (%.1f GF/s), "
                "median %.3f ms "
                "(%.1f GF/s)\n",
                runtime ? "runtime Eigen GEMM" : "linalg loops", compileS,
                mn * 1e3, flops / mn * 1e-9, med * 1e3, flops / med * 1e-9);
    // Spot check one element.
    float s = 0;
    for (int k = 0; k < 821; ++k)
      s += a[5 * 821 + k] * w[7 * 821 + k];
    EXPECT_NEAR(out[5 * 600 + 7], s, 1e-3f * (1 + std::fabs(s)));
  }
}

TEST(Performance, DISABLED_Seed004MlpLatency) {
  {
    std::string src = kSeed004Mlp;
    for (bool runtime : {true, false}) {
      CompileOptions o;
      o.useRuntimeGemm = runtime;
      o.runtimeGemmMinMacs = 0; // "runtime": every layer calls Eigen
      auto exe = jit(src, "mlp", o);
      ASSERT_TRUE(exe);
      std::vector<std::vector<float>> bufs;
      std::vector<void *> ptrs;
      for (auto &s : exe->inputs())
        bufs.push_back(randomFloats(s.numElements(), bufs.size() + 1));
      bufs.emplace_back(2);
      for (auto &b : bufs)
        ptrs.push_back(b.data());
      const int n = 200000;
      auto [mn, med] = timeIt(
          [&] {
            for (int i = 0; i < n; ++i)
              exe->callRaw(ptrs.data());
          },
          1, 7);
      std::printf(
          "seed004 MLP 4-64-64-2 (%s), callRaw: min %.3f us/call, median %.3f "
          "us/call\n",
          runtime ? "Eigen GEMV calls" : "generated code", mn / n * 1e6,
          med / n * 1e6);
      std::vector<BufferView> ins;
      for (size_t i = 0; i + 1 < bufs.size(); ++i)
        ins.push_back(
            {bufs[i].data(), exe->inputs()[i].shape, ElementKind::F32});
      std::vector<BufferView> outs{{bufs.back().data(), {2}, ElementKind::F32}};
      auto [mn2, med2] = timeIt(
          [&] {
            for (int i = 0; i < n; ++i)
              exe->call(ins, outs);
          },
          1, 7);
      std::printf("seed004 MLP 4-64-64-2 (%s), checked call(): min %.3f "
                  "us/call, median "
                  "%.3f us/call\n",
                  runtime ? "Eigen GEMV calls" : "generated code",
                  mn2 / n * 1e6, med2 / n * 1e6);
    }
  }
}

} // namespace
