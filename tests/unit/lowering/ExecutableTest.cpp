//===- ExecutableTest.cpp - the C++ API: compile once, call many ----------===//
#include "tests/unit/lowering/LoweringTestUtils.h"
#include "reference/Comparison.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/TargetParser/Host.h"

#include <cmath>
#include <filesystem>
#include <sstream>
#include <thread>

#include <unistd.h>

using namespace kiln;
using namespace kiln::test;

namespace {

const char *kMlp = R"(
func.func @mlp(%x: tensor<4xf32>, %w1: tensor<64x4xf32>, %b1: tensor<64xf32>,
               %w2: tensor<2x64xf32>, %b2: tensor<2xf32>) -> tensor<2xf32> {
  %h = lax.dot_general %w1, %x contracting = [1] x [0] batch = [] x [] : (tensor<64x4xf32>, tensor<4xf32>) -> tensor<64xf32>
  %hb = lax.add %h, %b1 : tensor<64xf32>
  %z = lax.constant dense<0.0> : tensor<64xf32>
  %r = lax.max %hb, %z : tensor<64xf32>
  %o = lax.dot_general %w2, %r contracting = [1] x [0] batch = [] x [] : (tensor<2x64xf32>, tensor<64xf32>) -> tensor<2xf32>
  %ob = lax.add %o, %b2 : tensor<2xf32>
  return %ob : tensor<2xf32>
})";

std::vector<float> mlpRef(const std::vector<float> &x,
                          const std::vector<float> &w1,
                          const std::vector<float> &b1,
                          const std::vector<float> &w2,
                          const std::vector<float> &b2) {
  std::vector<float> h(64), o(2);
  for (int i = 0; i < 64; ++i) {
    float s = b1[i];
    for (int k = 0; k < 4; ++k)
      s += w1[i * 4 + k] * x[k];
    h[i] = std::max(s, 0.0f);
  }
  for (int i = 0; i < 2; ++i) {
    float s = b2[i];
    for (int k = 0; k < 64; ++k)
      s += w2[i * 64 + k] * h[k];
    o[i] = s;
  }
  return o;
}

TEST(Executable, SignatureAndChecks) {
  auto exe = jit(kMlp, "mlp");
  ASSERT_TRUE(exe);
  ASSERT_EQ(exe->inputs().size(), 5u);
  ASSERT_EQ(exe->outputs().size(), 1u);
  EXPECT_EQ(exe->outputs()[0].shape, std::vector<int64_t>{2});
  EXPECT_EQ(exe->inputs()[1].shape, (std::vector<int64_t>{64, 4}));
  std::vector<float> out(2);
  std::string error;
  EXPECT_FALSE(
      exe->call({}, {BufferView{out.data(), {2}, ElementKind::F32}}, &error));
  EXPECT_NE(error.find("expected 5 inputs"), std::string::npos) << error;
}

TEST(Executable, MissingEntryIsAnError) {
  std::string error;
  EXPECT_FALSE(Compiler().compileSource(kMlp, "nope", &error));
  EXPECT_NE(error.find("@nope"), std::string::npos) << error;
}

/// Calls the compiled MLP from 8 threads at once, 200 times each, and checks
/// every result against mlpRef.
void expectMlpCorrectFromThreads(const Executable &exe) {
  auto w1 = randomFloats(256, 1), b1 = randomFloats(64, 2),
       w2 = randomFloats(128, 3), b2 = randomFloats(2, 4);
  std::vector<std::thread> threads;
  std::vector<int> failures(8, 0);
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int it = 0; it < 200; ++it) {
        auto x = randomFloats(4, 1000 * t + it);
        auto want = mlpRef(x, w1, b1, w2, b2);
        std::vector<float> out(2);
        void *bufs[] = {x.data(),  w1.data(), b1.data(),
                        w2.data(), b2.data(), out.data()};
        if (it % 2)
          exe.callRaw(bufs);
        else
          exe.call({{x.data(), {4}, ElementKind::F32},
                    {w1.data(), {64, 4}, ElementKind::F32},
                    {b1.data(), {64}, ElementKind::F32},
                    {w2.data(), {2, 64}, ElementKind::F32},
                    {b2.data(), {2}, ElementKind::F32}},
                   {{out.data(), {2}, ElementKind::F32}});
        for (int i = 0; i < 2; ++i)
          if (std::fabs(out[i] - want[i]) > 1e-4f * (1 + std::fabs(want[i])))
            ++failures[t];
      }
    });
  for (auto &th : threads)
    th.join();
  for (int t = 0; t < 8; ++t)
    EXPECT_EQ(failures[t], 0) << "thread " << t;
}

