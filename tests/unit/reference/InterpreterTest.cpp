//===- InterpreterTest.cpp - the reference interpreter --------------------===//
//
// Each op family against hand-computed values; scan against the same loop
// written out; dot_general against a naive loop; the seeds against
// independent computations.
//
//===----------------------------------------------------------------------===//
#include "reference/Interpreter.h"
#include "reference/Npy.h"
#include "tools/Registration.h"
#include "tests/unit/SourceFiles.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace mlir;
using namespace kiln::interp;

namespace {

class InterpreterTest : public ::testing::Test {
protected:
  InterpreterTest() {
    DialectRegistry registry;
    kiln::registerAllKilnDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  OwningOpRef<ModuleOp> parse(const std::string &source) {
    auto module = parseSourceString<ModuleOp>(source, &context);
    EXPECT_TRUE(module) << source;
    return module;
  }

  OwningOpRef<ModuleOp> parseExample(const std::string &name) {
    return parse(kiln::test::readSource("examples/seeds/" + name));
  }

  Tensor tensor(const std::string &typeText, std::vector<double> values) {
    auto type = cast<RankedTensorType>(parseType(typeText, &context));
    Tensor t(type);
    for (size_t i = 0; i < values.size(); ++i)
      t.isFloat() ? t.setFloat(i, values[i]) : t.setInt(i, int64_t(values[i]));
    return t;
  }

  /// Runs @f of `source` and returns output `index` as doubles.
  std::vector<double> run(const std::string &source, std::vector<Tensor> inputs,
                          unsigned index = 0) {
    auto module = parse(source);
    auto out = interpret(*module, "f", inputs);
    EXPECT_TRUE(succeeded(out));
    if (failed(out))
      return {};
    std::vector<double> values;
    for (int64_t i = 0; i < (*out)[index].size(); ++i)
      values.push_back((*out)[index].asDouble(i));
    return values;
  }

  MLIRContext context;
};

TEST_F(InterpreterTest, Elementwise) {
  // Every expected value differs from every input, and max takes each side
  // twice, so a wrong mul, sub, add or max (or operands swapped) shows:
  //   a * b     = {12, -3, -3, -1.25}
  //   a * b - a = {9, -1, -3.5, -6.25}
  //   a + b     = {7, -0.5, -5.5, 4.75}
  //   max       = {9, -0.5, -3.5, 4.75}
  auto a = tensor("tensor<4xf32>", {3, -2, 0.5, 5});
  auto b = tensor("tensor<4xf32>", {4, 1.5, -6, -0.25});
  EXPECT_EQ(run(R"(func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
      %0 = lax.mul %a, %b : tensor<4xf32>
      %1 = lax.sub %0, %a : tensor<4xf32>
      %2 = lax.add %a, %b : tensor<4xf32>
      %3 = lax.max %1, %2 : tensor<4xf32>
      return %3 : tensor<4xf32> })", {a, b}),
            (std::vector<double>{9, -0.5, -3.5, 4.75}));
  // -(a^3) = {-27, 8, -0.125, -125}.
  EXPECT_EQ(run(R"(func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
      %0 = lax.integer_pow %a y = 3 : tensor<4xf32>
      %1 = lax.neg %0 : tensor<4xf32>
      return %1 : tensor<4xf32> })", {a}),
            (std::vector<double>{-27, 8, -0.125, -125}));
  std::vector<double> logistic = run(R"(func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
      %0 = lax.logistic %a : tensor<4xf32>
      return %0 : tensor<4xf32> })", {a});
  EXPECT_NEAR(logistic[2], 1 / (1 + std::exp(-0.5)), 1e-7);
  // f32 rounding: 0.1 + 0.2 in f32 differs from the double sum.
  auto x = tensor("tensor<1xf32>", {0.1}), y = tensor("tensor<1xf32>", {0.2});
  EXPECT_EQ(run(R"(func.func @f(%a: tensor<1xf32>, %b: tensor<1xf32>) -> tensor<1xf32> {
      %0 = lax.add %a, %b : tensor<1xf32>
      return %0 : tensor<1xf32> })", {x, y})[0],
            double(float(0.1f) + float(0.2f)));
}

