//===- ComparisonTest.cpp - the error model and the magnitude run ---------===//
//
// reference/Comparison.h: what passes and what fails (known-wrong results
// must fail: a 1000-ulp perturbation, a sign flip, an infinity against a
// finite value, NaN at another position), and the magnitudes of
// Magnitude.cpp on small programs whose magnitudes are known.
//
//===----------------------------------------------------------------------===//
#include "tests/unit/reference/InterpreterTesting.h"

#include <cfloat>
#include <cmath>
#include <random>

using namespace mlir;
using namespace kiln::interp;
using namespace kiln::interp::testing;

namespace {

constexpr double kEps32 = 1.0 / (1 << 23);

class ComparisonTest : public ::testing::Test {
protected:
  ComparisonTest() { loadInterpreterDialects(ctx); }
  Tensor f32(ArrayRef<double> values) {
    return makeTensor(ctx, "tensor<" + std::to_string(values.size()) + "xf32>", values);
  }
  /// The first output's magnitudes of @f in `source` on `inputs`.
  Tensor magnitudesOf(StringRef source, ArrayRef<Tensor> inputs, unsigned output = 0) {
    module = parseModule(ctx, source);
    std::string error;
    FailureOr<SmallVector<Tensor>> mags = magnitudes(*module, "f", inputs, error);
    EXPECT_TRUE(succeeded(mags)) << error;
    return succeeded(mags) ? (*mags)[output] : Tensor();
  }
  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
};

TEST_F(ComparisonTest, Epsilons) {
  EXPECT_EQ(epsilonOf(Float32Type::get(&ctx)), kEps32);
  EXPECT_EQ(epsilonOf(Float64Type::get(&ctx)), std::ldexp(1.0, -52));
  EXPECT_EQ(epsilonOf(Float16Type::get(&ctx)), std::ldexp(1.0, -10));
  EXPECT_EQ(epsilonOf(BFloat16Type::get(&ctx)), std::ldexp(1.0, -7));
  EXPECT_EQ(tinyOf(Float32Type::get(&ctx)), std::ldexp(1.0, -126));
  EXPECT_EQ(tinyOf(Float16Type::get(&ctx)), std::ldexp(1.0, -14));
}

TEST_F(ComparisonTest, FloatBound) {
  Tensor ref = f32({1, -2, 0.5});
  Tensor close = f32({1 + 10 * kEps32, -2 * (1 + 10 * kEps32), 0.5});
  OutputComparison c = compareOutput(close, ref, nullptr);
  EXPECT_TRUE(c.ok());
  EXPECT_GT(c.worst.ratio, 0);
  EXPECT_LT(c.worst.ratio, 1);
  EXPECT_EQ(c.worst.index, 1);
  EXPECT_EQ(c.numFallbacks, 3); // no magnitudes: the output's scale, 2
  EXPECT_EQ(c.scale, 2);
  // Equal outputs: ratio 0, no worst element.
  EXPECT_EQ(compareOutput(ref, ref, nullptr).worst.index, -1);
}

// A result 1000 ulps off, and a sign flip, are wrong whatever the
// magnitudes: the bound is 64 ulps of |ref| + mag.
TEST_F(ComparisonTest, KnownWrongResultsFail) {
  Tensor ref = f32({3.0, -0.25, 100});
  Tensor mag = f32({3.0, 0.25, 100}); // nothing cancelled
  Tensor perturbed = ref;
  perturbed.setFloat(0, 3.0 * (1 + 1000 * kEps32));
  OutputComparison c = compareOutput(perturbed, ref, &mag);
  EXPECT_FALSE(c.ok());
  EXPECT_EQ(c.numFailures, 1);
  EXPECT_EQ(c.firstFailure.index, 0);
  EXPECT_GT(c.worst.ratio, 7); // about 1000 / (64 * 2)
  EXPECT_EQ(c.numFallbacks, 0);

  Tensor flipped = ref;
  flipped.setFloat(1, 0.25);
  c = compareOutput(flipped, ref, &mag);
  EXPECT_FALSE(c.ok());
  EXPECT_EQ(c.firstFailure.index, 1);
  std::string text;
  llvm::raw_string_ostream os(text);
  c.print(os);
  EXPECT_NE(text.find("DIFFERS: 1 of 3 elements over the bound; first at [1]: got 0.25, "
                      "reference -0.25, error 0.5"),
            std::string::npos)
      << text;
}

// Cancellation: a result near zero after a long sum is judged against the
// magnitude of the summed terms, not its own size.
TEST_F(ComparisonTest, CancellationIsJudgedAgainstTheTerms) {
  // Seed 000's element: -0.01302 against -0.01303 after an 821-term sum
  // whose terms have magnitude ~150 in all.
  Tensor ref = f32({-0.013032971});
  Tensor got = f32({-0.0130190849});
  Tensor mag = f32({150});
  EXPECT_TRUE(compareOutput(got, ref, &mag).ok());
  // Without the magnitude (mag = |ref|), the same difference is a failure.
  Tensor own = f32({0.013032971});
  EXPECT_FALSE(compareOutput(got, ref, &own).ok());
  // A non-finite magnitude falls back to the output's scale.
  Tensor unknown = f32({NAN});
  OutputComparison c = compareOutput(got, ref, &unknown);
  EXPECT_EQ(c.numFallbacks, 1);
  EXPECT_FALSE(c.ok());
}

TEST_F(ComparisonTest, NanAndInfinities) {
  Tensor ref = f32({NAN, INFINITY, -INFINITY, 1});
  EXPECT_TRUE(compareOutput(ref, ref, nullptr).ok()); // identical infinities match
  auto fails = [&](ArrayRef<double> got, int64_t at) {
    OutputComparison c = compareOutput(f32(got), ref, nullptr);
    EXPECT_FALSE(c.ok());
    EXPECT_EQ(c.firstFailure.index, at);
    EXPECT_EQ(c.firstFailure.ratio, INFINITY);
  };
  fails({0, INFINITY, -INFINITY, 1}, 0);          // NaN expected
  fails({NAN, 3e38, -INFINITY, 1}, 1);            // finite where the reference is inf
  fails({NAN, -INFINITY, -INFINITY, 1}, 1);       // the other infinity
  fails({NAN, INFINITY, -INFINITY, INFINITY}, 3); // inf where the reference is finite
  fails({NAN, INFINITY, -INFINITY, NAN}, 3);      // NaN where the reference is finite
  std::string text;
  llvm::raw_string_ostream os(text);
  compareOutput(f32({NAN, 3e38, -INFINITY, 1}), ref, nullptr).print(os);
  EXPECT_NE(text.find("(infinities must be where the reference has the same infinity)"),
            std::string::npos)
      << text;
}

// An approximate result may round past the largest finite value where the
// reference did not (the JIT's f32 x * x * x at -6.98e12 is -inf, the
// interpreter's one rounding of the exact cube -FLT_MAX: generated program
// 947403): the infinity passes where a value within the bound of the
// reference, on its side, rounds to it; nowhere else.
TEST_F(ComparisonTest, OverflowWithinTheBound) {
  Tensor ref = f32({-FLT_MAX, 1e38, FLT_MAX});
  Tensor mag = f32({FLT_MAX, 1e38, FLT_MAX});
  OutputComparison c = compareOutput(f32({-INFINITY, 1e38, FLT_MAX}), ref, &mag);
  EXPECT_TRUE(c.ok());
  // 1e38 + 64 eps (1e38 + 1e38) is far below FLT_MAX.
  EXPECT_FALSE(compareOutput(f32({-FLT_MAX, INFINITY, FLT_MAX}), ref, &mag).ok());
  // The other side's infinity.
  EXPECT_FALSE(compareOutput(f32({INFINITY, 1e38, FLT_MAX}), ref, &mag).ok());
  // k = 0 asks for the same values.
  ErrorModel exact;
  exact.k = 0;
  EXPECT_FALSE(compareOutput(f32({-INFINITY, 1e38, FLT_MAX}), ref, &mag, exact).ok());
  // A finite result against an infinite reference stays wrong.
  EXPECT_FALSE(compareOutput(f32({-FLT_MAX, 1e38, FLT_MAX}), f32({-INFINITY, 1e38, FLT_MAX}),
                             &mag)
                   .ok());
}

TEST_F(ComparisonTest, IntegersAndBoolsAreExact) {
  Tensor ref = makeTensor(ctx, "tensor<3xi32>", {1, -2, 3});
  EXPECT_TRUE(compareOutput(ref, ref, nullptr).ok());
  OutputComparison c = compareOutput(makeTensor(ctx, "tensor<3xi32>", {1, -2, 4}), ref, nullptr);
  EXPECT_FALSE(c.ok());
  EXPECT_EQ(c.firstFailure.index, 2);
  // No double round trip: 2^60 and 2^60 + 1 differ.
  Tensor big = makeTensor(ctx, "tensor<1xi64>", {0});
  Tensor bigger = big;
  big.setInt(0, int64_t(1) << 60);
  bigger.setInt(0, (int64_t(1) << 60) + 1);
  EXPECT_FALSE(compareOutput(bigger, big, nullptr).ok());
  Tensor b = makeTensor(ctx, "tensor<2xi1>", {1, 0});
  EXPECT_FALSE(compareOutput(makeTensor(ctx, "tensor<2xi1>", {1, 1}), b, nullptr).ok());
  Tensor u = makeTensor(ctx, "tensor<1xui32>", {3000000000.0});
  EXPECT_TRUE(compareOutput(u, u, nullptr).ok());
}

TEST_F(ComparisonTest, TypesAndCounts) {
  Tensor a = f32({1, 2});
  Tensor b = makeTensor(ctx, "tensor<2xf64>", {1, 2});
  OutputComparison c = compareOutput(a, b, nullptr);
  EXPECT_FALSE(c.ok());
  EXPECT_NE(c.typeMismatch.find("tensor<2xf32> vs tensor<2xf64>"), std::string::npos);
  Comparison all = compareOutputs({a, a}, {a}, {});
  EXPECT_FALSE(all.ok());
  EXPECT_EQ(all.worst(), INFINITY);
  EXPECT_EQ(all.firstProblem(), "2 outputs, 1 expected");
  EXPECT_TRUE(compareOutputs({a}, {a}, {}).ok());
}

TEST_F(ComparisonTest, ExactModeAndSlack) {
  ErrorModel exact;
  exact.k = 0;
  Tensor ref = f32({0.0, 1, NAN});
  EXPECT_TRUE(compareOutput(ref, ref, nullptr, exact).ok());
  EXPECT_FALSE(compareOutput(f32({-0.0, 1, NAN}), ref, nullptr, exact).ok()); // signed zero
  EXPECT_TRUE(compareOutput(f32({-0.0, 1, NAN}), ref, nullptr).ok());         // k > 0: equal
  EXPECT_FALSE(compareOutput(f32({0, 1 + kEps32, NAN}), ref, nullptr, exact).ok());
  ErrorModel slack;
  slack.atol = 1e-3;
  EXPECT_TRUE(compareOutput(f32({1e-3, 1, NAN}), ref, nullptr, slack).ok());
  EXPECT_FALSE(compareOutput(f32({2e-3, 1, NAN}), ref, nullptr, slack).ok());
}

TEST_F(ComparisonTest, PrintsTheWorstErrorForTheCorpus) {
  Tensor ref = f32({1, 2});
  Comparison c = compareOutputs({f32({1, 2 * (1 + kEps32)})}, {ref}, {});
  std::string text;
  llvm::raw_string_ostream os(text);
  c.print(os, "expected");
  EXPECT_NE(text.find("output 0: matches (worst 0.00781 x bound, at [1]: got 2.00000024, "
                      "expected 2"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("worst error: 0.00781 x bound\n"), std::string::npos) << text;
}

// Magnitudes: the absolute version of linear programs.
TEST_F(ComparisonTest, MagnitudesOfLinearOps) {
  Tensor mag = magnitudesOf(R"(
func.func @f(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<3xf32> {
  %0 = lax.sub %x, %y : tensor<3xf32>
  %1 = lax.neg %0 : tensor<3xf32>
  %c = lax.constant dense<[-2.0, 0.5, 1.0]> : tensor<3xf32>
  %2 = lax.mul %1, %c : tensor<3xf32>
  %3 = lax.add %2, %x : tensor<3xf32>
  return %3 : tensor<3xf32>
})",
                            {f32({1, -2, 3}), f32({1, 5, -3})});
  // (|x| + |y|) |c| + |x|
  EXPECT_EQ(valuesOf(mag), (std::vector<double>{5, 5.5, 9}));
}

// A product of computed values is bounded to first order: |a| S(b) +
// (S(a) - |a|) |b|, without the absolute program's (S(a) - |a|)(S(b) - |b|),
// which would square itself at every step of a recurrence.
TEST_F(ComparisonTest, MagnitudesOfProductsToFirstOrder) {
  Tensor mag = magnitudesOf(R"(
func.func @f(%x: tensor<2xf32>, %y: tensor<2xf32>) -> tensor<2xf32> {
  %a = lax.sub %x, %y : tensor<2xf32>
  %p = lax.mul %a, %a : tensor<2xf32>
  return %p : tensor<2xf32>
})",
                            {f32({3, 1}), f32({1, 1})});
  // a = [2, 0], S(a) = [4, 2]: [2 * 4 + 2 * 2, 0 * 2 + 2 * 0], plus the
  // product's possible underflow: a correctly rounded mul's absolute error
  // is at most the smallest subnormal, tiny * eps, i.e. tiny = 2^-126 in
  // units of eps (lost in 12).
  EXPECT_EQ(valuesOf(mag), (std::vector<double>{12, std::ldexp(1.0, -126)}));
}

// f16 and bf16 smooth functions are computed wider and rounded once, so
// their possible underflow adds a rounding's error, tiny (the smallest
// subnormal in units of eps), not an f32 library's flushed subnormal, tiny /
// eps: that was 6.1e-5 in f16, and at k = 64 let an f16 log1p(1.5e-5) = 0
// pass (generated program 414902).
TEST_F(ComparisonTest, MagnitudesOfNarrowFunctionsUnderflow) {
  const char *src = R"(
func.func @f(%x: tensor<1xf16>, %y: tensor<1xf32>) -> (tensor<1xf16>, tensor<1xf32>) {
  %a = lax.log1p %x : tensor<1xf16>
  %b = lax.log1p %y : tensor<1xf32>
  return %a, %b : tensor<1xf16>, tensor<1xf32>
})";
  Tensor x = makeTensor(ctx, "tensor<1xf16>", {0.0});
  Tensor y = f32({0.0});
  // log1p(0) = 0 with an exact operand: only the underflow term is left.
  EXPECT_EQ(valuesOf(magnitudesOf(src, {x, y}, 0)), (std::vector<double>{std::ldexp(1.0, -14)}));
  EXPECT_EQ(valuesOf(magnitudesOf(src, {x, y}, 1)),
            (std::vector<double>{std::ldexp(1.0, -126) / kEps32}));
  // So an f16 result of 0 where the reference is 1.5e-5 (a quarter of f16's
  // smallest normal number) fails at the default k.
  Tensor ref = makeTensor(ctx, "tensor<1xf16>", {1.5e-5});
  Tensor mag = makeTensor(ctx, "tensor<1xf16>", {std::ldexp(1.0, -14) + 1.5e-5});
  EXPECT_FALSE(compareOutput(makeTensor(ctx, "tensor<1xf16>", {0.0}), ref, &mag).ok());
  // An exact zero (S = 0) bounds the error to 0, the sign of the zero
  // included: it does not depend on an order of summation (the JIT's sum of
  // an empty array was -0 where JAX's and the interpreter's is +0).
  Tensor zero = makeTensor(ctx, "tensor<1xf16>", {0.0});
  Tensor none = makeTensor(ctx, "tensor<1xf16>", {0.0});
  EXPECT_FALSE(compareOutput(makeTensor(ctx, "tensor<1xf16>", {-0.0}), zero, &none).ok());
  EXPECT_TRUE(compareOutput(makeTensor(ctx, "tensor<1xf16>", {0.0}), zero, &none).ok());
  EXPECT_FALSE(compareOutput(makeTensor(ctx, "tensor<1xf16>", {6e-8}), zero, &none).ok());
}