TEST(Executable, ManyCallsFromManyThreads) {
  auto exe = jit(kMlp, "mlp");
  ASSERT_TRUE(exe);
  EXPECT_EQ(exe->cacheOutcome().kind, CacheOutcome::Off);
  expectMlpCorrectFromThreads(*exe);
}

/// The second compile of the same source is a cache hit, and the linked
/// cached object computes the same results (from many threads too).
TEST(Executable, CompileCacheHit) {
  CompileOptions o;
  o.cacheDir = ::testing::TempDir() + "kiln-executable-test-cache-" +
               std::to_string(::getpid());
  auto first = jit(kMlp, "mlp", o);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->cacheOutcome().kind, CacheOutcome::Miss)
      << first->cacheOutcome().describe();
  auto second = jit(kMlp, "mlp", o);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->cacheOutcome().kind, CacheOutcome::Hit)
      << second->cacheOutcome().describe();
  EXPECT_EQ(second->cacheOutcome().entry, first->cacheOutcome().entry);
  expectMlpCorrectFromThreads(*second);
  // Other options are another entry.
  o.optLevel = 2;
  auto third = jit(kMlp, "mlp", o);
  ASSERT_TRUE(third);
  EXPECT_EQ(third->cacheOutcome().kind, CacheOutcome::Miss)
      << third->cacheOutcome().describe();
  o.optLevel = 3;
  o.fpContract = true; // other machine code from the same LLVM IR
  auto fourth = jit(kMlp, "mlp", o);
  ASSERT_TRUE(fourth);
  EXPECT_EQ(fourth->cacheOutcome().kind, CacheOutcome::Miss)
      << fourth->cacheOutcome().describe();
  expectMlpCorrectFromThreads(*fourth);
  std::filesystem::remove_all(o.cacheDir);
}

/// The cache key names Kiln's libraries by their real paths, not as the
/// loader or argv[0] spelled them (`bin/../lib/...`, a bare name when run
/// through PATH): otherwise two builds could share entries.
TEST(Executable, CacheBuildIdentityIsRealPath) {
  std::string id = compileCacheBuildIdentity();
  ASSERT_FALSE(id.empty());
  std::istringstream parts(id);
  std::string part;
  int count = 0;
  while (parts >> part) {
    ++count;
    std::string path = part.substr(0, part.find(':'));
    ASSERT_FALSE(path.empty());
    EXPECT_EQ(path[0], '/') << id;
    EXPECT_EQ(std::filesystem::canonical(path).string(), path) << id;
  }
  EXPECT_EQ(count, 2) << id;
}