TEST_F(InterpreterTest, IntegersWrapAndDivideLikeXla) {
  auto a = tensor("tensor<4xi8>", {127, -128, 7, -7});
  auto b = tensor("tensor<4xi8>", {1, -1, 0, 2});
  EXPECT_EQ(run(R"(func.func @f(%a: tensor<4xi8>, %b: tensor<4xi8>) -> tensor<4xi8> {
      %0 = lax.add %a, %b : tensor<4xi8>
      return %0 : tensor<4xi8> })", {a, b}),
            (std::vector<double>{-128, 127, 7, -5}));
  EXPECT_EQ(run(R"(func.func @f(%a: tensor<4xi8>, %b: tensor<4xi8>) -> tensor<4xi8> {
      %0 = lax.div %a, %b : tensor<4xi8>
      return %0 : tensor<4xi8> })", {a, b}),
            (std::vector<double>{127, -128, -1, -3}));
  EXPECT_EQ(run(R"(func.func @f(%a: tensor<4xi8>, %b: tensor<4xi8>) -> tensor<4xi8> {
      %0 = lax.rem %a, %b : tensor<4xi8>
      return %0 : tensor<4xi8> })", {a, b}),
            (std::vector<double>{0, 0, 7, -1}));
}

TEST_F(InterpreterTest, CompareSelectConvert) {
  auto a = tensor("tensor<3xf32>", {1, 5, -2.7});
  auto b = tensor("tensor<3xf32>", {2, 5, -3});
  EXPECT_EQ(run(R"(func.func @f(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
      %p = lax.compare GE, %a, %b : tensor<3xf32>
      %0 = lax.select_n %p, %a, %b : tensor<3xi1>, tensor<3xf32>, tensor<3xf32>
      return %0 : tensor<3xf32> })", {a, b}),
            (std::vector<double>{1, 5, -3})); // select_n picks case 1 where true
  EXPECT_EQ(run(R"(func.func @f(%a: tensor<3xf32>) -> tensor<3xi32> {
      %0 = lax.convert_element_type %a : tensor<3xf32> -> tensor<3xi32>
      return %0 : tensor<3xi32> })", {a}),
            (std::vector<double>{1, 5, -2}));
}

TEST_F(InterpreterTest, Structure) {
  auto m = tensor("tensor<2x3xf32>", {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(run(R"(func.func @f(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
      %0 = lax.transpose %a permutation = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
      return %0 : tensor<3x2xf32> })", {m}),
            (std::vector<double>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(run(R"(func.func @f(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
      %0 = lax.rev %a dims = [1] : tensor<2x3xf32>
      return %0 : tensor<2x3xf32> })", {m}),
            (std::vector<double>{3, 2, 1, 6, 5, 4}));
  EXPECT_EQ(run(R"(func.func @f(%a: tensor<2x3xf32>) -> tensor<2x2xf32> {
      %0 = lax.slice %a start = [0, 0] limit = [2, 3] strides = [1, 2] : tensor<2x3xf32> -> tensor<2x2xf32>
      return %0 : tensor<2x2xf32> })", {m}),
            (std::vector<double>{1, 3, 4, 6}));
  auto v = tensor("tensor<3xf32>", {7, 8, 9});
  EXPECT_EQ(run(R"(func.func @f(%a: tensor<3xf32>) -> tensor<2x3xf32> {
      %0 = lax.broadcast_in_dim %a shape = [2, 3] dims = [1] : tensor<3xf32> -> tensor<2x3xf32>
      return %0 : tensor<2x3xf32> })", {v}),
            (std::vector<double>{7, 8, 9, 7, 8, 9}));
  EXPECT_EQ(run(R"(func.func @f(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<3x3xf32> {
      %r = lax.reshape %b : tensor<3xf32> -> tensor<1x3xf32>
      %0 = lax.concatenate %a, %r dim = 0 : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<3x3xf32>
      return %0 : tensor<3x3xf32> })", {m, v}),
            (std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8, 9}));
  EXPECT_EQ(run(R"(func.func @f() -> tensor<2x3xi32> {
      %0 = lax.iota dimension = 1 : tensor<2x3xi32>
      return %0 : tensor<2x3xi32> })", {}),
            (std::vector<double>{0, 1, 2, 0, 1, 2}));
  // Start indices are clamped as in JAX: 5 -> 1 (= 3 - 2).
  auto five = tensor("tensor<i32>", {5}), zero = tensor("tensor<i32>", {0});
  EXPECT_EQ(run(R"(func.func @f(%a: tensor<2x3xf32>, %i: tensor<i32>, %j: tensor<i32>) -> tensor<2x2xf32> {
      %0 = lax.dynamic_slice %a[%j, %i] sizes = [2, 2] : (tensor<2x3xf32>, tensor<i32>, tensor<i32>) -> tensor<2x2xf32>
      return %0 : tensor<2x2xf32> })", {m, five, zero}),
            (std::vector<double>{2, 3, 5, 6}));
  auto u = tensor("tensor<1x2xf32>", {-1, -2});
  EXPECT_EQ(run(R"(func.func @f(%a: tensor<2x3xf32>, %u: tensor<1x2xf32>, %i: tensor<i32>, %j: tensor<i32>) -> tensor<2x3xf32> {
      %0 = lax.dynamic_update_slice %a[%i, %j], %u : (tensor<2x3xf32>, tensor<1x2xf32>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>
      return %0 : tensor<2x3xf32> })", {m, u, five, five}),
            (std::vector<double>{1, 2, 3, 4, -1, -2}));
}