TEST_F(ComparisonTest, MagnitudesOfDotAndReductions) {
  const char *src = R"(
func.func @f(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %0 = lax.dot_general %a, %b contracting = [1] x [0] batch = [] x []
      : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>
  %1 = lax.reduce_sum %a axes = [1] : tensor<2x3xf32> -> tensor<2xf32>
  %2 = lax.reduce_min %a axes = [1] : tensor<2x3xf32> -> tensor<2xf32>
  return %0, %1, %2 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
})";
  Tensor a = makeTensor(ctx, "tensor<2x3xf32>", {1, -2, 3, -4, 5, -6});
  Tensor b = f32({1, 1, -1});
  EXPECT_EQ(valuesOf(magnitudesOf(src, {a, b}, 0)), (std::vector<double>{6, 15}));
  EXPECT_EQ(valuesOf(magnitudesOf(src, {a, b}, 1)), (std::vector<double>{6, 15}));
  // reduce_min picks one element: the largest magnitude bounds its error.
  EXPECT_EQ(valuesOf(magnitudesOf(src, {a, b}, 2)), (std::vector<double>{3, 6}));
}

// Smooth functions propagate to first order; what has no rule is NaN
// (unknown: the comparison falls back to the output's scale).
TEST_F(ComparisonTest, UnboundedMagnitudes) {
  // mag +inf: the model bounds nothing there (an operand's error reaches the
  // edge of log's domain): NaN against a number passes both ways...
  Tensor ref = f32({NAN, 0.5, INFINITY, 1});
  Tensor unbounded = f32({INFINITY, INFINITY, INFINITY, 1});
  OutputComparison c = compareOutput(f32({0, NAN, INFINITY, 1}), ref, &unbounded);
  EXPECT_TRUE(c.ok());
  EXPECT_EQ(c.numUnbounded, 2);
  EXPECT_EQ(c.numFallbacks, 0);
  // ... but an infinite reference stays exact (exp(1000) must overflow
  // however its S came out), and a finite mag still bounds the rest.
  EXPECT_EQ(compareOutput(f32({0, NAN, 3e38, 1}), ref, &unbounded).firstFailure.index, 2);
  EXPECT_EQ(compareOutput(f32({0, NAN, INFINITY, 1.5}), ref, &unbounded).firstFailure.index, 3);
  // k = 0 asks for identical values whatever the mag (0 * inf is NaN, and
  // a NaN bound once let -0 pass for +0).
  ErrorModel exact;
  exact.k = 0;
  Tensor zeros = f32({0, 1});
  Tensor inf2 = f32({INFINITY, INFINITY});
  EXPECT_FALSE(compareOutput(f32({-0.0, 1}), zeros, &inf2, exact).ok());
  EXPECT_FALSE(compareOutput(f32({0, 1 + kEps32}), zeros, &inf2, exact).ok());
  EXPECT_TRUE(compareOutput(zeros, zeros, &inf2, exact).ok());
}

