//===- InterpretScanTest.cpp - lax.scan in the interpreter ----------------===//
//
// A reversed scan with a const, two carries, two xs (one scanned along axis
// 1), two ys (one stacked along axis 1) and a value captured from outside the
// body, checked against hand-computed numbers and against the same program
// unrolled by hand into slices, reshapes and concatenates. Also a nested scan
// and a scan of length 0.
//
//===----------------------------------------------------------------------===//
#include "tests/unit/reference/InterpreterTesting.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace kiln::interp;
using namespace kiln::interp::testing;

namespace {

using Values = std::vector<double>;

// Per step i (reverse: i = 2, 1, 0), with x = xs[:, i] and z = zs[i]:
//   c' = c * k + x;  d' = d + z * z;  y = c' + outer;  w = d * z
// The ys stack y along axis 1 (ys[:, i] = y) and w along axis 0.
constexpr const char *kScanProgram = R"(
func.func @f(%k: tensor<2xf32>, %c0: tensor<2xf32>, %d0: tensor<f32>,
             %xs: tensor<2x3xf32>, %zs: tensor<3xf32>)
    -> (tensor<2xf32>, tensor<f32>, tensor<2x3xf32>, tensor<3xf32>) {
  %outer = lax.constant dense<[10.0, 20.0]> : tensor<2xf32>
  %c, %d, %ys, %ws = lax.scan length = 3 consts(%k) carry(%c0, %d0) xs(%xs, %zs)
      {reverse = true, xs_axes = array<i64: 1, 0>, ys_axes = array<i64: 1, 0>}
      : (tensor<2xf32>, tensor<2xf32>, tensor<f32>, tensor<2x3xf32>, tensor<3xf32>)
        -> (tensor<2xf32>, tensor<f32>, tensor<2x3xf32>, tensor<3xf32>) {
  ^bb0(%kk: tensor<2xf32>, %c: tensor<2xf32>, %d: tensor<f32>, %x: tensor<2xf32>, %z: tensor<f32>):
    %ck = lax.mul %c, %kk : tensor<2xf32>
    %c2 = lax.add %ck, %x : tensor<2xf32>
    %zz = lax.mul %z, %z : tensor<f32>
    %d2 = lax.add %d, %zz : tensor<f32>
    %y = lax.add %c2, %outer : tensor<2xf32>
    %w = lax.mul %d, %z : tensor<f32>
    lax.yield %c2, %d2, %y, %w : tensor<2xf32>, tensor<f32>, tensor<2xf32>, tensor<f32>
  }
  return %c, %d, %ys, %ws : tensor<2xf32>, tensor<f32>, tensor<2x3xf32>, tensor<3xf32>
}
)";

/// kScanProgram unrolled by hand: steps 2, 1, 0 as straight-line code.
std::string unrolledProgram() {
  std::string body;
  std::string c = "%c0", d = "%d0";
  for (int i = 2; i >= 0; --i) {
    body += llvm::formatv(R"(
  %xsl{0} = lax.slice %xs start = [0, {0}] limit = [2, {1}] strides = [1, 1] : tensor<2x3xf32> -> tensor<2x1xf32>
  %x{0} = lax.reshape %xsl{0} : tensor<2x1xf32> -> tensor<2xf32>
  %zsl{0} = lax.slice %zs start = [{0}] limit = [{1}] strides = [1] : tensor<3xf32> -> tensor<1xf32>
  %z{0} = lax.reshape %zsl{0} : tensor<1xf32> -> tensor<f32>
  %ck{0} = lax.mul {2}, %k : tensor<2xf32>
  %cc{0} = lax.add %ck{0}, %x{0} : tensor<2xf32>
  %zz{0} = lax.mul %z{0}, %z{0} : tensor<f32>
  %dd{0} = lax.add {3}, %zz{0} : tensor<f32>
  %y{0} = lax.add %cc{0}, %outer : tensor<2xf32>
  %w{0} = lax.mul {3}, %z{0} : tensor<f32>
  %yr{0} = lax.reshape %y{0} : tensor<2xf32> -> tensor<2x1xf32>
  %wr{0} = lax.reshape %w{0} : tensor<f32> -> tensor<1xf32>
)",
                          i, i + 1, c, d)
                .str();
    c = "%cc" + std::to_string(i);
    d = "%dd" + std::to_string(i);
  }
  return R"(
