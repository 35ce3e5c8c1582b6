//===- InterpreterComparisonTest.cpp - JIT == reference interpreter -------===//
//
// Every program runs on deterministic random inputs through the reference
// interpreter (dialect/interpreter) and through kiln::Compiler's JIT, with
// the runtime GEMM and with generated contractions; results must agree under
// the error model of reference/Comparison.h (integers exactly). Each program
// is also compiled for the GPU (--kiln-lower-gpu, cuBLAS): with a GPU its
// results must agree the same way; without one (CI) it must compile all the
// way to host code and kernels, and only then report that no GPU can run it.
//
//===----------------------------------------------------------------------===//
#include "tests/unit/lowering/LoweringTestUtils.h"

#include "reference/Comparison.h"
#include "reference/Interpreter.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

using namespace kiln;
using kiln::interp::Tensor;

namespace {

/// Runs @`entry` of `src` on random inputs (positive ones when `positive`)
/// through the interpreter and the JIT (both dot_general lowerings), with
/// `laneGroups` groups of lanes per parallel-scan iteration (0: chosen).
void compareWithInterpreter(const std::string &src, const std::string &entry,
                            bool positive = false, uint64_t seed = 7, int64_t laneGroups = 0) {
  SCOPED_TRACE(src);
  // scripts/gpu-bundle.sh collects the suite's programs this way, to run
  // them on a GPU machine without Kiln's compiler: PROGRAM.mlir and
  // PROGRAM.json (entry, seed, positive inputs).
  if (const char *dir = std::getenv("KILN_DUMP_PROGRAMS")) {
    static int counter = 0;
    const auto *test = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string stem = std::string(dir) + "/" + test->name() + "_" + std::to_string(counter++);
    if (FILE *f = std::fopen((stem + ".mlir").c_str(), "w")) {
      std::fputs(src.c_str(), f);
      std::fclose(f);
    }
    if (FILE *f = std::fopen((stem + ".json").c_str(), "w")) {
      std::fprintf(f, "{\"entry\": \"%s\", \"seed\": %llu, \"positive\": %s}\n",
                   entry.c_str(), (unsigned long long)seed, positive ? "true" : "false");
      std::fclose(f);
    }
  }
  mlir::MLIRContext ctx;
  Compiler::prepareContext(ctx);
  auto module = mlir::parseSourceString<mlir::ModuleOp>(src, &ctx);
  ASSERT_TRUE(module);
  auto inputs = interp::randomInputs(*module, entry, seed, positive);
  ASSERT_TRUE(succeeded(inputs));
  auto reference = interp::interpret(*module, entry, *inputs);
  ASSERT_TRUE(succeeded(reference));
  std::vector<std::vector<char>> argBytes;
  std::vector<BufferView> views = viewsOf(*inputs, argBytes);
  for (auto [runtime, target] : {std::pair{true, Target::Cpu}, std::pair{false, Target::Cpu},
                                 std::pair{true, Target::Gpu}}) {
    SCOPED_TRACE(std::string(runtime ? "runtime GEMM" : "generated contractions") +
                 (target == Target::Gpu ? " on the GPU" : ""));
    CompileOptions options;
    options.target = target;
    options.useRuntimeGemm = runtime;
    options.runtimeGemmMinMacs = 0;
    options.scanLaneGroups = laneGroups;
    JitRunResult jit;
    std::string error;
    bool ran = runJit(*module, entry, views, 0, 0, jit, &error, options);
    if (!ran && target == Target::Gpu &&
        (error.find("no GPU can run it") != std::string::npos ||
         error.find("built without the GPU runtime") != std::string::npos)) {
      std::printf("[ GPU      ] compiled, not run: %s\n", error.c_str());
      continue;
    }
    ASSERT_TRUE(ran) << error;
    ASSERT_EQ(jit.outputs.size(), reference->size());
    std::string magError;
    auto mags = interp::magnitudes(*module, entry, *inputs, magError);
    ASSERT_TRUE(succeeded(mags)) << magError;
    for (size_t i = 0; i < jit.outputs.size(); ++i) {
      const Tensor &want = (*reference)[i];
      interp::OutputComparison c =
          interp::compareOutput(tensorOf(want.getType(), jit.outputs[i]), want, &(*mags)[i]);
      std::string report;
      llvm::raw_string_ostream os(report);
      c.print(os);
      EXPECT_TRUE(c.ok()) << "output " << i << ": " << report;
    }
  }
}

TEST(InterpreterComparison, ElementwiseFloat) {
  compareWithInterpreter(R"(
func.func @f(%a: tensor<3x5xf32>, %b: tensor<3x5xf32>) -> (tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xi1>) {
  %0 = lax.add %a, %b : tensor<3x5xf32>
  %1 = lax.mul %0, %a : tensor<3x5xf32>
  %2 = lax.sub %1, %b : tensor<3x5xf32>
  %3 = lax.max %2, %a : tensor<3x5xf32>
  %4 = lax.min %3, %b : tensor<3x5xf32>
  %5 = lax.neg %4 : tensor<3x5xf32>
  %6 = lax.abs %5 : tensor<3x5xf32>
  %7 = lax.sign %2 : tensor<3x5xf32>
  %8 = lax.tanh %6 : tensor<3x5xf32>
  %9 = lax.logistic %7 : tensor<3x5xf32>
  %10 = lax.exp %8 : tensor<3x5xf32>
  %11 = lax.sin %10 : tensor<3x5xf32>
  %12 = lax.cos %11 : tensor<3x5xf32>
  %13 = lax.square %12 : tensor<3x5xf32>
  %14 = lax.integer_pow %13 y = 3 : tensor<3x5xf32>
  %15 = lax.div %14, %10 : tensor<3x5xf32>
  %16 = lax.rem %a, %b : tensor<3x5xf32>
  %17 = lax.add %15, %9 : tensor<3x5xf32>
  %c = lax.compare GE, %a, %b : tensor<3x5xf32>
  return %17, %16, %c : tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xi1>
})",
                         "f");
}