// With a float64 run of the program, an element the model cannot bound is
// judged against it: within max(16 |ref - ref64|, cbrt(eps) |ref64|) of the
// float64 value (Adam's m / (sqrt(v) + eps): unbounded by the model, well
// conditioned; a wrong value there had passed unchecked).
TEST_F(ComparisonTest, UnboundedJudgedAgainstFloat64) {
  Tensor ref = f32({0.5, 0.5, 0.5, 2});
  Tensor unbounded = f32({INFINITY, INFINITY, INFINITY, INFINITY});
  // The rounded interpreter agrees with float64 to 1e-7 (elements 0, 1):
  // the bound is cbrt(eps) |ref64| = 2.5e-3; 1e-2 off fails, 1e-3 passes.
  // Where the interpreter itself is 0.1 off (element 2: ill conditioned),
  // 16 times that is allowed. A non-finite float64 value judges nothing.
  Tensor f64 = f32({0.5000001, 0.5000001, 0.6, NAN});
  OutputComparison c = compareOutput(f32({0.501, 0.51, 1.9, -7}), ref, &unbounded, {}, &f64);
  EXPECT_EQ(c.numUnbounded, 4);
  EXPECT_EQ(c.numUnboundedJudged, 3);
  EXPECT_EQ(c.numFailures, 1);
  EXPECT_EQ(c.firstFailure.index, 1);
  EXPECT_TRUE(c.firstFailure.againstF64);
  // Without the float64 run every one passes, unchecked.
  EXPECT_TRUE(compareOutput(f32({0.501, 0.51, 1.9, -7}), ref, &unbounded).ok());
  // A non-finite result stays unchecked: an approximate sin(FLT_MAX) may
  // be 0 and sin(x) / sin(x) NaN (div-pole-unbounded.mlir).
  Tensor one = f32({1}), inf1 = f32({INFINITY}), one64 = f32({1});
  OutputComparison nan = compareOutput(f32({NAN}), one, &inf1, {}, &one64);
  EXPECT_TRUE(nan.ok());
  EXPECT_EQ(nan.numUnboundedJudged, 0);
  // The level follows the precision the output was computed in: where the
  // interpreter is ~1e-3 (relative) from the float64 run everywhere (a
  // bf16 computation widened to f32), 16 times that is allowed.
  Tensor widened = f32({1.001, 2.002, 3.003});
  Tensor widened64 = f32({1, 2, 3});
  Tensor inf3 = f32({INFINITY, INFINITY, INFINITY});
  EXPECT_TRUE(compareOutput(f32({1.01, 2, 2.99}), widened, &inf3, {}, &widened64).ok());
  EXPECT_FALSE(compareOutput(f32({1.1, 2, 3}), widened, &inf3, {}, &widened64).ok());
}