/// a * b + c where the rounded product loses what c cancels: (1 + 2^-30)
/// (1 - 2^-30) = 1 - 2^-60 rounds to 1 in f64. Without fpContract every op
/// rounds (the interpreter's result, 0); with it the host's FMA rounds once
/// (std::fma: -2^-60). Off, on and off again in one thread: the JIT keeps a
/// target machine per thread and options, and must not hand one option's to
/// the other.
TEST(Executable, FpContractFusesMultiplyAdd) {
  if (!llvm::sys::getHostCPUFeatures().lookup("fma"))
    GTEST_SKIP() << "the host CPU has no FMA instruction";
  const char *src = R"(
func.func @madd(%a: tensor<8xf64>, %b: tensor<8xf64>, %c: tensor<8xf64>) -> tensor<8xf64> {
  %p = lax.mul %a, %b : tensor<8xf64>
  %s = lax.add %p, %c : tensor<8xf64>
  return %s : tensor<8xf64>
})";
  std::vector<double> a(8, 1 + std::ldexp(1.0, -30)), b(8, 1 - std::ldexp(1.0, -30)), c(8, -1);
  for (bool contract : {false, true, false}) {
    CompileOptions o;
    o.fpContract = contract;
    auto exe = jit(src, "madd", o);
    ASSERT_TRUE(exe);
    std::vector<double> out(8, 42);
    ASSERT_TRUE(exe->call({{a.data(), {8}, ElementKind::F64},
                           {b.data(), {8}, ElementKind::F64},
                           {c.data(), {8}, ElementKind::F64}},
                          {{out.data(), {8}, ElementKind::F64}}));
    double expected = contract ? std::fma(a[0], b[0], c[0]) : a[0] * b[0] + c[0];
    ASSERT_NE(std::fma(a[0], b[0], c[0]), a[0] * b[0] + c[0]);
    EXPECT_EQ(out, std::vector<double>(8, expected)) << "fpContract " << contract;
  }
}

TEST(Executable, MultipleResultsAndInputsUntouched) {
  const char *src = R"(
func.func @two(%a: tensor<3xf32>) -> (tensor<3xf32>, tensor<f32>) {
  %e = lax.exp %a : tensor<3xf32>
  %s = lax.reduce_sum %e axes = [0] : tensor<3xf32> -> tensor<f32>
  return %e, %s : tensor<3xf32>, tensor<f32>
})";
  auto exe = jit(src, "two");
  ASSERT_TRUE(exe);
  std::vector<float> a = {0, 1, 2}, e(3), s(1);
  ASSERT_TRUE(exe->call(
      {{a.data(), {3}, ElementKind::F32}},
      {{e.data(), {3}, ElementKind::F32}, {s.data(), {}, ElementKind::F32}}));
  expectNear(e, {1.0f, std::exp(1.0f), std::exp(2.0f)});
  expectNear(s, {1.0f + std::exp(1.0f) + std::exp(2.0f)});
  EXPECT_EQ(a, (std::vector<float>{0, 1, 2}));
}

} // namespace

namespace {
/// Fixed shapes and small intermediates: the compiled MLP calls no
/// allocator (temporaries live on the stack, results go to the caller's
/// buffers).
TEST(Executable, MlpAllocatesNothingPerCall) {
  CompileOptions o;
  o.keepLoweredIR = true;
  auto exe = jit(kMlp, "mlp", o);
  ASSERT_TRUE(exe);
  const std::string &ir = exe->loweredIR();
  EXPECT_EQ(ir.find("llvm.call @malloc"), std::string::npos) << ir;
  EXPECT_EQ(ir.find("llvm.call @free"), std::string::npos) << ir;
  EXPECT_NE(ir.find("llvm.alloca"), std::string::npos);
}
} // namespace

namespace {
TEST(Executable, TimeExecutable) {
  auto exe = jit(kMlp, "mlp");
  ASSERT_TRUE(exe);
  auto x = randomFloats(4, 1), w1 = randomFloats(256, 2),
       b1 = randomFloats(64, 3), w2 = randomFloats(128, 4),
       b2 = randomFloats(2, 5);
  std::vector<float> out(2);
  CallTimings t;
  std::string error;
  ASSERT_TRUE(timeExecutable(*exe,
                             {{x.data(), {4}, ElementKind::F32},
                              {w1.data(), {64, 4}, ElementKind::F32},
                              {b1.data(), {64}, ElementKind::F32},
                              {w2.data(), {2, 64}, ElementKind::F32},
                              {b2.data(), {2}, ElementKind::F32}},
                             {{out.data(), {2}, ElementKind::F32}}, 3, 11, t,
                             &error))
      << error;
  EXPECT_EQ(t.repeat, 11);
  EXPECT_GT(t.medianSeconds, 0.0);
  EXPECT_LE(t.minSeconds, t.medianSeconds);
  expectNear(out, mlpRef(x, w1, b1, w2, b2), 1e-4f);
  EXPECT_FALSE(timeExecutable(*exe, {}, {}, 0, 1, t, &error));
}
} // namespace