func.func @f(%k: tensor<2xf32>, %c0: tensor<2xf32>, %d0: tensor<f32>,
             %xs: tensor<2x3xf32>, %zs: tensor<3xf32>)
    -> (tensor<2xf32>, tensor<f32>, tensor<2x3xf32>, tensor<3xf32>) {
  %outer = lax.constant dense<[10.0, 20.0]> : tensor<2xf32>
)" + body +
         R"(
  %ys = lax.concatenate %yr0, %yr1, %yr2 dim = 1
      : (tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  %ws = lax.concatenate %wr0, %wr1, %wr2 dim = 0
      : (tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<3xf32>
  return %cc0, %dd0, %ys, %ws : tensor<2xf32>, tensor<f32>, tensor<2x3xf32>, tensor<3xf32>
}
)";
}

class InterpretScanTest : public ::testing::Test {
protected:
  MLIRContext context;
};

TEST_F(InterpretScanTest, HandComputed) {
  OwningOpRef<ModuleOp> module = parseModule(context, kScanProgram);
  ASSERT_TRUE(module);
  SmallVector<Tensor> r = interpretOrFail(
      *module, "f",
      {makeTensor(context, "tensor<2xf32>", {2, 1}), makeTensor(context, "tensor<2xf32>", {1, 1}),
       makeTensor(context, "tensor<f32>", {0}),
       makeTensor(context, "tensor<2x3xf32>", {1, 2, 3, 4, 5, 6}),
       makeTensor(context, "tensor<3xf32>", {1, 2, 3})});
  ASSERT_EQ(r.size(), 4u);
  // i = 2: c = [5, 7], d = 9, y = [15, 27], w = 0
  // i = 1: c = [12, 12], d = 13, y = [22, 32], w = 18
  // i = 0: c = [25, 16], d = 14, y = [35, 36], w = 13
  EXPECT_EQ(valuesOf(r[0]), (Values{25, 16}));
  EXPECT_EQ(valuesOf(r[1]), (Values{14}));
  EXPECT_EQ(valuesOf(r[2]), (Values{35, 22, 15, 36, 32, 27}));
  EXPECT_EQ(valuesOf(r[3]), (Values{13, 18, 0}));
}

TEST_F(InterpretScanTest, MatchesTheHandUnrolledProgram) {
  OwningOpRef<ModuleOp> scan = parseModule(context, kScanProgram);
  OwningOpRef<ModuleOp> unrolled = parseModule(context, unrolledProgram());
  ASSERT_TRUE(scan && unrolled);
  for (uint64_t seed : {1, 2, 3}) {
    CompareOptions options;
    options.seed = seed;
    options.rtol = 0;
    options.atol = 0; // same ops in the same order: bit-identical
    expectSameResults(*scan, "f", *unrolled, "f", options);
  }
}

TEST_F(InterpretScanTest, NestedScanSeesOuterValues) {
  // The inner scan adds the outer body's const %kk and an outer-function
  // value %two to every element it visits: sum over rows of (x + kk + 2).
  OwningOpRef<ModuleOp> module = parseModule(context, R"(
func.func @f(%k: tensor<f32>, %xs: tensor<2x3xf32>) -> (tensor<f32>, tensor<2x3xf32>) {
  %zero = lax.constant dense<0.0> : tensor<f32>
  %two = lax.constant dense<2.0> : tensor<f32>
  %s, %ys = lax.scan length = 2 consts(%k) carry(%zero) xs(%xs)
      : (tensor<f32>, tensor<f32>, tensor<2x3xf32>) -> (tensor<f32>, tensor<2x3xf32>) {
  ^bb0(%kk: tensor<f32>, %acc: tensor<f32>, %row: tensor<3xf32>):
    %t, %zs = lax.scan length = 3 carry(%acc) xs(%row)
        : (tensor<f32>, tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>) {
    ^bb0(%a: tensor<f32>, %x: tensor<f32>):
      %xk = lax.add %x, %kk : tensor<f32>
      %x2 = lax.add %xk, %two : tensor<f32>
      %a2 = lax.add %a, %x2 : tensor<f32>
      lax.yield %a2, %a2 : tensor<f32>, tensor<f32>
    }
    lax.yield %t, %zs : tensor<f32>, tensor<3xf32>
  }
  return %s, %ys : tensor<f32>, tensor<2x3xf32>
})");
  ASSERT_TRUE(module);
  SmallVector<Tensor> r =
      interpretOrFail(*module, "f",
                      {makeTensor(context, "tensor<f32>", {1}),
                       makeTensor(context, "tensor<2x3xf32>", {1, 2, 3, 4, 5, 6})});
  ASSERT_EQ(r.size(), 2u);
  // Each element contributes x + 3; running sums 4, 9, 15, 22, 30, 39.
  EXPECT_EQ(valuesOf(r[0]), (Values{39}));
  EXPECT_EQ(valuesOf(r[1]), (Values{4, 9, 15, 22, 30, 39}));
}