TEST_F(ComparisonTest, MagnitudesAtTheEdgeOfADomain) {
  // log(cos x) at x = 1.7014117e38: cos's error |sin x| S(x) is ~1e31, so
  // cos may be anything in [-1, 1] and log anything (libm: NaN; a JIT
  // within the model: 0): unbounded. log of the exact input, and of cos of
  // 2 (error ~2 eps, far from 0), keep finite or unknown magnitudes.
  const char *src = R"(
func.func @f(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %c = lax.cos %x : tensor<2xf32>
  %l = lax.log %c : tensor<2xf32>
  %a = lax.log %x : tensor<2xf32>
  %s = lax.sqrt %c : tensor<2xf32>
  %t = lax.asin %c : tensor<2xf32>
  return %l, %a, %s, %t : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
})";
  Tensor x = f32({1.7014117e38, 2});
  for (unsigned output : {0u, 2u, 3u}) {
    std::vector<double> m = valuesOf(magnitudesOf(src, {x}, output));
    EXPECT_EQ(m[0], INFINITY) << "output " << output;
    EXPECT_TRUE(std::isnan(m[1]) || std::isfinite(m[1])) << "output " << output;
  }
  std::vector<double> a = valuesOf(magnitudesOf(src, {x}, 1));
  EXPECT_TRUE(std::isfinite(a[0]) && std::isfinite(a[1]));
  // log(cos 2) is NaN in the reference with a finite-error operand: not
  // unbounded, so a number there fails (the fallback compares NaN exactly).
  std::vector<double> l = valuesOf(magnitudesOf(src, {x}, 0));
  EXPECT_NE(l[1], INFINITY);
}

