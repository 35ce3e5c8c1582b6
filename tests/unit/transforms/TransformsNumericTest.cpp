//===- TransformsNumericTest.cpp - rewrites keep the numbers --------------===//
//
// Each Kiln rewrite runs on a program; the JIT's results for the rewritten
// program are compared with the reference interpreter's for the ORIGINAL
// program, on the same random inputs. The interpreter runs none of Kiln's
// rewrites, so a rewrite that changes the meaning of a program fails here;
// comparing the JIT before and after a pass could not, since kiln::Compiler
// applies kiln-canonicalize-dot-general, kiln-fold-scan-layout and
// canonicalize itself. Exact rewrites are also checked on the interpreter
// alone: the rewritten program must give the original's bits. The tolerance
// of the JIT comparison is that of the JIT against the interpreter (f32 sums
// in another order, libm); the reassociating push-up is held to a stated
// bound, and seed 002's loss is also checked against an independent float64
// computation.
//
//===----------------------------------------------------------------------===//
#include "compiler/Compiler.h"
#include "reference/Interpreter.h"
#include "tools/JitRun.h"
#include "tools/Registration.h"
#include "tests/unit/SourceFiles.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace kiln;
using kiln::interp::Tensor;

namespace {

using kiln::test::readSource;

/// Largest difference |u - v| / max(1, |u|) between the results `want` and
/// `got` (NaN matches NaN only); infinite when their types differ. With
/// `bitwise`, a zero of the other sign also counts as infinitely different.
double maxDifference(llvm::ArrayRef<Tensor> want, llvm::ArrayRef<Tensor> got, bool bitwise) {
  if (want.size() != got.size()) {
    ADD_FAILURE() << want.size() << " results, expected " << got.size();
    return INFINITY;
  }
  double worst = 0;
  for (auto [w, g] : llvm::zip(want, got)) {
    if (w.getType() != g.getType()) {
      std::string message;
      llvm::raw_string_ostream os(message);
      os << "result of type " << g.getType() << ", expected " << w.getType();
      ADD_FAILURE() << message;
      return INFINITY;
    }
    for (int64_t i = 0; i < w.size(); ++i) {
      double u = w.asDouble(i), v = g.asDouble(i);
      if (std::isnan(u) || std::isnan(v)) {
        if (std::isnan(u) != std::isnan(v))
          return INFINITY;
        continue;
      }
      if (bitwise && u == v && std::signbit(u) != std::signbit(v))
        return INFINITY;
      worst = std::max(worst, std::fabs(u - v) / std::max(1.0, std::fabs(u)));
    }
  }
  return worst;
}

class TransformsNumericTest : public ::testing::Test {
protected:
  TransformsNumericTest() {
    mlir::DialectRegistry registry;
    registerAllKilnDialects(registry);
    registerAllKilnPasses();
    context.appendDialectRegistry(registry);
    Compiler::prepareContext(context);
  }

  mlir::OwningOpRef<mlir::ModuleOp> parse(const std::string &source) {
    auto module = mlir::parseSourceString<mlir::ModuleOp>(source, &context);
    EXPECT_TRUE(module) << "cannot parse the test program";
    return module;
  }

  /// A copy of `module` after `pipeline`; null (and a test failure) if the
  /// pipeline does not parse or fails.
  mlir::OwningOpRef<mlir::ModuleOp> rewrite(mlir::ModuleOp module, const std::string &pipeline) {
    mlir::OwningOpRef<mlir::ModuleOp> copy(module.clone());
    mlir::PassManager pm(&context);
    if (failed(kiln::addPassPipeline(pm, pipeline, llvm::errs())) || failed(pm.run(*copy))) {
      ADD_FAILURE() << "cannot run " << pipeline;
      return nullptr;
    }
    return copy;
  }

  /// The reference interpreter's results for @entry (empty, and a test
  /// failure, if it fails).
  llvm::SmallVector<Tensor> interpret(mlir::ModuleOp module, const std::string &entry,
                                      llvm::ArrayRef<Tensor> inputs) {
    auto results = interp::interpret(module, entry, inputs);
    if (failed(results)) {
      ADD_FAILURE() << "the interpreter fails on @" << entry;
      return {};
    }
    return *results;
  }