TEST_F(InterpreterTest, Reductions) {
  auto m = tensor("tensor<2x3xf32>", {1, 7, 3, 4, 5, -6});
  std::string body = R"(func.func @f(%a: tensor<2x3xf32>) -> (tensor<3xf32>, tensor<2xf32>, tensor<f32>, tensor<2xf32>, tensor<3xi32>) {
      %0 = lax.reduce_sum %a axes = [0] : tensor<2x3xf32> -> tensor<3xf32>
      %1 = lax.reduce_max %a axes = [1] : tensor<2x3xf32> -> tensor<2xf32>
      %2 = lax.reduce_min %a axes = [0, 1] : tensor<2x3xf32> -> tensor<f32>
      %3 = lax.reduce_prod %a axes = [1] : tensor<2x3xf32> -> tensor<2xf32>
      %4 = lax.argmax %a axes = [0] : tensor<2x3xf32> -> tensor<3xi32>
      return %0, %1, %2, %3, %4 : tensor<3xf32>, tensor<2xf32>, tensor<f32>, tensor<2xf32>, tensor<3xi32> })";
  EXPECT_EQ(run(body, {m}, 0), (std::vector<double>{5, 12, -3}));
  EXPECT_EQ(run(body, {m}, 1), (std::vector<double>{7, 5}));
  EXPECT_EQ(run(body, {m}, 2), (std::vector<double>{-6}));
  EXPECT_EQ(run(body, {m}, 3), (std::vector<double>{21, -120}));
  EXPECT_EQ(run(body, {m}, 4), (std::vector<double>{1, 0, 0}));
}

TEST_F(InterpreterTest, DotGeneralWithBatchMatchesNaiveLoop) {
  auto module = parse(R"(func.func @f(%a: tensor<3x2x4xf64>, %b: tensor<4x3x5xf64>) -> tensor<3x2x5xf64> {
      %0 = lax.dot_general %a, %b contracting = [2] x [0] batch = [0] x [1]
          : (tensor<3x2x4xf64>, tensor<4x3x5xf64>) -> tensor<3x2x5xf64>
      return %0 : tensor<3x2x5xf64> })");
  auto inputs = randomInputs(*module, "f", 1);
  ASSERT_TRUE(succeeded(inputs));
  auto out = interpret(*module, "f", *inputs);
  ASSERT_TRUE(succeeded(out));
  const Tensor &a = (*inputs)[0], &b = (*inputs)[1], &r = (*out)[0];
  for (int bt = 0; bt < 3; ++bt)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 5; ++j) {
        double acc = 0;
        for (int k = 0; k < 4; ++k)
          acc += a.getFloat((bt * 2 + i) * 4 + k) * b.getFloat((k * 3 + bt) * 5 + j);
        EXPECT_NEAR(r.getFloat((bt * 2 + i) * 5 + j), acc, 1e-12);
      }
}