// A divisor whose error reaches 0 makes the quotient anything (sin(x) /
// sin(x) at FLT_MAX: 1 in libm, 0 / 0 in a JIT whose sin is 0 there:
// generated program 454068); an operand without error (S = 0) sits at the
// edge exactly, where every program computes the same: x / x and sqrt(x) at
// an input 0 keep their bounds.
TEST_F(ComparisonTest, MagnitudesAtAPole) {
  const char *src = R"(
func.func @f(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %s = lax.sin %x : tensor<3xf32>
  %q = lax.div %s, %s : tensor<3xf32>
  %r = lax.div %x, %x : tensor<3xf32>
  %t = lax.sqrt %x : tensor<3xf32>
  return %q, %r, %t : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
})";
  Tensor x = f32({FLT_MAX, 0, 2});
  std::vector<double> q = valuesOf(magnitudesOf(src, {x}, 0));
  EXPECT_EQ(q[0], INFINITY);
  EXPECT_TRUE(std::isfinite(q[2])) << q[2];
  std::vector<double> r = valuesOf(magnitudesOf(src, {x}, 1));
  EXPECT_NE(r[1], INFINITY);
  EXPECT_TRUE(std::isfinite(r[0]) && std::isfinite(r[2]));
  std::vector<double> t = valuesOf(magnitudesOf(src, {x}, 2));
  EXPECT_NE(t[1], INFINITY); // NaN (0 / 0 in the rule): the fallback
}