TEST(InterpreterComparison, ElementwisePositiveDomain) {
  compareWithInterpreter(R"(
func.func @f(%a: tensor<7xf32>, %b: tensor<7xf32>) -> tensor<7xf32> {
  %0 = lax.log %a : tensor<7xf32>
  %1 = lax.log1p %b : tensor<7xf32>
  %2 = lax.sqrt %a : tensor<7xf32>
  %3 = lax.rsqrt %b : tensor<7xf32>
  %4 = lax.pow %a, %b : tensor<7xf32>
  %5 = lax.add %0, %1 : tensor<7xf32>
  %6 = lax.add %2, %3 : tensor<7xf32>
  %7 = lax.mul %5, %6 : tensor<7xf32>
  %8 = lax.integer_pow %a y = -2 : tensor<7xf32>
  %9 = lax.add %7, %4 : tensor<7xf32>
  %10 = lax.add %9, %8 : tensor<7xf32>
  return %10 : tensor<7xf32>
})",
                         "f", /*positive=*/true);
}

TEST(InterpreterComparison, IntegersBoolsConversions) {
  compareWithInterpreter(R"(
func.func @f(%a: tensor<8xi32>, %b: tensor<8xi32>, %p: tensor<8xi1>, %u: tensor<8xui32>, %x: tensor<8xf32>)
    -> (tensor<8xi32>, tensor<8xi1>, tensor<8xui32>, tensor<8xf64>, tensor<8xi32>) {
  %0 = lax.mul %a, %b : tensor<8xi32>
  %1 = lax.and %0, %b : tensor<8xi32>
  %2 = lax.or %1, %a : tensor<8xi32>
  %3 = lax.not %2 : tensor<8xi32>
  %4 = lax.max %3, %a : tensor<8xi32>
  %5 = lax.select_n %p, %4, %0 : tensor<8xi1>, tensor<8xi32>, tensor<8xi32>
  %q = lax.not %p : tensor<8xi1>
  %lt = lax.compare LT, %a, %b : tensor<8xi32>
  %r = lax.and %q, %lt : tensor<8xi1>
  %u2 = lax.mul %u, %u : tensor<8xui32>
  %u3 = lax.max %u2, %u : tensor<8xui32>
  %d = lax.convert_element_type %x : tensor<8xf32> -> tensor<8xf64>
  %e = lax.convert_element_type %p : tensor<8xi1> -> tensor<8xf64>
  %f = lax.add %d, %e : tensor<8xf64>
  %s = lax.sign %a : tensor<8xi32>
  %ab = lax.abs %b : tensor<8xi32>
  %g = lax.add %s, %ab : tensor<8xi32>
  return %5, %r, %u3, %f, %g : tensor<8xi32>, tensor<8xi1>, tensor<8xui32>, tensor<8xf64>, tensor<8xi32>
})",
                         "f");
}