  /// The JIT's results for @entry (compiled by kiln::Compiler with its
  /// default options); empty, and a test failure, if it fails.
  llvm::SmallVector<Tensor> jit(mlir::ModuleOp module, const std::string &entry,
                                llvm::ArrayRef<Tensor> inputs) {
    std::vector<std::vector<char>> bytes;
    std::vector<BufferView> views = viewsOf(inputs, bytes);
    JitRunResult result;
    std::string error;
    if (!runJit(module, entry, views, 0, 0, result, &error)) {
      ADD_FAILURE() << "the JIT fails on @" << entry << ": " << error;
      return {};
    }
    auto function = module.lookupSymbol<mlir::func::FuncOp>(entry);
    llvm::SmallVector<Tensor> outputs;
    for (auto [type, b] : llvm::zip(function.getFunctionType().getResults(), result.outputs))
      outputs.push_back(tensorOf(llvm::cast<mlir::RankedTensorType>(type), b));
    return outputs;
  }

  struct Differences {
    /// The JIT on the rewritten program against the interpreter on the
    /// original.
    double jit = 0;
    /// The interpreter on the rewritten program against the interpreter on
    /// the original (bitwise: a zero of the other sign is a difference).
    double interpreter = 0;
  };

  /// The largest differences (see maxDifference) between the original @entry
  /// of `source` and @entry after `pipeline`, on random inputs of seeds 0 to
  /// `seeds` - 1 (floats in [-1, 1], integers in [-3, 3]).
  Differences compare(const std::string &source, const std::string &entry,
                      const std::string &pipeline, uint64_t seeds = 3) {
    Differences worst;
    auto original = parse(source);
    if (!original)
      return {INFINITY, INFINITY};
    auto rewritten = rewrite(*original, pipeline);
    if (!rewritten)
      return {INFINITY, INFINITY};
    for (uint64_t seed = 0; seed < seeds; ++seed) {
      auto inputs = interp::randomInputs(*original, entry, seed);
      if (failed(inputs)) {
        ADD_FAILURE() << "no inputs for @" << entry;
        return {INFINITY, INFINITY};
      }
      llvm::SmallVector<Tensor> reference = interpret(*original, entry, *inputs);
      worst.jit = std::max(
          worst.jit, maxDifference(reference, jit(*rewritten, entry, *inputs), false));
      worst.interpreter =
          std::max(worst.interpreter,
                   maxDifference(reference, interpret(*rewritten, entry, *inputs), true));
    }
    std::printf("@%s after %s: JIT %.2e, interpreter %.2e from the original\n", entry.c_str(),
                pipeline.c_str(), worst.jit, worst.interpreter);
    return worst;
  }

