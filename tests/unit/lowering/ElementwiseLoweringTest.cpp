//===- ElementwiseLoweringTest.cpp - JIT vs hand values, elementwise ------===//
#include "tests/unit/lowering/LoweringTestUtils.h"

#include <cmath>

using namespace kiln;
using namespace kiln::test;

namespace {

/// One unary f32 op on a fixed input vs a reference function.
void checkUnary(const std::string &op, float (*ref)(float),
                std::vector<float> x = {-2.5f, -1.0f, -0.25f, 0.0f, 0.5f, 1.0f,
                                        3.0f, 7.5f}) {
  std::string src = "func.func @main(%a: tensor<8xf32>) -> tensor<8xf32> {\n"
                    "  %r = lax." +
                    op +
                    " %a : tensor<8xf32>\n"
                    "  return %r : tensor<8xf32>\n}\n";
  auto exe = jit(src);
  ASSERT_TRUE(exe);
  std::vector<float> want;
  for (float v : x)
    want.push_back(ref(v));
  expectNear(run1<float>(*exe, x), want, 1e-5f);
}

TEST(ElementwiseLowering, UnaryFloat) {
  checkUnary("neg", [](float v) { return -v; });
  checkUnary("abs", [](float v) { return std::fabs(v); });
  checkUnary("sign",
             [](float v) { return v > 0 ? 1.0f : (v < 0 ? -1.0f : v); });
  checkUnary("exp", [](float v) { return std::exp(v); });
  checkUnary("tanh", [](float v) { return std::tanh(v); });
  checkUnary("sin", [](float v) { return std::sin(v); });
  checkUnary("cos", [](float v) { return std::cos(v); });
  checkUnary("square", [](float v) { return v * v; });
  checkUnary("logistic", [](float v) { return 1.0f / (1.0f + std::exp(-v)); });
  std::vector<float> pos = {0.25f, 0.5f, 1.0f, 2.0f, 3.0f, 4.0f, 9.0f, 100.0f};
  checkUnary(
      "log", [](float v) { return std::log(v); }, pos);
  checkUnary(
      "log1p", [](float v) { return std::log1p(v); }, pos);
  checkUnary(
      "sqrt", [](float v) { return std::sqrt(v); }, pos);
  checkUnary(
      "rsqrt", [](float v) { return 1.0f / std::sqrt(v); }, pos);
}

TEST(ElementwiseLowering, BinaryFloat) {
  const char *src = R"(
func.func @main(%a: tensor<6xf32>, %b: tensor<6xf32>) -> tensor<6xf32> {
  %0 = lax.add %a, %b : tensor<6xf32>
  %1 = lax.mul %0, %b : tensor<6xf32>
  %2 = lax.sub %1, %a : tensor<6xf32>
  %3 = lax.div %2, %b : tensor<6xf32>
  %4 = lax.max %3, %a : tensor<6xf32>
  %5 = lax.min %4, %b : tensor<6xf32>
  %6 = lax.rem %5, %b : tensor<6xf32>
  %7 = lax.pow %b, %a : tensor<6xf32>
  %8 = lax.add %6, %7 : tensor<6xf32>
  %9 = lax.integer_pow %8 y = 3 : tensor<6xf32>
  %10 = lax.integer_pow %b y = -2 : tensor<6xf32>
  %11 = lax.add %9, %10 : tensor<6xf32>
  return %11 : tensor<6xf32>
})";
  auto exe = jit(src);
  ASSERT_TRUE(exe);
  std::vector<float> a = {1.5f, -2.0f, 0.5f, 3.0f, -0.75f, 2.0f};
  std::vector<float> b = {2.0f, 0.5f, 1.25f, 3.5f, 1.5f, 0.75f};
  std::vector<float> want;
  for (size_t i = 0; i < a.size(); ++i) {
    float x = a[i], y = b[i];
    float v = ((x + y) * y - x) / y;
    v = std::fmin(std::fmax(v, x), y);
    v = std::fmod(v, y) + std::pow(y, x);
    want.push_back(v * v * v + 1.0f / (y * y));
  }
  expectNear(run1<float>(*exe, a, b), want, 1e-5f);
}