TEST(InterpreterComparison, Structure) {
  compareWithInterpreter(R"(
func.func @f(%a: tensor<2x3x4xf32>, %v: tensor<3xf32>, %i: tensor<i32>, %j: tensor<i32>)
    -> (tensor<4x3x2xf32>, tensor<6x4xf32>, tensor<2x3x4xf32>, tensor<1x2xf32>, tensor<2x3x4xf32>, tensor<5x3xf32>) {
  %t = lax.transpose %a permutation = [2, 1, 0] : tensor<2x3x4xf32> -> tensor<4x3x2xf32>
  %r = lax.reshape %a : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %v2 = lax.broadcast_in_dim %v shape = [2, 3, 4] dims = [1] : tensor<3xf32> -> tensor<2x3x4xf32>
  %rv = lax.rev %v2 dims = [0, 2] : tensor<2x3x4xf32>
  %s = lax.add %rv, %a : tensor<2x3x4xf32>
  %sl = lax.slice %r start = [1, 0] limit = [2, 4] strides = [1, 3] : tensor<6x4xf32> -> tensor<1x2xf32>
  %ds = lax.dynamic_slice %a [%i, %j, %i] sizes = [1, 2, 2] : (tensor<2x3x4xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x2x2xf32>
  %dus = lax.dynamic_update_slice %s [%j, %i, %j], %ds : (tensor<2x3x4xf32>, tensor<1x2x2xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x4xf32>
  %io = lax.iota dimension = 0 : tensor<2x3xf32>
  %vv = lax.expand_dims %v dims = [0] : tensor<3xf32> -> tensor<1x3xf32>
  %sq = lax.squeeze %vv dims = [0] : tensor<1x3xf32> -> tensor<3xf32>
  %vb = lax.broadcast_in_dim %sq shape = [2, 3] dims = [1] : tensor<3xf32> -> tensor<2x3xf32>
  %c = lax.concatenate %io, %vv, %vb dim = 0 : (tensor<2x3xf32>, tensor<1x3xf32>, tensor<2x3xf32>) -> tensor<5x3xf32>
  return %t, %r, %dus, %sl, %s, %c : tensor<4x3x2xf32>, tensor<6x4xf32>, tensor<2x3x4xf32>, tensor<1x2xf32>, tensor<2x3x4xf32>, tensor<5x3xf32>
})",
                         "f");
}

TEST(InterpreterComparison, ReductionsAndArg) {
  compareWithInterpreter(R"(
func.func @f(%a: tensor<4x5x6xf32>, %n: tensor<4x6xi32>)
    -> (tensor<5xf32>, tensor<4x6xf32>, tensor<4x5xf32>, tensor<6xf32>, tensor<4x6xi32>, tensor<4x5xi32>, tensor<6xi32>) {
  %0 = lax.reduce_sum %a axes = [0, 2] : tensor<4x5x6xf32> -> tensor<5xf32>
  %1 = lax.reduce_max %a axes = [1] : tensor<4x5x6xf32> -> tensor<4x6xf32>
  %2 = lax.reduce_min %a axes = [2] : tensor<4x5x6xf32> -> tensor<4x5xf32>
  %3 = lax.reduce_prod %a axes = [0, 1] : tensor<4x5x6xf32> -> tensor<6xf32>
  %4 = lax.argmax %a axes = [1] : tensor<4x5x6xf32> -> tensor<4x6xi32>
  %5 = lax.argmin %a axes = [2] : tensor<4x5x6xf32> -> tensor<4x5xi32>
  %6 = lax.reduce_max %n axes = [0] : tensor<4x6xi32> -> tensor<6xi32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<5xf32>, tensor<4x6xf32>, tensor<4x5xf32>, tensor<6xf32>, tensor<4x6xi32>, tensor<4x5xi32>, tensor<6xi32>
})",
                         "f");
}