  mlir::MLIRContext context;
};

/// The JIT against the interpreter on seed 000: the runtime GEMM sums the
/// K = 821 products in f32, the interpreter in double and rounds once. The
/// tolerance is that of kiln-run --check on seed 000 (--atol 1e-4 in
/// tests/lowering/jit-check.test). Its 2.6 M inputs make one random input
/// set enough (and the interpreter takes seconds for each).
constexpr double kSeed000Tolerance = 1e-4;
constexpr uint64_t kSeed000Seeds = 1;
/// The JIT against the interpreter on the other programs: short f32 sums in
/// another order, libm's transcendental functions.
constexpr double kJitTolerance = 1e-5;

TEST_F(TransformsNumericTest, DotGeneralCanonicalFormSeed000) {
  Differences d = compare(readSource("examples/seeds/seed000_f1.mlir"), "f1",
                          "builtin.module(kiln-canonicalize-dot-general)", kSeed000Seeds);
  EXPECT_LT(d.jit, kSeed000Tolerance);
  EXPECT_EQ(d.interpreter, 0.0);
}

TEST_F(TransformsNumericTest, DotGeneralCanonicalFormSeed004) {
  for (const char *file :
       {"examples/seeds/seed004_mlp_flax.mlir", "examples/seeds/seed004_mlp_eqx.mlir"}) {
    Differences d = compare(readSource(file), "mlp", "builtin.module(kiln-canonicalize-dot-general)");
    EXPECT_LT(d.jit, kJitTolerance) << file;
    EXPECT_EQ(d.interpreter, 0.0) << file;
  }
}

TEST_F(TransformsNumericTest, ScanLayoutFoldingSeed003IsExact) {
  Differences d = compare(readSource("examples/seeds/seed003_tdma.mlir"), "tdma",
                          "builtin.module(kiln-fold-scan-layout)");
  EXPECT_LT(d.jit, kJitTolerance);
  EXPECT_EQ(d.interpreter, 0.0);
}

TEST_F(TransformsNumericTest, ExactPushUpSeed002) {
  Differences d = compare(readSource("examples/seeds/seed002_mse_before.mlir"), "mse",
                          "builtin.module(kiln-scan-pushup,canonicalize)");
  EXPECT_LT(d.jit, kJitTolerance);
  EXPECT_EQ(d.interpreter, 0.0);
}

TEST_F(TransformsNumericTest, ReassociatingPushUpSeed002WithinBound) {
  // Summing 5400 squared errors in another order: f32 rounding bounds the
  // change well below 1e-5 relative.
  Differences d = compare(readSource("examples/seeds/seed002_mse_before.mlir"), "mse",
                          "builtin.module(kiln-scan-pushup{reassociate=1},canonicalize)");
  EXPECT_LT(d.jit, 1e-5);
  EXPECT_LT(d.interpreter, 1e-5);
}

TEST_F(TransformsNumericTest, PushUpSeed002AgainstFloat64) {
  // The pushed-up program computes mean((y - cos(xs))^2): compare with that
  // computed independently in double.
  auto original = parse(readSource("examples/seeds/seed002_mse_before.mlir"));
  ASSERT_TRUE(original);
  auto rewritten =
      rewrite(*original, "builtin.module(kiln-scan-pushup{reassociate=1},canonicalize)");
  ASSERT_TRUE(rewritten);
  auto inputs = interp::randomInputs(*original, "mse", 7);
  ASSERT_TRUE(succeeded(inputs));
  llvm::SmallVector<Tensor> results = jit(*rewritten, "mse", *inputs);
  ASSERT_EQ(results.size(), 1u);
  double loss = results[0].asDouble(0);
  const Tensor &xs = (*inputs)[1], &y = (*inputs)[2];
  ASSERT_EQ(xs.size(), 30 * 15 * 12);
  double sum = 0;
  for (int64_t i = 0; i < xs.size(); ++i) {
    double e = y.getFloat(i) - std::cos(xs.getFloat(i));
    sum += e * e;
  }
  double reference = sum / 5400.0;
  double relative = std::fabs(loss - reference) / reference;
  std::printf("seed 002 push-up: loss %.9g, float64 reference %.9g, relative error %.2e\n",
              loss, reference, relative);
  EXPECT_LT(relative, 1e-6);
}

TEST_F(TransformsNumericTest, PushUpVariants) {
  // reverse scans, consts, several carries, two reductions of one ys,
  // integer sums: tests/transforms/scan-pushup.mlir's functions, before and
  // after the reassociating push-up.
  std::string source = readSource("tests/transforms/scan-pushup.mlir");
  for (const char *entry : {"seed002", "max_reverse_consts", "ys_used_elsewhere",
                            "two_reductions", "int_inner_axes", "operand_after_scan"}) {
    Differences d =
        compare(source, entry, "builtin.module(kiln-scan-pushup{reassociate=1},canonicalize)");
    EXPECT_LT(d.jit, 1e-5) << entry;
    EXPECT_LT(d.interpreter, 1e-5) << entry;
  }
}

TEST_F(TransformsNumericTest, FunctionDedupIsExact) {
  Differences d = compare(readSource("tests/transforms/dedup.mlir"), "outer",
                          "builtin.module(kiln-dedup-functions{inline-max-ops=3})");
  EXPECT_LT(d.jit, kJitTolerance);
  EXPECT_EQ(d.interpreter, 0.0);
}

TEST_F(TransformsNumericTest, OptimizePipelineOnEverySeed) {
  struct Case {
    const char *file, *entry;
    double tolerance = kJitTolerance;
    uint64_t seeds = 3;
  } cases[] = {
      {"examples/seeds/seed000_f1.mlir", "f1", kSeed000Tolerance, kSeed000Seeds},
      {"examples/seeds/seed000_f2.mlir", "f2", kSeed000Tolerance, kSeed000Seeds},
      {"examples/seeds/seed002_mse_before.mlir", "mse"},
      {"examples/seeds/seed002_mse_after.mlir", "mse"},
      {"examples/seeds/seed003_tdma.mlir", "tdma"},
      {"examples/seeds/seed004_mlp_eqx.mlir", "mlp"},
      {"examples/seeds/seed004_mlp_flax.mlir", "mlp"}};
  for (const Case &c : cases) {
    Differences d =
        compare(readSource(c.file), c.entry, "builtin.module(kiln-optimize)", c.seeds);
    EXPECT_LT(d.jit, c.tolerance) << c.file;
    EXPECT_LT(d.interpreter, c.tolerance) << c.file;
  }
}

} // namespace