TEST_F(ComparisonTest, MagnitudesOfNonlinearOps) {
  const char *src = R"(
func.func @f(%x: tensor<2xf32>, %y: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xi1>) {
  %d = lax.sub %x, %y : tensor<2xf32>
  %e = lax.exp %d : tensor<2xf32>
  %r = lax.rem %x, %y : tensor<2xf32>
  %q = lax.div %x, %y : tensor<2xf32>
  %c = lax.compare GT, %x, %y : tensor<2xf32>
  return %e, %r, %q, %c : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xi1>
})";
  Tensor x = f32({1, 2}), y = f32({1, -2});
  // exp(d): |exp(d)| (S(d) + 1) with S(d) = |x| + |y|, and exp(d) the
  // reference's value, rounded to f32 (the shadows are taken at the values
  // the comparison measures against).
  std::vector<double> e = valuesOf(magnitudesOf(src, {x, y}, 0));
  EXPECT_DOUBLE_EQ(e[0], 1 * (2 + 1));
  EXPECT_NEAR(e[1], double(float(std::exp(4.0))) * (4 + 1), 1e-9);
  EXPECT_TRUE(std::isnan(valuesOf(magnitudesOf(src, {x, y}, 1))[0]));
  // x / y: (S(x) + |x / y| (S(y) - |y|)) / |y|, |x / y| for inputs.
  EXPECT_EQ(valuesOf(magnitudesOf(src, {x, y}, 2)), (std::vector<double>{1, 1}));
  // A non-float output comes back as it is.
  EXPECT_EQ(valuesOf(magnitudesOf(src, {x, y}, 3)), (std::vector<double>{0, 1}));
}

// The shadows are taken at the reference's values, rounded to the program's
// types (generated program 30946): float(2147483646) is 2^31 in f32, where
// cos is 0.238 and pow(FLT_MAX, cos) 1.457e9; at the double 2147483646 cos is
// -0.98 and pow 1.4e-38, which made S(pow) 2.7e-27, below |ref|. The shadows
// themselves stay in double: S(60000 - 30000) = 90000, beyond f16's largest
// 65504, also through a call's arguments and results.
TEST_F(ComparisonTest, MagnitudesAtTheReferencesRoundedValues) {
  const char *src = R"(
func.func private @g(%a: tensor<2xf16>) -> tensor<2xf16> {
  %0 = lax.neg %a : tensor<2xf16>
  return %0 : tensor<2xf16>
}
func.func @f(%i: tensor<1xi32>, %h: tensor<2xf16>, %k: tensor<2xf16>) -> (tensor<1xf32>, tensor<2xf16>) {
  %x = lax.convert_element_type %i : tensor<1xi32> -> tensor<1xf32>
  %y = lax.cos %x : tensor<1xf32>
  %big = lax.constant dense<0x7F7FFFFF> : tensor<1xf32>
  %p = lax.pow %big, %y : tensor<1xf32>
  %d = lax.sub %h, %k : tensor<2xf16>
  %n = func.call @g(%d) : (tensor<2xf16>) -> tensor<2xf16>
  return %p, %n : tensor<1xf32>, tensor<2xf16>
})";
  Tensor i = makeTensor(ctx, "tensor<1xi32>", {2147483646});
  Tensor h = makeTensor(ctx, "tensor<2xf16>", {60000, 1});
  Tensor k = makeTensor(ctx, "tensor<2xf16>", {30000, 0.5});
  // S(pow(a, y)) = |r| (|y| S(a) / |a| + |ln a| S(y)) + |r| with S(a) = |a|
  // and S(y) = S(x) + |y| = 2^31 + |y|, all at the f32 values.
  double y = double(float(std::cos(2147483648.0)));
  double r = double(float(std::pow(double(FLT_MAX), y)));
  double want = r * (y + std::log(double(FLT_MAX)) * (2147483648.0 + y)) + r;
  std::vector<double> p = valuesOf(magnitudesOf(src, {i, h, k}, 0));
  EXPECT_NEAR(p[0] / want, 1, 1e-6) << p[0] << " against " << want;
  EXPECT_GE(p[0], r);
  EXPECT_EQ(valuesOf(magnitudesOf(src, {i, h, k}, 1)), (std::vector<double>{90000, 1.5}));
}