TEST(InterpreterComparison, DotGeneral) {
  compareWithInterpreter(R"(
func.func @f(%a: tensor<3x4x5xf32>, %b: tensor<5x3x6xf32>, %w: tensor<7x5xf32>, %x: tensor<5xf32>, %i: tensor<4x5xi32>, %j: tensor<5x2xi32>)
    -> (tensor<3x4x6xf32>, tensor<3x4x7xf32>, tensor<7xf32>, tensor<7x3x4xf32>, tensor<4x2xi32>, tensor<f32>) {
  %0 = lax.dot_general %a, %b contracting = [2] x [0] batch = [0] x [1] : (tensor<3x4x5xf32>, tensor<5x3x6xf32>) -> tensor<3x4x6xf32>
  %1 = lax.dot_general %a, %w contracting = [2] x [1] batch = [] x [] : (tensor<3x4x5xf32>, tensor<7x5xf32>) -> tensor<3x4x7xf32>
  %2 = lax.dot_general %w, %x contracting = [1] x [0] batch = [] x [] : (tensor<7x5xf32>, tensor<5xf32>) -> tensor<7xf32>
  %3 = lax.dot_general %w, %a contracting = [1] x [2] batch = [] x [] : (tensor<7x5xf32>, tensor<3x4x5xf32>) -> tensor<7x3x4xf32>
  %4 = lax.dot_general %i, %j contracting = [1] x [0] batch = [] x [] : (tensor<4x5xi32>, tensor<5x2xi32>) -> tensor<4x2xi32>
  %5 = lax.dot_general %x, %x contracting = [0] x [0] batch = [] x [] : (tensor<5xf32>, tensor<5xf32>) -> tensor<f32>
  return %0, %1, %2, %3, %4, %5 : tensor<3x4x6xf32>, tensor<3x4x7xf32>, tensor<7xf32>, tensor<7x3x4xf32>, tensor<4x2xi32>, tensor<f32>
})",
                         "f");
}

// Matvecs that kiln-vectorize-matvec sums a block of rows at a time: whole
// blocks, blocks then single rows, f64's 8 lanes, and dense layers whose
// activation (not fused into the next matvec) feeds the next one.
TEST(InterpreterComparison, SmallMatvecRowBlocks) {
  compareWithInterpreter(R"(
func.func @f(%w: tensor<48x32xf32>, %x: tensor<32xf32>, %v: tensor<50x64xf32>, %u: tensor<64xf32>,
             %b: tensor<50xf32>, %d: tensor<20x16xf64>, %e: tensor<16xf64>, %s: tensor<16x50xf32>)
    -> (tensor<48xf32>, tensor<50xf32>, tensor<20xf64>, tensor<16xf32>) {
  %0 = lax.dot_general %w, %x contracting = [1] x [0] batch = [] x [] : (tensor<48x32xf32>, tensor<32xf32>) -> tensor<48xf32>
  %1 = lax.dot_general %v, %u contracting = [1] x [0] batch = [] x [] : (tensor<50x64xf32>, tensor<64xf32>) -> tensor<50xf32>
  %2 = lax.add %1, %b : tensor<50xf32>
  %z = lax.constant dense<0.0> : tensor<50xf32>
  %3 = lax.max %2, %z : tensor<50xf32>
  %4 = lax.dot_general %d, %e contracting = [1] x [0] batch = [] x [] : (tensor<20x16xf64>, tensor<16xf64>) -> tensor<20xf64>
  %5 = lax.dot_general %s, %3 contracting = [1] x [0] batch = [] x [] : (tensor<16x50xf32>, tensor<50xf32>) -> tensor<16xf32>
  return %0, %3, %4, %5 : tensor<48xf32>, tensor<50xf32>, tensor<20xf64>, tensor<16xf32>
})",
                         "f");
}

