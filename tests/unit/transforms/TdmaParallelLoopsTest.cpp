//===- TdmaParallelLoopsTest.cpp - seed 003 end to end on the JIT ---------===//
//
// Seed 003's TDMA (examples/seeds/seed003_tdma.mlir, as the seed writes it
// with transposes and reverses) compiled three ways — as written, with the
// scan layout folded, and with the scans as one parallel loop — must solve
// the tridiagonal systems: checked independently by multiplying back
// (a_i x_{i-1} + b_i x_i + c_i x_{i+1} = d_i) and against each other.
//
//===----------------------------------------------------------------------===//
#include "compiler/Compiler.h"
#include "compiler/HeapStats.h"
#include "tools/JitRun.h"
#include "tools/Registration.h"
#include "tests/unit/SourceFiles.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace kiln;

namespace {

constexpr int64_t kSystems = 1000, kSize = 100;

/// Compiles the TDMA after running `passes` (a textual pipeline, may be empty).
std::unique_ptr<Executable> compileTdma(mlir::MLIRContext &context, const std::string &passes) {
  auto module = mlir::parseSourceString<mlir::ModuleOp>(kiln::test::readSource("examples/seeds/seed003_tdma.mlir"), &context);
  EXPECT_TRUE(module);
  if (!module)
    return nullptr;
  if (!passes.empty()) {
    mlir::PassManager pm(&context);
    EXPECT_TRUE(succeeded(kiln::addPassPipeline(pm, passes, llvm::errs())));
    EXPECT_TRUE(succeeded(pm.run(*module)));
  }
  std::string error;
  auto exe = Compiler().compile(*module, "tdma", &error);
  EXPECT_TRUE(exe) << error;
  return exe;
}

struct TdmaProblem {
  std::vector<float> a, b, c, d;
  TdmaProblem() : a(kSystems * kSize), b(a.size()), c(a.size()), d(a.size()) {
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> offDiag(-1, 1), diag(3, 4);
    for (size_t i = 0; i < a.size(); ++i) {
      a[i] = offDiag(rng);
      b[i] = diag(rng); // diagonally dominant: the elimination is stable
      c[i] = offDiag(rng);
      d[i] = offDiag(rng);
    }
  }

  std::vector<float> solve(const Executable &exe) {
    std::vector<float> x(a.size());
    std::vector<int64_t> shape = {kSystems, kSize};
    std::vector<BufferView> in = {{a.data(), shape}, {b.data(), shape}, {c.data(), shape},
                                  {d.data(), shape}};
    std::vector<BufferView> out = {{x.data(), shape}};
    std::string error;
    EXPECT_TRUE(exe.call(in, out, &error)) << error;
    return x;
  }

  /// max |A x - d| over all systems (a_0 and c_{n-1} fall outside the matrix).
  double residual(const std::vector<float> &x) const {
    double worst = 0;
    for (int64_t s = 0; s < kSystems; ++s)
      for (int64_t i = 0; i < kSize; ++i) {
        int64_t k = s * kSize + i;
        double lhs = double(b[k]) * x[k];
        if (i > 0)
          lhs += double(a[k]) * x[k - 1];
        if (i + 1 < kSize)
          lhs += double(c[k]) * x[k + 1];
        worst = std::max(worst, std::fabs(lhs - d[k]));
      }
    return worst;
  }
};

class TdmaTest : public ::testing::Test {
protected:
  TdmaTest() {
    mlir::DialectRegistry registry;
    registerAllKilnDialects(registry);
    registerAllKilnPasses();
    context.appendDialectRegistry(registry);
    Compiler::prepareContext(context);
  }
  mlir::MLIRContext context;
  TdmaProblem problem;
};

TEST_F(TdmaTest, AsWrittenSolvesTheSystems) {
  auto exe = compileTdma(context, "");
  ASSERT_TRUE(exe);
  EXPECT_LT(problem.residual(problem.solve(*exe)), 1e-5);
}

TEST_F(TdmaTest, ParallelLoopsMatchTheScans) {
  auto asWritten = compileTdma(context, "");
  auto folded = compileTdma(context, "builtin.module(func.func(kiln-fold-scan-layout,canonicalize))");
  auto parallel = compileTdma(
      context, "builtin.module(func.func(kiln-fold-scan-layout,canonicalize,"
               "kiln-scan-to-parallel-loops,canonicalize))");
  // 8 systems per vector divide the 1000 systems; the pipeline's default 16
  // lanes (asWritten, folded) leave a masked last vector of 8.
  auto lanes = compileTdma(
      context, "builtin.module(func.func(kiln-fold-scan-layout,canonicalize,"
               "kiln-scan-to-parallel-loops{vector-bits=256},canonicalize))");
  // Block transposes with two rows to a 512-bit register (8 f32 lanes),
  // two lane groups: the last iteration's second group lies past the batch
  // and its first is 8 lanes, copied one element at a time.
  auto paired = compileTdma(
      context, "builtin.module(func.func(kiln-fold-scan-layout,canonicalize,"
               "kiln-scan-to-parallel-loops{vector-bits=512 register-bits=512 lane-groups=2},"
               "canonicalize))");
  ASSERT_TRUE(asWritten && folded && parallel && lanes && paired);
  std::vector<float> x0 = problem.solve(*asWritten);
  std::vector<float> x1 = problem.solve(*folded);
  std::vector<float> x2 = problem.solve(*parallel);
  std::vector<float> x3 = problem.solve(*lanes);
  std::vector<float> x4 = problem.solve(*paired);
  EXPECT_LT(problem.residual(x2), 1e-5);
  EXPECT_LT(problem.residual(x4), 1e-5);
  // The rewrites are exact: every element is computed by the same sequence
  // of float operations, in a vector lane or alone.
  EXPECT_EQ(x0, x1);
  EXPECT_EQ(x0, x2);
  EXPECT_EQ(x0, x3);
  EXPECT_EQ(x0, x4);
}

} // namespace
