//===- InterpretContractionTest.cpp - dot_general and reductions ----------===//
//
// dot_general against hand-computed products and, with batch dimensions in
// unusual positions, against a naive loop over the definition; reductions
// (including NaN propagation and integer identities); argmax/argmin ties and
// NaN.
//
//===----------------------------------------------------------------------===//
#include "tests/unit/reference/InterpreterTesting.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace kiln::interp;
using namespace kiln::interp::testing;

namespace {

using Values = std::vector<double>;

class InterpretContractionTest : public ::testing::Test {
protected:
  Values run(StringRef source, ArrayRef<Tensor> inputs) {
    module = parseModule(context, source);
    if (!module)
      return {};
    SmallVector<Tensor> results = interpretOrFail(*module, "f", inputs);
    if (results.size() != 1)
      return {};
    return valuesOf(results[0]);
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

TEST_F(InterpretContractionTest, MatMul) {
  // [[1 2 3] [4 5 6]] @ [[1 0] [0 1] [1 1]] = [[4 5] [10 11]].
  EXPECT_EQ(run(R"(func.func @f(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> tensor<2x2xf32> {
      %d = lax.dot_general %a, %b contracting = [1] x [0] batch = [] x []
          : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
      return %d : tensor<2x2xf32>
    })",
                {makeTensor(context, "tensor<2x3xf32>", {1, 2, 3, 4, 5, 6}),
                 makeTensor(context, "tensor<3x2xf32>", {1, 0, 0, 1, 1, 1})}),
            (Values{4, 5, 10, 11}));
  // Contracting lhs dim 0 with rhs dim 1: a^T b^T.
  EXPECT_EQ(run(R"(func.func @f(%a: tensor<3x2xi32>, %b: tensor<2x3xi32>) -> tensor<2x2xi32> {
      %d = lax.dot_general %a, %b contracting = [0] x [1] batch = [] x []
          : (tensor<3x2xi32>, tensor<2x3xi32>) -> tensor<2x2xi32>
      return %d : tensor<2x2xi32>
    })",
                {makeTensor(context, "tensor<3x2xi32>", {1, 4, 2, 5, 3, 6}),
                 makeTensor(context, "tensor<2x3xi32>", {1, 0, 1, 0, 1, 1})}),
            (Values{4, 5, 10, 11}));
  // Outer product (no contraction) and a full contraction to a scalar.
  EXPECT_EQ(run(R"(func.func @f(%a: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
      %d = lax.dot_general %a, %b contracting = [] x [] batch = [] x []
          : (tensor<2xf32>, tensor<3xf32>) -> tensor<2x3xf32>
      return %d : tensor<2x3xf32>
    })",
                {makeTensor(context, "tensor<2xf32>", {1, -2}),
                 makeTensor(context, "tensor<3xf32>", {1, 2, 3})}),
            (Values{1, 2, 3, -2, -4, -6}));
  EXPECT_EQ(run(R"(func.func @f(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>) -> tensor<f32> {
      %d = lax.dot_general %a, %b contracting = [0, 1] x [1, 0] batch = [] x []
          : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<f32>
      return %d : tensor<f32>
    })",
                {makeTensor(context, "tensor<2x2xf32>", {1, 2, 3, 4}),
                 makeTensor(context, "tensor<2x2xf32>", {5, 6, 7, 8})}),
            // sum a[i][j] * b[j][i] = 1*5 + 2*7 + 3*6 + 4*8
            (Values{69}));
}

TEST_F(InterpretContractionTest, F64DotIsExactInEveryOrder) {
  // DBL_MAX/2 twice, -DBL_MAX twice and 3: the exact sum is -DBL_MAX + 3,
  // which rounds to -DBL_MAX, in every order of the terms (a sum kept in
  // double overflowed to -inf, then NaN, where both -DBL_MAX came first:
  // generated program 656042). A product beyond DBL_MAX (2^600 * 2^600)
  // cancelled by its negation leaves the small term, hand-derived: 0.5.
  // And a tie of double rounding: 1 + 2^-53 + 2^-80 rounds up to 1 + 2^-52.
  const char *source = R"(func.func @f(%a: tensor<5xf64>, %b: tensor<5xf64>) -> tensor<f64> {
      %d = lax.dot_general %a, %b contracting = [0] x [0] batch = [] x []
          : (tensor<5xf64>, tensor<5xf64>) -> tensor<f64>
      return %d : tensor<f64>
    })";
  const double max = std::numeric_limits<double>::max();
  Tensor ones = makeTensor(context, "tensor<5xf64>", {1, 1, 1, 1, 1});
  for (Values terms : {Values{max / 2, max / 2, -max, -max, 3}, Values{-max, -max, max / 2, max / 2, 3},
                       Values{-max, 3, max / 2, -max, max / 2}})
    EXPECT_EQ(run(source, {makeTensor(context, "tensor<5xf64>", terms), ones}), (Values{-max}));
  EXPECT_EQ(run(source, {makeTensor(context, "tensor<5xf64>", {0x1p600, -0x1p600, 0.5, 0, 0}),
                         makeTensor(context, "tensor<5xf64>", {0x1p600, 0x1p600, 1, 0, 0})}),
            (Values{0.5}));
  EXPECT_EQ(run(source, {makeTensor(context, "tensor<5xf64>", {1, 0x1p-53, 0x1p-80, 0, 0}), ones}),
            (Values{1 + 0x1p-52}));
}