TEST(InterpreterComparison, ScanVariants) {
  compareWithInterpreter(R"(
func.func @f(%k: tensor<3xf32>, %a0: tensor<3xf32>, %b0: tensor<3xf32>, %xs: tensor<3x6xf32>, %zs: tensor<6x3xf32>)
    -> (tensor<3xf32>, tensor<3xf32>, tensor<3x6xf32>, tensor<6x3xf32>) {
  %a, %b, %ys, %ws = lax.scan length = 6 consts(%k) carry(%a0, %b0) xs(%xs, %zs)
      {reverse = true, xs_axes = array<i64: 1, 0>, ys_axes = array<i64: 1, 0>}
      : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3x6xf32>, tensor<6x3xf32>)
        -> (tensor<3xf32>, tensor<3xf32>, tensor<3x6xf32>, tensor<6x3xf32>) {
  ^bb0(%kk: tensor<3xf32>, %p: tensor<3xf32>, %q: tensor<3xf32>, %x: tensor<3xf32>, %z: tensor<3xf32>):
    %s = lax.mul %p, %kk : tensor<3xf32>
    %t = lax.add %s, %x : tensor<3xf32>
    %u = lax.tanh %t : tensor<3xf32>
    %m = lax.mul %q, %z : tensor<3xf32>
    %n = lax.add %m, %u : tensor<3xf32>
    lax.yield %u, %n, %t, %m : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  }
  return %a, %b, %ys, %ws : tensor<3xf32>, tensor<3xf32>, tensor<3x6xf32>, tensor<6x3xf32>
})",
                         "f");
}

/// A batch-parallel scan over a [2, 37] batch with strided xs and ys (each
/// element's steps contiguous, as in seed 003) and a contiguous xs: on the
/// CPU 16 (f32) or 8 (f64) elements per iteration as vector lanes, the last
/// vector partial, the strided rows moved a block of `lanes` steps at a
/// time. Lengths below, at and past a block, forward and reverse.
std::string laneScanProgram(int64_t length, const char *type, bool reverse) {
  std::string n = std::to_string(length), t = type;
  std::string batch = "tensor<2x37x" + t + ">";
  std::string strided = "tensor<2x37x" + n + "x" + t + ">";
  std::string contiguous = "tensor<" + n + "x2x37x" + t + ">";
  return "func.func @f(%c0: " + batch + ", %xs: " + strided + ", %zs: " + contiguous +
         ") -> (" + batch + ", " + strided + ", " + contiguous + ") {\n"
         "  %c, %ys, %ws = lax.scan length = " + n + " carry(%c0) xs(%xs, %zs) {" +
         (reverse ? "reverse = true, " : "") +
         "xs_axes = array<i64: 2, 0>, ys_axes = array<i64: 2, 0>}\n"
         "      : (" + batch + ", " + strided + ", " + contiguous + ") -> (" + batch + ", " +
         strided + ", " + contiguous + ") {\n"
         "  ^bb0(%p: " + batch + ", %x: " + batch + ", %z: " + batch + "):\n"
         "    %h = lax.constant dense<0.5> : " + batch + "\n"
         "    %s = lax.mul %p, %h : " + batch + "\n"
         "    %u = lax.add %s, %x : " + batch + "\n"
         "    %v = lax.sub %u, %z : " + batch + "\n"
         "    %w = lax.mul %x, %z : " + batch + "\n"
         "    lax.yield %v, %v, %w : " + batch + ", " + batch + ", " + batch + "\n"
         "  }\n"
         "  return %c, %ys, %ws : " + batch + ", " + strided + ", " + contiguous + "\n"
         "}";
}

TEST(InterpreterComparison, BatchParallelLanes) {
  for (const char *type : {"f32", "f64"})
    for (int64_t length : {5, 8, 16, 35})
      for (bool reverse : {false, true}) {
        SCOPED_TRACE(std::string(type) + " length " + std::to_string(length) +
                     (reverse ? " reverse" : ""));
        compareWithInterpreter(laneScanProgram(length, type, reverse), "f");
      }
}