namespace {
TEST(Executable, RunJitAndBuffersClose) {
  const char *src = R"(
func.func @f(%a: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xi32>) {
  %e = lax.mul %a, %a : tensor<3xf32>
  %i = lax.convert_element_type %e : tensor<3xf32> -> tensor<3xi32>
  return %e, %i : tensor<3xf32>, tensor<3xi32>
})";
  mlir::MLIRContext ctx;
  Compiler::prepareContext(ctx);
  auto module = mlir::parseSourceString<mlir::ModuleOp>(src, &ctx);
  ASSERT_TRUE(module);
  std::vector<float> a = {1.5f, -2.0f, 3.0f};
  JitRunResult r;
  std::string error;
  ASSERT_TRUE(runJit(*module, "f", {{a.data(), {3}, ElementKind::F32}}, 2, 5, r,
                     &error))
      << error;
  ASSERT_EQ(r.outputs.size(), 2u);
  // The outputs as interpreter tensors, compared under reference/Comparison.h.
  auto f32 = mlir::RankedTensorType::get({3}, mlir::Float32Type::get(&ctx));
  auto i32 = mlir::RankedTensorType::get({3}, mlir::IntegerType::get(&ctx, 32));
  auto tensor = [](mlir::RankedTensorType type, std::vector<double> values) {
    interp::Tensor t(type);
    for (size_t i = 0; i < values.size(); ++i)
      t.isFloat() ? t.setFloat(i, values[i]) : t.setInt(i, int64_t(values[i]));
    return t;
  };
  interp::ErrorModel exact;
  exact.k = 0;
  EXPECT_TRUE(
      interp::compareOutput(tensorOf(f32, r.outputs[0]), tensor(f32, {2.25, 4, 9}), nullptr, exact)
          .ok());
  EXPECT_TRUE(
      interp::compareOutput(tensorOf(i32, r.outputs[1]), tensor(i32, {2, 4, 9}), nullptr, exact)
          .ok());
  EXPECT_EQ(r.timings.repeat, 5);
  EXPECT_NE(formatTimings(r).find("median"), std::string::npos);
  interp::OutputComparison off =
      interp::compareOutput(tensorOf(f32, r.outputs[0]), tensor(f32, {2.25, 4.001, NAN}));
  EXPECT_FALSE(off.ok());
  EXPECT_EQ(off.numFailures, 2);
  EXPECT_EQ(off.firstFailure.index, 1);
  interp::ErrorModel loose;
  loose.rtol = 1e-3;
  EXPECT_TRUE(interp::compareOutput(tensorOf(f32, r.outputs[0]), tensor(f32, {2.25, 4.001, 9}),
                                    nullptr, loose)
                  .ok());
}
} // namespace

namespace {
/// One result updates another in place (dynamic_update_slice of a value
/// that is also returned): both outputs must keep their own values.
TEST(Executable, ResultsSharingProducersStayDistinct) {
  const char *src = R"(
func.func @f(%a: tensor<2x3xf32>, %u: tensor<1x2xf32>, %i: tensor<i32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %s = lax.add %a, %a : tensor<2x3xf32>
  %dus = lax.dynamic_update_slice %s [%i, %i], %u : (tensor<2x3xf32>, tensor<1x2xf32>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>
  return %dus, %s : tensor<2x3xf32>, tensor<2x3xf32>
})";
  auto exe = jit(src, "f");
  ASSERT_TRUE(exe);
  std::vector<float> a = {0, 1, 2, 3, 4, 5}, u = {-1, -2}, o1(6), o2(6);
  std::vector<int32_t> i = {1};
  ASSERT_TRUE(exe->call({{a.data(), {2, 3}, ElementKind::F32},
                         {u.data(), {1, 2}, ElementKind::F32},
                         {i.data(), {}, ElementKind::I32}},
                        {{o1.data(), {2, 3}, ElementKind::F32},
                         {o2.data(), {2, 3}, ElementKind::F32}}));
  expectNear(o1, {0, 2, 4, 6, -1, -2});
  expectNear(o2, {0, 2, 4, 6, 8, 10});
}

/// A large elementwise result is computed straight into the caller's
/// buffer: no allocation and no copy in the compiled code.
TEST(Executable, LargeResultComputedInPlace) {
  const char *src = R"(
func.func @f(%a: tensor<64x1024xf32>) -> tensor<64x1024xf32> {
  %e = lax.exp %a : tensor<64x1024xf32>
  %m = lax.mul %e, %a : tensor<64x1024xf32>
  return %m : tensor<64x1024xf32>
})";
  CompileOptions o;
  o.keepLoweredIR = true;
  auto exe = jit(src, "f", o);
  ASSERT_TRUE(exe);
  const std::string &ir = exe->loweredIR();
  EXPECT_EQ(ir.find("@malloc"), std::string::npos) << ir;
  EXPECT_EQ(ir.find("memcpy"), std::string::npos) << ir;
  auto a = randomFloats(64 * 1024, 3);
  std::vector<float> out(a.size()), want;
  for (float v : a)
    want.push_back(std::exp(v) * v);
  ASSERT_TRUE(exe->call({{a.data(), {64, 1024}, ElementKind::F32}},
                        {{out.data(), {64, 1024}, ElementKind::F32}}));
  expectNear(out, want, 1e-5f);
}
} // namespace