TEST(ElementwiseLowering, IntegerOps) {
  const char *src = R"(
func.func @main(%a: tensor<6xi32>, %b: tensor<6xi32>) -> tensor<6xi32> {
  %0 = lax.div %a, %b : tensor<6xi32>
  %1 = lax.rem %a, %b : tensor<6xi32>
  %2 = lax.mul %0, %1 : tensor<6xi32>
  %3 = lax.and %2, %b : tensor<6xi32>
  %4 = lax.or %3, %0 : tensor<6xi32>
  %5 = lax.not %4 : tensor<6xi32>
  %6 = lax.abs %5 : tensor<6xi32>
  %7 = lax.sign %a : tensor<6xi32>
  %8 = lax.add %6, %7 : tensor<6xi32>
  %9 = lax.integer_pow %8 y = 2 : tensor<6xi32>
  return %9 : tensor<6xi32>
})";
  auto exe = jit(src);
  ASSERT_TRUE(exe);
  std::vector<int32_t> a = {7, -7, 9, -9, 0, 100};
  std::vector<int32_t> b = {2, 2, -4, -4, 3, 7};
  std::vector<int32_t> want;
  for (size_t i = 0; i < a.size(); ++i) {
    int32_t q = a[i] / b[i], r = a[i] % b[i]; // C truncation, as JAX
    int32_t v = ~(((q * r) & b[i]) | q);
    v = std::abs(v) + (a[i] > 0) - (a[i] < 0);
    want.push_back(v * v);
  }
  EXPECT_EQ(run1<int32_t>(*exe, a, b), want);
}

TEST(ElementwiseLowering, CompareSelectConvert) {
  const char *src = R"(
func.func @main(%a: tensor<5xf32>, %b: tensor<5xf32>) -> tensor<5xf32> {
  %lt = lax.compare LT, %a, %b : tensor<5xf32>
  %ne = lax.compare NE, %a, %a : tensor<5xf32>
  %s = lax.select_n %lt, %a, %b : tensor<5xi1>, tensor<5xf32>, tensor<5xf32>
  %i = lax.convert_element_type %s : tensor<5xf32> -> tensor<5xi32>
  %which = lax.convert_element_type %lt : tensor<5xi1> -> tensor<5xi32>
  %s3 = lax.select_n %which, %i, %i, %i : tensor<5xi32>, tensor<5xi32>, tensor<5xi32>, tensor<5xi32>
  %f = lax.convert_element_type %s3 : tensor<5xi32> -> tensor<5xf32>
  %nf = lax.convert_element_type %ne : tensor<5xi1> -> tensor<5xf32>
  %d = lax.convert_element_type %f : tensor<5xf32> -> tensor<5xf64>
  %back = lax.convert_element_type %d : tensor<5xf64> -> tensor<5xf32>
  %r = lax.add %back, %nf : tensor<5xf32>
  return %r : tensor<5xf32>
})";
  auto exe = jit(src);
  ASSERT_TRUE(exe);
  std::vector<float> a = {1.7f, -2.5f, 3.0f, NAN, 0.2f};
  std::vector<float> b = {2.0f, -3.0f, 3.0f, 1.0f, 9.9f};
  // select_n(p, x, y) picks y where p: lt ? b : a; NaN < 1 is false -> a =
  // NaN, whose f32->i32 conversion we do not assert on.
  auto got = run1<float>(*exe, a, b);
  EXPECT_EQ(got[0], 2.0f);
  EXPECT_EQ(got[1], -2.0f);
  EXPECT_EQ(got[2], 3.0f);
  EXPECT_EQ(got[4], 9.0f);
  // NE(NaN, NaN) is true: +1 added only at index 3 (checked via the others).
}

TEST(ElementwiseLowering, UnsupportedFailsWithDiagnostic) {
  const char *src = R"(
func.func @main(%a: tensor<?xf32>) -> tensor<?xf32> {
  %r = lax.exp %a : tensor<?xf32>
  return %r : tensor<?xf32>
})";
  std::string error;
  auto exe = Compiler().compileSource(src, "main", &error);
  EXPECT_FALSE(exe);
  EXPECT_FALSE(error.empty());
}