TEST_F(InterpretScanTest, BodyYieldsItsConstAndAnOuterValue) {
  // The const block argument and an outer value flow straight to the
  // results: carry = k after any step, ys[i] = outer + x[i].
  OwningOpRef<ModuleOp> module = parseModule(context, R"(
func.func @f(%k: tensor<2xf32>, %c0: tensor<2xf32>, %xs: tensor<3x2xf32>)
    -> (tensor<2xf32>, tensor<3x2xf32>, tensor<3x2xf32>) {
  %outer = lax.constant dense<[100.0, 200.0]> : tensor<2xf32>
  %c, %ks, %ys = lax.scan length = 3 consts(%k) carry(%c0) xs(%xs)
      : (tensor<2xf32>, tensor<2xf32>, tensor<3x2xf32>)
        -> (tensor<2xf32>, tensor<3x2xf32>, tensor<3x2xf32>) {
  ^bb0(%kk: tensor<2xf32>, %c: tensor<2xf32>, %x: tensor<2xf32>):
    %y = lax.add %outer, %x : tensor<2xf32>
    lax.yield %kk, %kk, %y : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
  }
  return %c, %ks, %ys : tensor<2xf32>, tensor<3x2xf32>, tensor<3x2xf32>
})");
  ASSERT_TRUE(module);
  SmallVector<Tensor> r = interpretOrFail(
      *module, "f",
      {makeTensor(context, "tensor<2xf32>", {1, 2}), makeTensor(context, "tensor<2xf32>", {0, 0}),
       makeTensor(context, "tensor<3x2xf32>", {1, 2, 3, 4, 5, 6})});
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(valuesOf(r[0]), (Values{1, 2}));
  EXPECT_EQ(valuesOf(r[1]), (Values{1, 2, 1, 2, 1, 2}));
  EXPECT_EQ(valuesOf(r[2]), (Values{101, 202, 103, 204, 105, 206}));
}

TEST_F(InterpretScanTest, LengthZeroReturnsTheInitialCarries) {
  OwningOpRef<ModuleOp> module = parseModule(context, R"(
func.func @f(%c0: tensor<2xi32>, %xs: tensor<0x2xi32>) -> (tensor<2xi32>, tensor<0x2xi32>) {
  %c, %ys = lax.scan length = 0 carry(%c0) xs(%xs)
      : (tensor<2xi32>, tensor<0x2xi32>) -> (tensor<2xi32>, tensor<0x2xi32>) {
  ^bb0(%c: tensor<2xi32>, %x: tensor<2xi32>):
    %n = lax.add %c, %x : tensor<2xi32>
    lax.yield %n, %n : tensor<2xi32>, tensor<2xi32>
  }
  return %c, %ys : tensor<2xi32>, tensor<0x2xi32>
})");
  ASSERT_TRUE(module);
  SmallVector<Tensor> r = interpretOrFail(
      *module, "f",
      {makeTensor(context, "tensor<2xi32>", {7, -7}), makeTensor(context, "tensor<0x2xi32>", {})});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(valuesOf(r[0]), (Values{7, -7}));
  EXPECT_EQ(r[1].size(), 0);
}

TEST_F(InterpretScanTest, ForwardScanStacksAlongAxisZero) {
  // Cumulative sum with the default axes: ys[i] = x[0] + ... + x[i].
  OwningOpRef<ModuleOp> module = parseModule(context, R"(
func.func @f(%xs: tensor<4x2xf64>) -> (tensor<2xf64>, tensor<4x2xf64>) {
  %zero = lax.constant dense<0.0> : tensor<2xf64>
  %c, %ys = lax.scan length = 4 carry(%zero) xs(%xs)
      : (tensor<2xf64>, tensor<4x2xf64>) -> (tensor<2xf64>, tensor<4x2xf64>) {
  ^bb0(%c: tensor<2xf64>, %x: tensor<2xf64>):
    %n = lax.add %c, %x : tensor<2xf64>
    lax.yield %n, %n : tensor<2xf64>, tensor<2xf64>
  }
  return %c, %ys : tensor<2xf64>, tensor<4x2xf64>
})");
  ASSERT_TRUE(module);
  SmallVector<Tensor> r = interpretOrFail(
      *module, "f", {makeTensor(context, "tensor<4x2xf64>", {1, 10, 2, 20, 3, 30, 4, 40})});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(valuesOf(r[0]), (Values{10, 100}));
  EXPECT_EQ(valuesOf(r[1]), (Values{1, 10, 3, 30, 6, 60, 10, 100}));
}

} // namespace