TEST_F(InterpretContractionTest, PreferredElementType) {
  // i8 operands, i32 result: 100 * 100 * 2 does not wrap at 8 bits.
  EXPECT_EQ(run(R"(func.func @f(%a: tensor<1x2xi8>, %b: tensor<2x1xi8>) -> tensor<1x1xi32> {
      %d = lax.dot_general %a, %b contracting = [1] x [0] batch = [] x [] {preferred_element_type = i32}
          : (tensor<1x2xi8>, tensor<2x1xi8>) -> tensor<1x1xi32>
      return %d : tensor<1x1xi32>
    })",
                {makeTensor(context, "tensor<1x2xi8>", {100, 100}),
                 makeTensor(context, "tensor<2x1xi8>", {100, 100})}),
            (Values{20000}));
}

TEST_F(InterpretContractionTest, IntegerProductsAreExactAndWrap) {
  // i64: (2^40 + 1)(2^30 + 1) + 3 * 5 wraps modulo 2^64 to
  // 2^40 + 2^30 + 16, which a double accumulator would round away.
  module = parseModule(context, R"(func.func @f(%a: tensor<2xi64>, %b: tensor<2xi64>) -> tensor<i64> {
      %d = lax.dot_general %a, %b contracting = [0] x [0] batch = [] x []
          : (tensor<2xi64>, tensor<2xi64>) -> tensor<i64>
      return %d : tensor<i64>
    })");
  ASSERT_TRUE(module);
  SmallVector<Tensor> r = interpretOrFail(
      *module, "f",
      {makeTensor(context, "tensor<2xi64>", {std::ldexp(1.0, 40) + 1, 3}),
       makeTensor(context, "tensor<2xi64>", {std::ldexp(1.0, 30) + 1, 5})});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].getInt(0), (int64_t(1) << 40) + (int64_t(1) << 30) + 16);
  // i32: 2^30 * 4 + 1 wraps to 1.
  EXPECT_EQ(run(R"(func.func @f(%a: tensor<1x2xi32>, %b: tensor<2x1xi32>) -> tensor<1x1xi32> {
      %d = lax.dot_general %a, %b contracting = [1] x [0] batch = [] x []
          : (tensor<1x2xi32>, tensor<2x1xi32>) -> tensor<1x1xi32>
      return %d : tensor<1x1xi32>
    })",
                {makeTensor(context, "tensor<1x2xi32>", {std::ldexp(1.0, 30), 1}),
                 makeTensor(context, "tensor<2x1xi32>", {4, 1})}),
            (Values{1}));
}

/// result[b][i][j] (batch dims, lhs free, rhs free) by the definition, for
/// lhs [K=3][B=2][I=4] and rhs [J=5][B=2][K=3] with batch (1 x 1) and
/// contracting (0 x 2).
TEST_F(InterpretContractionTest, BatchDimensionsMatchANaiveLoop) {
  const int K = 3, B = 2, I = 4, J = 5;
  Tensor lhs = Tensor::random(
      cast<RankedTensorType>(parseType("tensor<3x2x4xf32>", &context)), /*seed=*/7);
  Tensor rhs = Tensor::random(
      cast<RankedTensorType>(parseType("tensor<5x2x3xf32>", &context)), /*seed=*/8);
  Values got = run(R"(func.func @f(%l: tensor<3x2x4xf32>, %r: tensor<5x2x3xf32>) -> tensor<2x4x5xf32> {
      %d = lax.dot_general %l, %r contracting = [0] x [2] batch = [1] x [1]
          : (tensor<3x2x4xf32>, tensor<5x2x3xf32>) -> tensor<2x4x5xf32>
      return %d : tensor<2x4x5xf32>
    })",
                   {lhs, rhs});
  ASSERT_EQ(got.size(), size_t(B * I * J));
  for (int b = 0; b < B; ++b)
    for (int i = 0; i < I; ++i)
      for (int j = 0; j < J; ++j) {
        double sum = 0;
        for (int k = 0; k < K; ++k)
          sum += lhs.getFloat((k * B + b) * I + i) * rhs.getFloat((j * B + b) * K + k);
        EXPECT_NEAR(got[(b * I + i) * J + j], sum, 1e-6) << b << " " << i << " " << j;
      }
}