namespace {
/// runtimeHeapStats counts what compiled code holds on the heap: seed 002's
/// scan as written materializes its stacked ys (30x15x12 floats) during a
/// call and frees it; the push-up form (one fused reduction) needs none.
TEST(Executable, RuntimeHeapStatsCountATemporary) {
  std::string src = readSource("examples/seeds/seed002_mse_before.mlir");
  ASSERT_FALSE(src.empty());
  auto materialized = jit(src, "mse");
  ASSERT_TRUE(materialized);
  auto c0 = randomFloats(10 * 5 * 8, 1), xs = randomFloats(30 * 15 * 12, 2),
       y = randomFloats(30 * 15 * 12, 3);
  float out = 0;
  auto call = [&](Executable &exe) {
    ASSERT_TRUE(exe.call({{c0.data(), {10, 5, 8}, ElementKind::F32},
                          {xs.data(), {30, 15, 12}, ElementKind::F32},
                          {y.data(), {30, 15, 12}, ElementKind::F32}},
                         {{&out, {}, ElementKind::F32}}));
  };
  HeapStats before = runtimeHeapStats(/*resetPeak=*/true);
  call(*materialized);
  HeapStats after = runtimeHeapStats();
  EXPECT_GE(after.peak - before.live, int64_t(30 * 15 * 12 * sizeof(float)));
  EXPECT_EQ(after.live, before.live) << "a call leaves nothing allocated";

  // The same loss as one fused reduction: no temporary on the heap.
  const char *fused = R"(
func.func @mse(%xs: tensor<30x15x12xf32>, %y: tensor<30x15x12xf32>) -> tensor<f32> {
  %1 = lax.cos %xs : tensor<30x15x12xf32>
  %2 = lax.sub %y, %1 : tensor<30x15x12xf32>
  %3 = lax.integer_pow %2 y = 2 : tensor<30x15x12xf32>
  %4 = lax.reduce_sum %3 axes = [0, 1, 2] : tensor<30x15x12xf32> -> tensor<f32>
  %n = lax.constant dense<5400.0> : tensor<f32>
  %5 = lax.div %4, %n : tensor<f32>
  return %5 : tensor<f32>
})";
  auto pushedUp = jit(fused, "mse");
  ASSERT_TRUE(pushedUp);
  float expected = out;
  before = runtimeHeapStats(/*resetPeak=*/true);
  ASSERT_TRUE(pushedUp->call({{xs.data(), {30, 15, 12}, ElementKind::F32},
                              {y.data(), {30, 15, 12}, ElementKind::F32}},
                             {{&out, {}, ElementKind::F32}}));
  after = runtimeHeapStats();
  EXPECT_EQ(after.peak, before.live);
  EXPECT_NEAR(out, expected, 1e-3f * std::abs(expected));
}
} // namespace