// A reverse scan over axis 1 with a const, two carries and two ys (one
// stacked along axis 1), against the same loop written out by hand.
TEST_F(InterpreterTest, ScanMatchesTheLoopWrittenOut) {
  auto module = parse(R"(func.func @f(%k: tensor<2xf64>, %c0: tensor<2xf64>, %xs: tensor<2x4xf64>)
      -> (tensor<2xf64>, tensor<2xf64>, tensor<4x2xf64>, tensor<2x4xf64>) {
    %one = lax.constant dense<1.0> : tensor<2xf64>
    %r:4 = lax.scan length = 4 consts(%k) carry(%c0, %c0) xs(%xs)
        {reverse = true, xs_axes = array<i64: 1>, ys_axes = array<i64: 0, 1>}
        : (tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2x4xf64>)
          -> (tensor<2xf64>, tensor<2xf64>, tensor<4x2xf64>, tensor<2x4xf64>) {
    ^bb0(%kk: tensor<2xf64>, %s: tensor<2xf64>, %p: tensor<2xf64>, %x: tensor<2xf64>):
      %t = lax.mul %x, %kk : tensor<2xf64>
      %s2 = lax.add %s, %t : tensor<2xf64>
      %q = lax.add %p, %one : tensor<2xf64>
      %p2 = lax.mul %q, %x : tensor<2xf64>
      lax.yield %s2, %p2, %s2, %p : tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>
    }
    return %r#0, %r#1, %r#2, %r#3 : tensor<2xf64>, tensor<2xf64>, tensor<4x2xf64>, tensor<2x4xf64>
  })");
  auto inputs = randomInputs(*module, "f", 3);
  ASSERT_TRUE(succeeded(inputs));
  auto out = interpret(*module, "f", *inputs);
  ASSERT_TRUE(succeeded(out));
  const Tensor &k = (*inputs)[0], &c0 = (*inputs)[1], &xs = (*inputs)[2];
  for (int e = 0; e < 2; ++e) {
    double s = c0.getFloat(e), p = c0.getFloat(e);
    double ys0[4], ys1[4];
    for (int step = 0; step < 4; ++step) {
      int i = 3 - step;
      double x = xs.getFloat(e * 4 + i);
      double pOld = p;
      s = s + x * k.getFloat(e);
      p = (p + 1) * x;
      ys0[i] = s;
      ys1[i] = pOld;
    }
    EXPECT_DOUBLE_EQ((*out)[0].getFloat(e), s);
    EXPECT_DOUBLE_EQ((*out)[1].getFloat(e), p);
    for (int i = 0; i < 4; ++i) {
      EXPECT_DOUBLE_EQ((*out)[2].getFloat(i * 2 + e), ys0[i]); // stacked on axis 0
      EXPECT_DOUBLE_EQ((*out)[3].getFloat(e * 4 + i), ys1[i]); // stacked on axis 1
    }
  }
}

TEST_F(InterpreterTest, Seed003TdmaSolvesTheSystems) {
  auto module = parseExample("seed003_tdma.mlir");
  auto inputs = randomInputs(*module, "tdma", 5);
  ASSERT_TRUE(succeeded(inputs));
  // Make b diagonally dominant: b in [3, 4].
  Tensor &b = (*inputs)[1];
  for (int64_t i = 0; i < b.size(); ++i)
    b.setFloat(i, 3.5 + 0.5 * b.getFloat(i));
  auto out = interpret(*module, "tdma", *inputs);
  ASSERT_TRUE(succeeded(out));
  const Tensor &a = (*inputs)[0], &c = (*inputs)[2], &d = (*inputs)[3], &x = (*out)[0];
  double worst = 0;
  for (int s = 0; s < 1000; ++s)
    for (int i = 0; i < 100; ++i) {
      int k = s * 100 + i;
      double lhs = b.getFloat(k) * x.getFloat(k);
      if (i > 0)
        lhs += a.getFloat(k) * x.getFloat(k - 1);
      if (i < 99)
        lhs += c.getFloat(k) * x.getFloat(k + 1);
      worst = std::max(worst, std::fabs(lhs - d.getFloat(k)));
    }
  EXPECT_LT(worst, 1e-5);
}

TEST_F(InterpreterTest, Seed000F1AndF2Agree) {
  auto f1 = parseExample("seed000_f1.mlir"), f2 = parseExample("seed000_f2.mlir");
  auto inputs = randomInputs(*f1, "f1", 11);
  ASSERT_TRUE(succeeded(inputs));
  auto r1 = interpret(*f1, "f1", *inputs), r2 = interpret(*f2, "f2", *inputs);
  ASSERT_TRUE(succeeded(r1) && succeeded(r2));
  for (int64_t i = 0; i < (*r1)[0].size(); i += 997)
    EXPECT_EQ((*r1)[0].getFloat(i), (*r2)[0].getFloat(i));
}