/// Two batch dims given out of order (lhs [1, 0] x rhs [0, 2]) and two
/// contracting dims.
TEST_F(InterpretContractionTest, TwoBatchAndTwoContractingDims) {
  // lhs [B1=2][B0=3][K0=2][I=2][K1=2], rhs [B0=3][K1=2][B1=2][K0=2][J=3]:
  // batch = [1, 0] x [0, 2] pairs lhs dim 1 (size 3) with rhs dim 0, and lhs
  // dim 0 (size 2) with rhs dim 2; contracting = [2, 4] x [3, 1].
  Tensor lhs = Tensor::random(
      cast<RankedTensorType>(parseType("tensor<2x3x2x2x2xf64>", &context)), 11);
  Tensor rhs = Tensor::random(
      cast<RankedTensorType>(parseType("tensor<3x2x2x2x3xf64>", &context)), 12);
  Values got = run(R"(func.func @f(%l: tensor<2x3x2x2x2xf64>, %r: tensor<3x2x2x2x3xf64>) -> tensor<3x2x2x3xf64> {
      %d = lax.dot_general %l, %r contracting = [2, 4] x [3, 1] batch = [1, 0] x [0, 2]
          : (tensor<2x3x2x2x2xf64>, tensor<3x2x2x2x3xf64>) -> tensor<3x2x2x3xf64>
      return %d : tensor<3x2x2x3xf64>
    })",
                   {lhs, rhs});
  ASSERT_EQ(got.size(), 36u);
  auto L = [&](int b1, int b0, int k0, int i, int k1) {
    return lhs.getFloat((((b1 * 3 + b0) * 2 + k0) * 2 + i) * 2 + k1);
  };
  auto R = [&](int b0, int k1, int b1, int k0, int j) {
    return rhs.getFloat((((b0 * 2 + k1) * 2 + b1) * 2 + k0) * 3 + j);
  };
  // Result: [b0 (lhs batch dim 1 first)][b1][i][j].
  for (int b0 = 0; b0 < 3; ++b0)
    for (int b1 = 0; b1 < 2; ++b1)
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 3; ++j) {
          double sum = 0;
          for (int k0 = 0; k0 < 2; ++k0)
            for (int k1 = 0; k1 < 2; ++k1)
              sum += L(b1, b0, k0, i, k1) * R(b0, k1, b1, k0, j);
          EXPECT_NEAR(got[((b0 * 2 + b1) * 2 + i) * 3 + j], sum, 1e-12);
        }
}

TEST_F(InterpretContractionTest, Reductions) {
  Tensor x = makeTensor(context, "tensor<2x3xf32>", {1, -2, 3, 4, 5, -6});
  auto reduce = [&](StringRef op, StringRef axes, StringRef resultType) {
    std::string rt = resultType.str();
    return run(("func.func @f(%x: tensor<2x3xf32>) -> " + rt + " {\n  %r = lax." + op.str() +
                " %x axes = " + axes.str() + " : tensor<2x3xf32> -> " + rt +
                "\n  return %r : " + rt + "\n}\n"),
               {x});
  };
  EXPECT_EQ(reduce("reduce_sum", "[1]", "tensor<2xf32>"), (Values{2, 3}));
  EXPECT_EQ(reduce("reduce_sum", "[0]", "tensor<3xf32>"), (Values{5, 3, -3}));
  EXPECT_EQ(reduce("reduce_sum", "[0, 1]", "tensor<f32>"), (Values{5}));
  EXPECT_EQ(reduce("reduce_max", "[1]", "tensor<2xf32>"), (Values{3, 5}));
  EXPECT_EQ(reduce("reduce_min", "[0]", "tensor<3xf32>"), (Values{1, -2, -6}));
  EXPECT_EQ(reduce("reduce_prod", "[1]", "tensor<2xf32>"), (Values{-6, -120}));
  EXPECT_EQ(reduce("reduce_prod", "[0, 1]", "tensor<f32>"), (Values{720}));
}

TEST_F(InterpretContractionTest, ReductionOverAMiddleAxis) {
  // x[a][b][c] = 6a + 2b + c; sum over b.
  EXPECT_EQ(run(R"(func.func @f(%x: tensor<2x3x2xi32>) -> tensor<2x2xi32> {
      %r = lax.reduce_sum %x axes = [1] : tensor<2x3x2xi32> -> tensor<2x2xi32>
      return %r : tensor<2x2xi32>
    })",
                {makeTensor(context, "tensor<2x3x2xi32>", {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11})}),
            (Values{6, 9, 24, 27}));
  // Over the outer and inner axes: 0+1+6+7, 2+3+8+9, 4+5+10+11.
  EXPECT_EQ(run(R"(func.func @f(%x: tensor<2x3x2xi32>) -> tensor<3xi32> {
      %r = lax.reduce_sum %x axes = [0, 2] : tensor<2x3x2xi32> -> tensor<3xi32>
      return %r : tensor<3xi32>
    })",
                {makeTensor(context, "tensor<2x3x2xi32>", {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11})}),
            (Values{14, 22, 30}));
}

