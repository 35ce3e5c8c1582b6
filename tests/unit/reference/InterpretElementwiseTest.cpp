//===- InterpretElementwiseTest.cpp - elementwise ops in the interpreter --===//
//
// Every elementwise lax op on small inputs against hand-computed values:
// float rounding to the declared type, integer wrap-around and XLA's integer
// division corner cases, NaN propagation of max/min, compare, select_n and
// conversions.
//
//===----------------------------------------------------------------------===//
#include "tests/unit/reference/InterpreterTesting.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace kiln::interp;
using namespace kiln::interp::testing;

namespace {

class InterpretElementwiseTest : public ::testing::Test {
protected:
  /// Runs `@f(%a: type, %b: type)` whose body is `body` (the result named %r
  /// of type `resultType`) on a and b.
  std::vector<double> binary(StringRef op, StringRef type, ArrayRef<double> a,
                             ArrayRef<double> b, StringRef resultType = "") {
    std::string rt = resultType.empty() ? type.str() : resultType.str();
    std::string source = "func.func @f(%a: " + type.str() + ", %b: " + type.str() + ") -> " +
                         rt + " {\n  %r = " + op.str() + "\n  return %r : " + rt + "\n}\n";
    return run(source, {makeTensor(context, type, a), makeTensor(context, type, b)});
  }
  std::vector<double> unary(StringRef op, StringRef type, ArrayRef<double> a,
                            StringRef resultType = "") {
    std::string rt = resultType.empty() ? type.str() : resultType.str();
    std::string source = "func.func @f(%a: " + type.str() + ") -> " + rt + " {\n  %r = " +
                         op.str() + "\n  return %r : " + rt + "\n}\n";
    return run(source, {makeTensor(context, type, a)});
  }
  std::vector<double> run(StringRef source, ArrayRef<Tensor> inputs,
                          InterpreterOptions options = {}) {
    module = parseModule(context, source);
    if (!module)
      return {};
    SmallVector<Tensor> results = interpretOrFail(*module, "f", inputs, options);
    if (results.size() != 1)
      return {};
    return valuesOf(results[0]);
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

using Values = std::vector<double>;

TEST_F(InterpretElementwiseTest, FloatArithmetic) {
  Values a = {1.5, -2, 3, 0.25}, b = {0.5, 4, -2, 8};
  EXPECT_EQ(binary("lax.add %a, %b : tensor<4xf32>", "tensor<4xf32>", a, b),
            (Values{2, 2, 1, 8.25}));
  EXPECT_EQ(binary("lax.sub %a, %b : tensor<4xf32>", "tensor<4xf32>", a, b),
            (Values{1, -6, 5, -7.75}));
  EXPECT_EQ(binary("lax.mul %a, %b : tensor<4xf32>", "tensor<4xf32>", a, b),
            (Values{0.75, -8, -6, 2}));
  EXPECT_EQ(binary("lax.div %a, %b : tensor<4xf32>", "tensor<4xf32>", a, b),
            (Values{3, -0.5, -1.5, 0.03125}));
  // rem is fmod: the sign of the dividend.
  EXPECT_EQ(binary("lax.rem %a, %b : tensor<3xf32>", "tensor<3xf32>", {7, -7, 5.5}, {3, 3, -2}),
            (Values{1, -1, 1.5}));
  EXPECT_EQ(binary("lax.pow %a, %b : tensor<3xf32>", "tensor<3xf32>", {2, 9, 4}, {10, 0.5, -1}),
            (Values{1024, 3, 0.25}));
}

TEST_F(InterpretElementwiseTest, FloatResultsAreRoundedToTheDeclaredType) {
  // 1/3 in f32, f16 and bf16 (round to nearest even), and exactly in f64.
  Values third = {1.0 / 3.0};
  EXPECT_EQ(binary("lax.div %a, %b : tensor<1xf32>", "tensor<1xf32>", {1}, {3}),
            (Values{double(1.0f / 3.0f)}));
  EXPECT_EQ(binary("lax.div %a, %b : tensor<1xf64>", "tensor<1xf64>", {1}, {3}), third);
  EXPECT_EQ(binary("lax.div %a, %b : tensor<1xf16>", "tensor<1xf16>", {1}, {3}),
            (Values{0.333251953125}));
  EXPECT_EQ(binary("lax.div %a, %b : tensor<1xbf16>", "tensor<1xbf16>", {1}, {3}),
            (Values{0.333984375}));
  // f32: 1 + 2^-30 rounds back to 1; the f64 reference mode keeps it.
  std::string src = "func.func @f(%a: tensor<1xf32>, %b: tensor<1xf32>) -> tensor<1xf32> {\n"
                    "  %r = lax.add %a, %b : tensor<1xf32>\n  return %r : tensor<1xf32>\n}\n";
  Tensor one = makeTensor(context, "tensor<1xf32>", {1});
  Tensor tiny = makeTensor(context, "tensor<1xf32>", {std::ldexp(1.0, -30)});
  EXPECT_EQ(run(src, {one, tiny}), (Values{1}));
  InterpreterOptions f64;
  f64.f64Reference = true;
  EXPECT_EQ(run(src, {one, tiny}, f64), (Values{1 + std::ldexp(1.0, -30)}));
  // f16 overflows to infinity.
  EXPECT_EQ(binary("lax.mul %a, %b : tensor<1xf16>", "tensor<1xf16>", {300}, {300}),
            (Values{INFINITY}));
}

TEST_F(InterpretElementwiseTest, MaxMinPropagateNaN) {
  Values r = binary("lax.max %a, %b : tensor<3xf32>", "tensor<3xf32>", {NAN, 1, 2}, {0, NAN, -1});
  ASSERT_EQ(r.size(), 3u);
  EXPECT_TRUE(std::isnan(r[0]) && std::isnan(r[1]));
  EXPECT_EQ(r[2], 2);
  r = binary("lax.min %a, %b : tensor<3xf32>", "tensor<3xf32>", {NAN, 1, 2}, {0, NAN, -1});
  ASSERT_EQ(r.size(), 3u);
  EXPECT_TRUE(std::isnan(r[0]) && std::isnan(r[1]));
  EXPECT_EQ(r[2], -1);
}

TEST_F(InterpretElementwiseTest, IntegerArithmeticWrapsAndDividesLikeXla) {
  // i8 wraps: 100 + 100 = -56, -128 * -1 = -128.
  EXPECT_EQ(binary("lax.add %a, %b : tensor<2xi8>", "tensor<2xi8>", {100, -128}, {100, -1}),
            (Values{-56, 127}));
  EXPECT_EQ(binary("lax.mul %a, %b : tensor<1xi8>", "tensor<1xi8>", {-128}, {-1}),
            (Values{-128}));
  // Division truncates toward zero; x / 0 = -1; x % 0 = x; remainder takes the
  // dividend's sign.
  EXPECT_EQ(binary("lax.div %a, %b : tensor<4xi32>", "tensor<4xi32>", {7, -7, 7, 5}, {2, 2, 0, -1}),
            (Values{3, -3, -1, -5}));
  EXPECT_EQ(binary("lax.rem %a, %b : tensor<4xi32>", "tensor<4xi32>", {7, -7, 7, 5}, {2, 2, 0, -1}),
            (Values{1, -1, 7, 0}));
  // i32 overflow wraps.
  EXPECT_EQ(binary("lax.add %a, %b : tensor<1xi32>", "tensor<1xi32>", {2147483647}, {1}),
            (Values{-2147483648.0}));
  // ui32: 0 - 1 = 2^32 - 1; comparisons and max are unsigned.
  EXPECT_EQ(binary("lax.sub %a, %b : tensor<1xui32>", "tensor<1xui32>", {0}, {1}),
            (Values{4294967295.0}));
  EXPECT_EQ(binary("lax.max %a, %b : tensor<2xui32>", "tensor<2xui32>", {4294967295.0, 3}, {1, 5}),
            (Values{4294967295.0, 5}));
  EXPECT_EQ(binary("lax.div %a, %b : tensor<1xui32>", "tensor<1xui32>", {4294967295.0}, {2}),
            (Values{2147483647}));
  EXPECT_EQ(binary("lax.compare LT, %a, %b : tensor<2xui32>", "tensor<2xui32>",
                   {4294967295.0, 1}, {1, 4294967295.0}, "tensor<2xi1>"),
            (Values{0, 1}));
  // i64 min / -1 does not trap.
  EXPECT_EQ(binary("lax.div %a, %b : tensor<1xi64>", "tensor<1xi64>",
                   {double(std::numeric_limits<int64_t>::min())}, {-1}),
            (Values{double(std::numeric_limits<int64_t>::min())}));
}

TEST_F(InterpretElementwiseTest, LogicalOps) {
  EXPECT_EQ(binary("lax.and %a, %b : tensor<4xi1>", "tensor<4xi1>", {0, 0, 1, 1}, {0, 1, 0, 1}),
            (Values{0, 0, 0, 1}));
  EXPECT_EQ(binary("lax.or %a, %b : tensor<4xi1>", "tensor<4xi1>", {0, 0, 1, 1}, {0, 1, 0, 1}),
            (Values{0, 1, 1, 1}));
  EXPECT_EQ(unary("lax.not %a : tensor<2xi1>", "tensor<2xi1>", {0, 1}), (Values{1, 0}));
  // Bitwise on integers.
  EXPECT_EQ(binary("lax.and %a, %b : tensor<2xi32>", "tensor<2xi32>", {12, -1}, {10, 7}),
            (Values{8, 7}));
  EXPECT_EQ(binary("lax.or %a, %b : tensor<1xi32>", "tensor<1xi32>", {12}, {3}), (Values{15}));
  EXPECT_EQ(unary("lax.not %a : tensor<2xi32>", "tensor<2xi32>", {0, 5}), (Values{-1, -6}));
}

TEST_F(InterpretElementwiseTest, UnaryFloatOps) {
  auto f32 = [](double v) { return double(float(v)); };
  EXPECT_EQ(unary("lax.neg %a : tensor<2xf32>", "tensor<2xf32>", {1.5, -2}), (Values{-1.5, 2}));
  EXPECT_EQ(unary("lax.abs %a : tensor<2xf32>", "tensor<2xf32>", {1.5, -2}), (Values{1.5, 2}));
  EXPECT_EQ(unary("lax.sign %a : tensor<3xf32>", "tensor<3xf32>", {3, -0.5, 0}),
            (Values{1, -1, 0}));
  EXPECT_EQ(unary("lax.square %a : tensor<2xf32>", "tensor<2xf32>", {3, -0.5}),
            (Values{9, 0.25}));
  EXPECT_EQ(unary("lax.sqrt %a : tensor<2xf32>", "tensor<2xf32>", {9, 2}),
            (Values{3, f32(std::sqrt(2.0))}));
  EXPECT_EQ(unary("lax.rsqrt %a : tensor<2xf32>", "tensor<2xf32>", {4, 2}),
            (Values{0.5, f32(1 / std::sqrt(2.0))}));
  EXPECT_EQ(unary("lax.exp %a : tensor<2xf32>", "tensor<2xf32>", {0, 1}),
            (Values{1, f32(std::exp(1.0))}));
  EXPECT_EQ(unary("lax.log %a : tensor<2xf32>", "tensor<2xf32>", {1, 2}),
            (Values{0, f32(std::log(2.0))}));
  EXPECT_EQ(unary("lax.log1p %a : tensor<1xf32>", "tensor<1xf32>", {1e-3}),
            (Values{f32(std::log1p(double(float(1e-3))))}));
  EXPECT_EQ(unary("lax.sin %a : tensor<2xf32>", "tensor<2xf32>", {0, 1}),
            (Values{0, f32(std::sin(1.0))}));
  EXPECT_EQ(unary("lax.cos %a : tensor<2xf32>", "tensor<2xf32>", {0, 1}),
            (Values{1, f32(std::cos(1.0))}));
  EXPECT_EQ(unary("lax.tanh %a : tensor<2xf32>", "tensor<2xf32>", {0, 1}),
            (Values{0, f32(std::tanh(1.0))}));
  EXPECT_EQ(unary("lax.logistic %a : tensor<2xf32>", "tensor<2xf32>", {0, 2}),
            (Values{0.5, f32(1 / (1 + std::exp(-2.0)))}));
  EXPECT_EQ(unary("lax.integer_pow %a y = 3 : tensor<2xf32>", "tensor<2xf32>", {2, -1.5}),
            (Values{8, -3.375}));
  EXPECT_EQ(unary("lax.integer_pow %a y = -2 : tensor<2xf32>", "tensor<2xf32>", {2, 4}),
            (Values{0.25, 0.0625}));
  Values nanSqrt = unary("lax.sqrt %a : tensor<1xf32>", "tensor<1xf32>", {-1});
  ASSERT_EQ(nanSqrt.size(), 1u);
  EXPECT_TRUE(std::isnan(nanSqrt[0]));
}

TEST_F(InterpretElementwiseTest, UnaryIntegerOps) {
  EXPECT_EQ(unary("lax.neg %a : tensor<2xi8>", "tensor<2xi8>", {5, -128}), (Values{-5, -128}));
  EXPECT_EQ(unary("lax.abs %a : tensor<2xi32>", "tensor<2xi32>", {-7, 7}), (Values{7, 7}));
  EXPECT_EQ(unary("lax.sign %a : tensor<3xi32>", "tensor<3xi32>", {-7, 0, 9}),
            (Values{-1, 0, 1}));
  EXPECT_EQ(unary("lax.square %a : tensor<1xi8>", "tensor<1xi8>", {12}), (Values{-112}));
  EXPECT_EQ(unary("lax.integer_pow %a y = 3 : tensor<2xi32>", "tensor<2xi32>", {-2, 5}),
            (Values{-8, 125}));
}

TEST_F(InterpretElementwiseTest, Compare) {
  Values a = {1, 2, 3, NAN}, b = {2, 2, 2, NAN};
  auto cmp = [&](StringRef dir) {
    return binary(("lax.compare " + dir + ", %a, %b : tensor<4xf32>").str(), "tensor<4xf32>",
                  a, b, "tensor<4xi1>");
  };
  EXPECT_EQ(cmp("EQ"), (Values{0, 1, 0, 0}));
  EXPECT_EQ(cmp("NE"), (Values{1, 0, 1, 1}));
  EXPECT_EQ(cmp("LT"), (Values{1, 0, 0, 0}));
  EXPECT_EQ(cmp("LE"), (Values{1, 1, 0, 0}));
  EXPECT_EQ(cmp("GT"), (Values{0, 0, 1, 0}));
  EXPECT_EQ(cmp("GE"), (Values{0, 1, 1, 0}));
  EXPECT_EQ(binary("lax.compare LT, %a, %b : tensor<2xi32>", "tensor<2xi32>", {-3, 4}, {2, -5},
                   "tensor<2xi1>"),
            (Values{1, 0}));
}

TEST_F(InterpretElementwiseTest, SelectN) {
  std::string twoCases = R"(
    func.func @f(%p: tensor<3xi1>, %x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<3xf32> {
      %r = lax.select_n %p, %x, %y : tensor<3xi1>, tensor<3xf32>, tensor<3xf32>
      return %r : tensor<3xf32>
    })";
  EXPECT_EQ(run(twoCases, {makeTensor(context, "tensor<3xi1>", {0, 1, 0}),
                           makeTensor(context, "tensor<3xf32>", {1, 2, 3}),
                           makeTensor(context, "tensor<3xf32>", {10, 20, 30})}),
            (Values{1, 20, 3}));
  std::string threeCases = R"(
    func.func @f(%w: tensor<3xi32>, %x: tensor<3xf32>, %y: tensor<3xf32>, %z: tensor<3xf32>) -> tensor<3xf32> {
      %r = lax.select_n %w, %x, %y, %z : tensor<3xi32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
      return %r : tensor<3xf32>
    })";
  EXPECT_EQ(run(threeCases, {makeTensor(context, "tensor<3xi32>", {2, 0, 1}),
                             makeTensor(context, "tensor<3xf32>", {1, 2, 3}),
                             makeTensor(context, "tensor<3xf32>", {10, 20, 30}),
                             makeTensor(context, "tensor<3xf32>", {100, 200, 300})}),
            (Values{100, 2, 30}));
}

TEST_F(InterpretElementwiseTest, ConvertElementType) {
  // Float to int truncates toward zero and saturates; NaN becomes 0.
  EXPECT_EQ(unary("lax.convert_element_type %a : tensor<5xf32> -> tensor<5xi8>", "tensor<5xf32>",
                  {2.7, -2.7, 1000, -1000, NAN}, "tensor<5xi8>"),
            (Values{2, -2, 127, -128, 0}));
  EXPECT_EQ(unary("lax.convert_element_type %a : tensor<2xf32> -> tensor<2xui32>",
                  "tensor<2xf32>", {-5, 7.9}, "tensor<2xui32>"),
            (Values{0, 7}));
  // i64 saturates at both ends (2^63 - 1 is not a double).
  module = parseModule(context, R"(func.func @f(%a: tensor<3xf32>) -> tensor<3xi64> {
      %r = lax.convert_element_type %a : tensor<3xf32> -> tensor<3xi64>
      return %r : tensor<3xi64>
    })");
  ASSERT_TRUE(module);
  SmallVector<Tensor> big =
      interpretOrFail(*module, "f", {makeTensor(context, "tensor<3xf32>", {1e30, -1e30, -3.5})});
  ASSERT_EQ(big.size(), 1u);
  EXPECT_EQ(big[0].getInt(0), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(big[0].getInt(1), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(big[0].getInt(2), -3);
  // Int to int wraps; anything nonzero is true.
  EXPECT_EQ(unary("lax.convert_element_type %a : tensor<2xi32> -> tensor<2xi8>", "tensor<2xi32>",
                  {300, -129}, "tensor<2xi8>"),
            (Values{44, 127}));
  EXPECT_EQ(unary("lax.convert_element_type %a : tensor<3xi32> -> tensor<3xi1>", "tensor<3xi32>",
                  {0, 2, -1}, "tensor<3xi1>"),
            (Values{0, 1, 1}));
  EXPECT_EQ(unary("lax.convert_element_type %a : tensor<2xf32> -> tensor<2xi1>", "tensor<2xf32>",
                  {0, 0.5}, "tensor<2xi1>"),
            (Values{0, 1}));
  // Float to float rounds; int to float.
  EXPECT_EQ(unary("lax.convert_element_type %a : tensor<1xf64> -> tensor<1xf32>",
                  "tensor<1xf64>", {0.1}, "tensor<1xf32>"),
            (Values{double(0.1f)}));
  EXPECT_EQ(unary("lax.convert_element_type %a : tensor<1xf32> -> tensor<1xbf16>",
                  "tensor<1xf32>", {1.0 + 1.0 / 256}, "tensor<1xbf16>"),
            (Values{1}));
  EXPECT_EQ(unary("lax.convert_element_type %a : tensor<2xi1> -> tensor<2xf32>", "tensor<2xi1>",
                  {1, 0}, "tensor<2xf32>"),
            (Values{1, 0}));
  EXPECT_EQ(unary("lax.convert_element_type %a : tensor<1xui32> -> tensor<1xf64>",
                  "tensor<1xui32>", {4294967295.0}, "tensor<1xf64>"),
            (Values{4294967295.0}));
}

} // namespace