TEST_F(InterpreterTest, Seed002BeforeAndAfterAgree) {
  auto before = parseExample("seed002_mse_before.mlir");
  auto after = parseExample("seed002_mse_after.mlir");
  auto inputs = randomInputs(*before, "mse", 2);
  ASSERT_TRUE(succeeded(inputs));
  auto r1 = interpret(*before, "mse", *inputs), r2 = interpret(*after, "mse", *inputs);
  ASSERT_TRUE(succeeded(r1) && succeeded(r2));
  EXPECT_NEAR((*r1)[0].getFloat(0), (*r2)[0].getFloat(0), 1e-6 * (*r1)[0].getFloat(0));
  InterpreterOptions f64;
  f64.f64Reference = true;
  auto reference = interpret(*before, "mse", *inputs, f64);
  ASSERT_TRUE(succeeded(reference));
  EXPECT_NEAR((*r1)[0].getFloat(0), (*reference)[0].getFloat(0), 1e-6);
}

TEST_F(InterpreterTest, ErrorsAreDiagnostics) {
  std::string messages;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
    messages += d.str() + "\n";
    return success();
  });
  auto module = parse(R"(func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> { return %a : tensor<2xf32> })");
  EXPECT_TRUE(failed(interpret(*module, "g", {})));
  EXPECT_TRUE(failed(interpret(*module, "f", {})));
  EXPECT_TRUE(failed(interpret(*module, "f", {tensor("tensor<3xf32>", {1, 2, 3})})));
  EXPECT_NE(messages.find("no function named 'g'"), std::string::npos) << messages;
  EXPECT_NE(messages.find("expected 1 inputs, got 0"), std::string::npos) << messages;
  EXPECT_NE(messages.find("input #0 has type 'tensor<3xf32>', expected 'tensor<2xf32>'"),
            std::string::npos)
      << messages;
}

TEST_F(InterpreterTest, NpyRoundTripEveryDtype) {
  for (const char *typeText : {"tensor<2x3xf32>", "tensor<2x3xf64>", "tensor<2x3xf16>",
                               "tensor<2x3xi1>", "tensor<2x3xi8>", "tensor<2x3xi32>",
                               "tensor<2x3xi64>", "tensor<2x3xui32>", "tensor<f32>", "tensor<5xf32>"}) {
    auto type = cast<RankedTensorType>(parseType(typeText, &context));
    Tensor t = Tensor::random(type, 9);
    std::string error;
    auto back = parseNpy(serializeNpy(t), "mem.npy", &context, error);
    ASSERT_TRUE(succeeded(back)) << error;
    EXPECT_EQ(back->getType(), type);
    for (int64_t i = 0; i < t.size(); ++i)
      EXPECT_EQ(back->asDouble(i), t.asDouble(i)) << typeText;
  }
}

TEST_F(InterpreterTest, FortranOrderNpyFilesAreReadColumnMajor) {
  // The file's elements 1..6 of a (2, 3) array in column-major order:
  // element k is [k % 2, k / 2], so the rows are [1, 3, 5] and [2, 4, 6].
  Tensor t = tensor("tensor<2x3xf32>", {1, 2, 3, 4, 5, 6});
  std::string bytes = serializeNpy(t), error;
  bytes.replace(bytes.find("False"), 5, "True ");
  auto read = parseNpy(bytes, "fortran.npy", &context, error);
  ASSERT_TRUE(succeeded(read)) << error;
  std::vector<double> want = {1, 3, 5, 2, 4, 6};
  for (int64_t i = 0; i < 6; ++i)
    EXPECT_EQ(read->getFloat(i), want[i]) << i;
}

TEST_F(InterpreterTest, BadNpyFilesAreRejected) {
  Tensor t = tensor("tensor<4xf32>", {1, 2, 3, 4});
  std::string good = serializeNpy(t), error;
  auto expectError = [&](std::string bytes, const char *what) {
    error.clear();
    EXPECT_TRUE(failed(parseNpy(bytes, "bad.npy", &context, error))) << what;
    EXPECT_NE(error.find(what), std::string::npos) << what << " | " << error;
    EXPECT_EQ(error.rfind("bad.npy: ", 0), 0u) << error;
  };
  expectError("hello world", "bad magic");
  expectError(good.substr(0, good.size() - 3), "expected 16 bytes of data");
  std::string order = good;
  order.replace(order.find("False"), 5, "Maybe");
  expectError(order, "'fortran_order' must be True or False");
  std::string dtype = good;
  dtype.replace(dtype.find("<f4"), 3, "<c8");
  expectError(dtype, "unsupported dtype '<c8'");
  expectError(good.substr(0, 20), "truncated header");
}

} // namespace