// max and min take the larger shadow of their operands (whichever is
// picked: the other may be within its error); the -inf that starts a max
// reduction (jax.nn.softmax) is exact and adds nothing.
TEST_F(ComparisonTest, MagnitudesOfMaxAndMin) {
  const char *src = R"(
func.func @f(%x: tensor<3xf32>, %y: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %ninf = lax.constant dense<0xFF800000> : tensor<3xf32>
  %0 = lax.max %ninf, %x : tensor<3xf32>
  %d = lax.sub %x, %y : tensor<3xf32>
  %1 = lax.min %d, %y : tensor<3xf32>
  return %0, %1 : tensor<3xf32>, tensor<3xf32>
})";
  Tensor x = f32({-1, 2, 0.5}), y = f32({-3, 0.5, 0.25});
  EXPECT_EQ(valuesOf(magnitudesOf(src, {x, y}, 0)), (std::vector<double>{1, 2, 0.5}));
  // min(x - y, y): x - y = [2, 1.5, 0.25] (S = [4, 2.5, 0.75]), y's S =
  // |y| = [3, 0.5, 0.25]: the larger of each pair.
  EXPECT_EQ(valuesOf(magnitudesOf(src, {x, y}, 1)), (std::vector<double>{4, 2.5, 0.75}));
}

// lax.scan carries the shadows of its carries; func.call calls a shadowed
// copy of the callee; select_n keeps the original condition.
TEST_F(ComparisonTest, MagnitudesThroughScanCallAndSelect) {
  const char *src = R"(
func.func private @g(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %0 = lax.sub %a, %b : tensor<f32>
  return %0 : tensor<f32>
}
func.func @f(%xs: tensor<3xf32>, %init: tensor<f32>) -> (tensor<f32>, tensor<3xf32>, tensor<3xf32>) {
  %r:2 = lax.scan length = 3 carry(%init) xs(%xs) : (tensor<f32>, tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>) {
  ^bb0(%c: tensor<f32>, %x: tensor<f32>):
    %n = func.call @g(%c, %x) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    lax.yield %n, %n : tensor<f32>, tensor<f32>
  }
  %z = lax.constant dense<0.0> : tensor<3xf32>
  %p = lax.compare GT, %xs, %z : tensor<3xf32>
  %s = lax.select_n %p, %r#1, %z : tensor<3xi1>, tensor<3xf32>, tensor<3xf32>
  return %r#0, %r#1, %s : tensor<f32>, tensor<3xf32>, tensor<3xf32>
})";
  Tensor xs = f32({1, -2, 3});
  Tensor init = makeTensor(ctx, "tensor<f32>", {-0.5});
  // Running sums of |init|, |x_i|: 1.5, 3.5, 6.5.
  EXPECT_EQ(valuesOf(magnitudesOf(src, {xs, init}, 0)), (std::vector<double>{6.5}));
  EXPECT_EQ(valuesOf(magnitudesOf(src, {xs, init}, 1)), (std::vector<double>{1.5, 3.5, 6.5}));
  // select_n(x > 0, ys, 0): case 1 (the zero) where x > 0.
  EXPECT_EQ(valuesOf(magnitudesOf(src, {xs, init}, 2)), (std::vector<double>{0, 3.5, 0}));
  // The magnitude version verifies and keeps the original function.
  std::string function, error;
  OwningOpRef<ModuleOp> copy = magnitudeModule(*module, "f", function, error);
  ASSERT_TRUE(copy) << error;
  EXPECT_EQ(function, "f__magnitudes");
  EXPECT_TRUE(copy->lookupSymbol("f"));
  EXPECT_TRUE(copy->lookupSymbol("g__shadowed"));
}