TEST(InterpreterComparison, BatchParallelLaneGroups) {
  // Several groups of lanes per iteration, their steps interleaved. With 37
  // elements in the last batch dimension, the last iteration has a full
  // group, a partial one and (3 groups of 8 or 16 lanes) one wholly past
  // the batch, whose loads and stores must all be masked off.
  for (int64_t groups : {2, 3})
    for (const char *type : {"f32", "f64"})
      for (int64_t length : {5, 16})
        for (bool reverse : {false, true}) {
          SCOPED_TRACE(std::to_string(groups) + " groups " + type + " length " +
                       std::to_string(length) + (reverse ? " reverse" : ""));
          compareWithInterpreter(laneScanProgram(length, type, reverse), "f", false, 7, groups);
        }
  std::string tdma = kiln::test::readSource("examples/seeds/seed003_tdma.mlir");
  ASSERT_FALSE(tdma.empty()) << "cannot read the seed";
  compareWithInterpreter(tdma, "tdma", /*positive=*/true, 7, 3);
  // The default for contiguous lanes: 16 groups of 16 f32 lanes; 16400 =
  // 64 * 256 + 16, so the last iteration has one full group and 15 empty.
  compareWithInterpreter(R"(
func.func @rnn(%h0: tensor<16400xf32>, %xs: tensor<6x16400xf32>) -> (tensor<16400xf32>, tensor<6x16400xf32>) {
  %h, %hs = lax.scan length = 6 carry(%h0) xs(%xs)
      : (tensor<16400xf32>, tensor<6x16400xf32>) -> (tensor<16400xf32>, tensor<6x16400xf32>) {
  ^bb0(%p: tensor<16400xf32>, %x: tensor<16400xf32>):
    %w = lax.constant dense<0.9> : tensor<16400xf32>
    %m = lax.mul %w, %p : tensor<16400xf32>
    %s = lax.add %m, %x : tensor<16400xf32>
    %t = lax.tanh %s : tensor<16400xf32>
    lax.yield %t, %t : tensor<16400xf32>, tensor<16400xf32>
  }
  return %h, %hs : tensor<16400xf32>, tensor<6x16400xf32>
})",
                         "rnn");
}

TEST(InterpreterComparison, BatchParallelLongFusedPair) {
  // A producer/consumer pair whose fused stack tiles would pass the budget
  // (9000 steps x 8 lanes x 4 bytes x 2 ys): run unfused, the ys through
  // memory. Fused, a longer one overflowed the thread's stack.
  compareWithInterpreter(R"(
func.func @pair(%c0: tensor<40xf32>, %xs: tensor<40x9000xf32>) -> tensor<40x9000xf32> {
  %c, %u, %v = lax.scan length = 9000 carry(%c0) xs(%xs) {xs_axes = array<i64: 1>}
      : (tensor<40xf32>, tensor<40x9000xf32>) -> (tensor<40xf32>, tensor<9000x40xf32>, tensor<9000x40xf32>) {
  ^bb0(%p: tensor<40xf32>, %x: tensor<40xf32>):
    %h = lax.constant dense<0.5> : tensor<40xf32>
    %s = lax.mul %p, %h : tensor<40xf32>
    %t = lax.add %s, %x : tensor<40xf32>
    lax.yield %t, %t, %x : tensor<40xf32>, tensor<40xf32>, tensor<40xf32>
  }
  %d, %w = lax.scan length = 9000 carry(%c0) xs(%u, %v) {reverse = true, ys_axes = array<i64: 1>}
      : (tensor<40xf32>, tensor<9000x40xf32>, tensor<9000x40xf32>) -> (tensor<40xf32>, tensor<40x9000xf32>) {
  ^bb0(%p: tensor<40xf32>, %a: tensor<40xf32>, %b: tensor<40xf32>):
    %h = lax.constant dense<0.25> : tensor<40xf32>
    %s = lax.mul %p, %h : tensor<40xf32>
    %t = lax.sub %a, %s : tensor<40xf32>
    %r = lax.add %t, %b : tensor<40xf32>
    lax.yield %r, %r : tensor<40xf32>, tensor<40xf32>
  }
  return %w : tensor<40x9000xf32>
})",
                         "pair");
}