TEST_F(InterpretContractionTest, ReductionEdgeCases) {
  // NaN propagates through max and min.
  Values r = run(R"(func.func @f(%x: tensor<2x2xf32>) -> tensor<2xf32> {
      %r = lax.reduce_max %x axes = [1] : tensor<2x2xf32> -> tensor<2xf32>
      return %r : tensor<2xf32>
    })",
                 {makeTensor(context, "tensor<2x2xf32>", {NAN, 1, 2, 3})});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_TRUE(std::isnan(r[0]));
  EXPECT_EQ(r[1], 3);
  // Integer max of negatives starts from the type's minimum; the sum wraps.
  EXPECT_EQ(run(R"(func.func @f(%x: tensor<3xi8>) -> tensor<i8> {
      %r = lax.reduce_max %x axes = [0] : tensor<3xi8> -> tensor<i8>
      return %r : tensor<i8>
    })",
                {makeTensor(context, "tensor<3xi8>", {-100, -128, -7})}),
            (Values{-7}));
  EXPECT_EQ(run(R"(func.func @f(%x: tensor<3xi8>) -> tensor<i8> {
      %r = lax.reduce_sum %x axes = [0] : tensor<3xi8> -> tensor<i8>
      return %r : tensor<i8>
    })",
                {makeTensor(context, "tensor<3xi8>", {100, 100, 1})}),
            (Values{-55}));
  EXPECT_EQ(run(R"(func.func @f(%x: tensor<2xui32>) -> tensor<ui32> {
      %r = lax.reduce_min %x axes = [0] : tensor<2xui32> -> tensor<ui32>
      return %r : tensor<ui32>
    })",
                {makeTensor(context, "tensor<2xui32>", {4294967295.0, 4000000000.0})}),
            (Values{4000000000.0}));
  // A reduction over an empty axis gives the identity.
  EXPECT_EQ(run(R"(func.func @f(%x: tensor<2x0xf32>) -> tensor<2xf32> {
      %r = lax.reduce_sum %x axes = [1] : tensor<2x0xf32> -> tensor<2xf32>
      return %r : tensor<2xf32>
    })",
                {makeTensor(context, "tensor<2x0xf32>", {})}),
            (Values{0, 0}));
}

TEST_F(InterpretContractionTest, ArgMaxArgMin) {
  // Ties go to the first index; NaN counts as the maximum (and minimum).
  Tensor x = makeTensor(context, "tensor<3x4xf32>", {1, 5, 5, 2,   //
                                                     -1, -3, -3, 0, //
                                                     2, NAN, 7, NAN});
  EXPECT_EQ(run(R"(func.func @f(%x: tensor<3x4xf32>) -> tensor<3xi32> {
      %r = lax.argmax %x axes = [1] : tensor<3x4xf32> -> tensor<3xi32>
      return %r : tensor<3xi32>
    })",
                {x}),
            (Values{1, 3, 1}));
  EXPECT_EQ(run(R"(func.func @f(%x: tensor<3x4xf32>) -> tensor<3xi64> {
      %r = lax.argmin %x axes = [1] : tensor<3x4xf32> -> tensor<3xi64>
      return %r : tensor<3xi64>
    })",
                {x}),
            (Values{0, 1, 1}));
  // i64 values 2^60 and 2^60 + 1 differ (they would tie as doubles).
  module = parseModule(context, R"(func.func @f(%x: tensor<2xi64>) -> (tensor<i32>, tensor<i32>) {
      %a = lax.argmax %x axes = [0] : tensor<2xi64> -> tensor<i32>
      %b = lax.argmin %x axes = [0] : tensor<2xi64> -> tensor<i32>
      return %a, %b : tensor<i32>, tensor<i32>
    })");
  ASSERT_TRUE(module);
  Tensor big = makeTensor(context, "tensor<2xi64>", {0, 0});
  big.setInt(0, int64_t(1) << 60);
  big.setInt(1, (int64_t(1) << 60) + 1);
  SmallVector<Tensor> r = interpretOrFail(*module, "f", {big});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].getInt(0), 1);
  EXPECT_EQ(r[1].getInt(0), 0);
  EXPECT_EQ(run(R"(func.func @f(%x: tensor<3x4xf32>) -> tensor<4xi32> {
      %r = lax.argmax %x axes = [0] : tensor<3x4xf32> -> tensor<4xi32>
      return %r : tensor<4xi32>
    })",
                {x}),
            (Values{2, 2, 2, 2}));
}

} // namespace