// lax.while carries the shadows (its predicate uses the real values, so the
// magnitude run takes as many steps); lax.cond passes and yields them;
// gather and scatter move them like the values; scatter-max takes the
// largest.
TEST_F(ComparisonTest, MagnitudesThroughWhileCondGatherScatter) {
  const char *src = R"(
func.func @f(%x: tensor<2xf32>, %k: tensor<2xf32>, %p: tensor<i1>, %i: tensor<2x1xi32>)
    -> (tensor<2xf32>, tensor<i32>, tensor<2xf32>, tensor<2xf32>, tensor<3xf32>, tensor<3xf32>) {
  %zero = lax.constant dense<0> : tensor<i32>
  %y, %n = lax.while carry(%x, %zero)
      : (tensor<2xf32>, tensor<i32>) -> (tensor<2xf32>, tensor<i32>)
  cond {
  ^bb0(%v: tensor<2xf32>, %j: tensor<i32>):
    %three = lax.constant dense<3> : tensor<i32>
    %t = lax.compare LT, %j, %three : tensor<i32>
    lax.yield %t : tensor<i1>
  } body {
  ^bb0(%v: tensor<2xf32>, %j: tensor<i32>):
    %w = lax.sub %v, %k : tensor<2xf32>
    %c1 = lax.constant dense<1> : tensor<i32>
    %j1 = lax.add %j, %c1 : tensor<i32>
    lax.yield %w, %j1 : tensor<2xf32>, tensor<i32>
  }
  %c = lax.cond %p (%x, %k) : (tensor<i1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  branch 0 {
  ^bb0(%a: tensor<2xf32>, %b: tensor<2xf32>):
    lax.yield %a : tensor<2xf32>
  } branch 1 {
  ^bb0(%a: tensor<2xf32>, %b: tensor<2xf32>):
    %r = lax.sub %a, %b : tensor<2xf32>
    lax.yield %r : tensor<2xf32>
  }
  %g = lax.gather %x[%i] offset_dims = [] collapsed_slice_dims = [0] start_index_map = [0]
      slice_sizes = [1] mode = clip : (tensor<2xf32>, tensor<2x1xi32>) -> tensor<2xf32>
  %base = lax.constant dense<[-1.0, 0.5, 4.0]> : tensor<3xf32>
  %sa = lax.scatter add %base[%i], %x update_window_dims = [] inserted_window_dims = [0]
      scatter_dims_to_operand_dims = [0] mode = fill_or_drop
      : (tensor<3xf32>, tensor<2x1xi32>, tensor<2xf32>) -> tensor<3xf32>
  %sm = lax.scatter min %base[%i], %x update_window_dims = [] inserted_window_dims = [0]
      scatter_dims_to_operand_dims = [0] mode = fill_or_drop
      : (tensor<3xf32>, tensor<2x1xi32>, tensor<2xf32>) -> tensor<3xf32>
  return %y, %n, %c, %g, %sa, %sm
      : tensor<2xf32>, tensor<i32>, tensor<2xf32>, tensor<2xf32>, tensor<3xf32>, tensor<3xf32>
})";
  Tensor x = f32({1, -2}), k = f32({0.5, -0.25});
  Tensor p = makeTensor(ctx, "tensor<i1>", {1});
  Tensor i = makeTensor(ctx, "tensor<2x1xi32>", {1, 0});
  std::vector<Tensor> in = {x, k, p, i};
  // Three steps of v - k: |x| + 3 |k|.
  EXPECT_EQ(valuesOf(magnitudesOf(src, in, 0)), (std::vector<double>{2.5, 2.75}));
  EXPECT_EQ(valuesOf(magnitudesOf(src, in, 1)), (std::vector<double>{3}));
  // Branch 1 runs: |x| + |k|.
  EXPECT_EQ(valuesOf(magnitudesOf(src, in, 2)), (std::vector<double>{1.5, 2.25}));
  EXPECT_EQ(valuesOf(magnitudesOf(src, in, 3)), (std::vector<double>{2, 1}));
  // base + x at [1, 0]: |base| + |x| there.
  EXPECT_EQ(valuesOf(magnitudesOf(src, in, 4)), (std::vector<double>{3, 1.5, 4}));
  // min(base, x) at [1, 0]: the larger magnitude of the two.
  EXPECT_EQ(valuesOf(magnitudesOf(src, in, 5)), (std::vector<double>{2, 1, 4}));
}

// End to end: a long f32 sum in two orders differs by far more than 64
// ulps of the result, but not of its terms; a perturbed result fails.
TEST_F(ComparisonTest, LongSumInAnotherOrder) {
  const int n = 821;
  std::mt19937 rng(0);
  std::uniform_real_distribution<float> uniform(-1, 1);
  std::vector<float> a(n), b(n);
  for (int i = 0; i < n; ++i) {
    a[i] = uniform(rng);
    b[i] = uniform(rng);
  }
  // Make the exact result small: cancel most of it with the last term.
  double dot = 0;
  for (int i = 0; i + 1 < n; ++i)
    dot += double(a[i]) * b[i];
  b[n - 1] = float(-dot / a[n - 1]);
  Tensor ta = makeTensor(ctx, "tensor<821xf32>", std::vector<double>(a.begin(), a.end()));
  Tensor tb = makeTensor(ctx, "tensor<821xf32>", std::vector<double>(b.begin(), b.end()));
  const char *src = R"(
func.func @f(%a: tensor<821xf32>, %b: tensor<821xf32>) -> tensor<f32> {
  %0 = lax.dot_general %a, %b contracting = [0] x [0] batch = [] x []
      : (tensor<821xf32>, tensor<821xf32>) -> tensor<f32>
  return %0 : tensor<f32>
})";
  Tensor mag = magnitudesOf(src, {ta, tb});
  SmallVector<Tensor> ref = interpretOrFail(*module, "f", {ta, tb});
  ASSERT_EQ(ref.size(), 1u);
  // Sequential f32 sums, forwards and backwards.
  float forward = 0, backward = 0;
  for (int i = 0; i < n; ++i)
    forward += a[i] * b[i];
  for (int i = n - 1; i >= 0; --i)
    backward += a[i] * b[i];
  for (float sum : {forward, backward}) {
    Tensor got = makeTensor(ctx, "tensor<f32>", {sum});
    OutputComparison c = compareOutput(got, ref[0], &mag);
    EXPECT_TRUE(c.ok()) << sum << " vs " << ref[0].getFloat(0) << ", mag " << mag.getFloat(0);
  }
  // 1000 ulps of the terms' magnitude off: wrong.
  Tensor wrong =
      makeTensor(ctx, "tensor<f32>", {ref[0].getFloat(0) + 1000 * kEps32 * mag.getFloat(0)});
  EXPECT_FALSE(compareOutput(wrong, ref[0], &mag).ok());
}

} // namespace