TEST(InterpreterComparison, BatchParallelTdma) {
  // Seed 003's TDMA as the seed writes it (examples/seeds/seed003_tdma.mlir):
  // one parallel loop of vector lanes on the CPU, one kernel on the GPU (a
  // thread per system running both sweeps).
  std::string text = kiln::test::readSource("examples/seeds/seed003_tdma.mlir");
  ASSERT_FALSE(text.empty()) << "cannot read the seed";
  compareWithInterpreter(text, "tdma", /*positive=*/true);
}

TEST(InterpreterComparison, Seeds) {
  // Seed 000 f1 at a reduced size, seed 004's MLP, seed 002's mse scan.
  compareWithInterpreter(R"(
func.func @f1(%w: tensor<60x82xf32>, %a: tensor<3x10x82xf32>) -> tensor<3x10x60xf32> {
  %f = lax.dot_general %w, %a contracting = [1] x [2] batch = [] x []
      : (tensor<60x82xf32>, tensor<3x10x82xf32>) -> tensor<60x3x10xf32>
  %g = lax.transpose %f permutation = [1, 2, 0] : tensor<60x3x10xf32> -> tensor<3x10x60xf32>
  return %g : tensor<3x10x60xf32>
})",
                         "f1");
  compareWithInterpreter(R"(
func.func private @relu(%a: tensor<64xf32>) -> tensor<64xf32> {
  %zero = lax.constant dense<0.0> : tensor<64xf32>
  %b = lax.max %a, %zero : tensor<64xf32>
  return %b : tensor<64xf32>
}
func.func @mlp(%x: tensor<4xf32>, %w1: tensor<64x4xf32>, %b1: tensor<64xf32>,
               %w2: tensor<64x64xf32>, %b2: tensor<64xf32>,
               %w3: tensor<2x64xf32>, %b3: tensor<2xf32>) -> tensor<2xf32> {
  %l = lax.dot_general %w1, %x contracting = [1] x [0] batch = [] x [] : (tensor<64x4xf32>, tensor<4xf32>) -> tensor<64xf32>
  %m = lax.add %l, %b1 : tensor<64xf32>
  %n = func.call @relu(%m) : (tensor<64xf32>) -> tensor<64xf32>
  %q = lax.dot_general %w2, %n contracting = [1] x [0] batch = [] x [] : (tensor<64x64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %r = lax.add %q, %b2 : tensor<64xf32>
  %s = func.call @relu(%r) : (tensor<64xf32>) -> tensor<64xf32>
  %v = lax.dot_general %w3, %s contracting = [1] x [0] batch = [] x [] : (tensor<2x64xf32>, tensor<64xf32>) -> tensor<2xf32>
  %w = lax.add %v, %b3 : tensor<2xf32>
  return %w : tensor<2xf32>
})",
                         "mlp");
  compareWithInterpreter(R"(
func.func @mse(%c0: tensor<10x5x8xf32>, %xs: tensor<30x15x12xf32>,
               %y: tensor<30x15x12xf32>) -> tensor<f32> {
  %c, %ys = lax.scan length = 30 carry(%c0) xs(%xs)
      : (tensor<10x5x8xf32>, tensor<30x15x12xf32>) -> (tensor<10x5x8xf32>, tensor<30x15x12xf32>) {
  ^bb0(%carry: tensor<10x5x8xf32>, %x: tensor<15x12xf32>):
    %s = lax.sin %carry : tensor<10x5x8xf32>
    %cs = lax.cos %x : tensor<15x12xf32>
    lax.yield %s, %cs : tensor<10x5x8xf32>, tensor<15x12xf32>
  }
  %e = lax.sub %y, %ys : tensor<30x15x12xf32>
  %f = lax.integer_pow %e y = 2 : tensor<30x15x12xf32>
  %g = lax.reduce_sum %f axes = [0, 1, 2] : tensor<30x15x12xf32> -> tensor<f32>
  %n = lax.constant dense<5400.0> : tensor<f32>
  %h = lax.div %g, %n : tensor<f32>
  return %h : tensor<f32>
}
)",
                         "mse");
}

} // namespace