TEST(ElementwiseLowering, OtherElementTypes) {
  const char *src = R"(
func.func @main(%a: tensor<4xf32>, %i: tensor<4xi64>, %b: tensor<4xi8>) -> tensor<4xf64> {
  %h = lax.convert_element_type %a : tensor<4xf32> -> tensor<4xf16>
  %h2 = lax.add %h, %h : tensor<4xf16>
  %bf = lax.convert_element_type %h2 : tensor<4xf16> -> tensor<4xbf16>
  %d = lax.convert_element_type %bf : tensor<4xbf16> -> tensor<4xf64>
  %e = lax.exp %d : tensor<4xf64>
  %i2 = lax.mul %i, %i : tensor<4xi64>
  %di = lax.convert_element_type %i2 : tensor<4xi64> -> tensor<4xf64>
  %b2 = lax.add %b, %b : tensor<4xi8>
  %db = lax.convert_element_type %b2 : tensor<4xi8> -> tensor<4xf64>
  %s = lax.add %e, %di : tensor<4xf64>
  %r = lax.add %s, %db : tensor<4xf64>
  return %r : tensor<4xf64>
})";
  auto exe = jit(src);
  ASSERT_TRUE(exe);
  std::vector<float> a = {0.5f, 1.0f, -1.0f, 0.25f};
  std::vector<int64_t> i = {3, -4, 3000000000LL, 0};
  std::vector<int8_t> b = {1, -2, 100, 7}; // 100 + 100 wraps to -56
  auto got = run1<double>(*exe, a, i, b);
  std::vector<double> want;
  for (int k = 0; k < 4; ++k)
    want.push_back(std::exp(2.0 * a[k]) + double(i[k] * i[k]) +
                   double(int8_t(b[k] + b[k])));
  for (int k = 0; k < 4; ++k)
    EXPECT_NEAR(got[k], want[k], 1e-9 * std::fabs(want[k]) + 1e-6) << k;
}

/// ui32 (seed 001's type): unsigned division, comparison, max, conversion.
TEST(ElementwiseLowering, Unsigned32) {
  const char *src = R"(
func.func @main(%a: tensor<4xui32>, %b: tensor<4xui32>) -> tensor<4xui32> {
  %c = lax.constant dense<2> : tensor<4xui32>
  %m = lax.mul %a, %c : tensor<4xui32>
  %d = lax.div %m, %b : tensor<4xui32>
  %lt = lax.compare LT, %a, %b : tensor<4xui32>
  %mx = lax.max %a, %b : tensor<4xui32>
  %s = lax.select_n %lt, %d, %mx : tensor<4xi1>, tensor<4xui32>, tensor<4xui32>
  %f = lax.convert_element_type %s : tensor<4xui32> -> tensor<4xf32>
  %u = lax.convert_element_type %f : tensor<4xf32> -> tensor<4xui32>
  %r = lax.rem %u, %b : tensor<4xui32>
  return %r : tensor<4xui32>
})";
  auto exe = jit(src);
  ASSERT_TRUE(exe);
  ASSERT_EQ(exe->inputs()[0].kind, ElementKind::U32);
  std::vector<uint32_t> a = {7, 3000000000u, 5, 0}, b = {3, 7, 4000000000u, 1};
  std::vector<uint32_t> want;
  for (int i = 0; i < 4; ++i) {
    uint32_t d = (a[i] * 2u) / b[i], mx = std::max(a[i], b[i]);
    uint32_t s = a[i] < b[i] ? mx : d;
    uint32_t u = static_cast<uint32_t>(static_cast<float>(s));
    want.push_back(u % b[i]);
  }
  EXPECT_EQ(run1<uint32_t>(*exe, a, b), want);
}

/// Seed 001: ten calls of a private ui32 function.
TEST(ElementwiseLowering, Seed001TenCalls) {
  const char *src = R"(
func.func private @inner_fn(%arg0: tensor<5xui32>) -> tensor<5xui32> {
  %0 = lax.constant dense<2> : tensor<5xui32>
  %1 = lax.mul %0, %arg0 : tensor<5xui32>
  return %1 : tensor<5xui32>
}
func.func @main(%arg0: tensor<5xui32>) -> tensor<5xui32> {
  %0 = call @inner_fn(%arg0) : (tensor<5xui32>) -> tensor<5xui32>
  %1 = call @inner_fn(%0) : (tensor<5xui32>) -> tensor<5xui32>
  %2 = call @inner_fn(%1) : (tensor<5xui32>) -> tensor<5xui32>
  %3 = lax.add %2, %arg0 : tensor<5xui32>
  return %3 : tensor<5xui32>
})";
  auto exe = jit(src);
  ASSERT_TRUE(exe);
  std::vector<uint32_t> a = {1, 2, 3, 0x40000000u, 0xffffffffu};
  std::vector<uint32_t> want;
  for (uint32_t v : a)
    want.push_back(v * 8u + v);
  EXPECT_EQ(run1<uint32_t>(*exe, a), want);
}

} // namespace
