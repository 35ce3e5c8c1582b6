//===- InterpretStructureTest.cpp - structural ops in the interpreter -----===//
//
// constant, iota, broadcast_in_dim, reshape, squeeze, expand_dims,
// transpose, rev, slice, dynamic_slice / dynamic_update_slice (with JAX's
// clamping), concatenate, arith.constant and func.call, against hand-written
// results on small row-major inputs.
//
//===----------------------------------------------------------------------===//
#include "tests/unit/reference/InterpreterTesting.h"

using namespace mlir;
using namespace kiln::interp;
using namespace kiln::interp::testing;

namespace {

using Values = std::vector<double>;

class InterpretStructureTest : public ::testing::Test {
protected:
  /// Runs @f of `source` and returns the values of its only result.
  Values run(StringRef source, ArrayRef<Tensor> inputs = {}) {
    module = parseModule(context, source);
    if (!module)
      return {};
    SmallVector<Tensor> results = interpretOrFail(*module, "f", inputs);
    if (results.size() != 1)
      return {};
    return valuesOf(results[0]);
  }
  /// A 2x3 f32 input 0..5.
  Tensor x23() { return makeTensor(context, "tensor<2x3xf32>", {0, 1, 2, 3, 4, 5}); }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

TEST_F(InterpretStructureTest, Constants) {
  EXPECT_EQ(run(R"(func.func @f() -> tensor<2x2xf32> {
      %c = lax.constant dense<[[1.0, 2.0], [3.0, 4.5]]> : tensor<2x2xf32>
      return %c : tensor<2x2xf32>
    })"),
            (Values{1, 2, 3, 4.5}));
  EXPECT_EQ(run(R"(func.func @f() -> tensor<3xi32> {
      %c = lax.constant dense<-7> : tensor<3xi32>
      return %c : tensor<3xi32>
    })"),
            (Values{-7, -7, -7}));
  EXPECT_EQ(run(R"(func.func @f() -> tensor<2xui32> {
      %c = arith.constant dense<[4294967295, 1]> : tensor<2xui32>
      return %c : tensor<2xui32>
    })"),
            (Values{4294967295.0, 1}));
  EXPECT_EQ(run(R"(func.func @f() -> tensor<2xi1> {
      %c = arith.constant dense<[true, false]> : tensor<2xi1>
      return %c : tensor<2xi1>
    })"),
            (Values{1, 0}));
}

TEST_F(InterpretStructureTest, Iota) {
  EXPECT_EQ(run(R"(func.func @f() -> tensor<2x3xi32> {
      %i = lax.iota dimension = 1 : tensor<2x3xi32>
      return %i : tensor<2x3xi32>
    })"),
            (Values{0, 1, 2, 0, 1, 2}));
  EXPECT_EQ(run(R"(func.func @f() -> tensor<2x3xf32> {
      %i = lax.iota dimension = 0 : tensor<2x3xf32>
      return %i : tensor<2x3xf32>
    })"),
            (Values{0, 0, 0, 1, 1, 1}));
}

TEST_F(InterpretStructureTest, BroadcastInDim) {
  // [3] -> [2, 3] along dimension 1.
  EXPECT_EQ(run(R"(func.func @f(%x: tensor<3xf32>) -> tensor<2x3xf32> {
      %b = lax.broadcast_in_dim %x shape = [2, 3] dims = [1] : tensor<3xf32> -> tensor<2x3xf32>
      return %b : tensor<2x3xf32>
    })",
                {makeTensor(context, "tensor<3xf32>", {1, 2, 3})}),
            (Values{1, 2, 3, 1, 2, 3}));
  // [1, 2] -> [2, 3, 2]: dim 0 (size 1, broadcast) -> 0, dim 1 -> 2.
  EXPECT_EQ(run(R"(func.func @f(%x: tensor<1x2xf32>) -> tensor<2x3x2xf32> {
      %b = lax.broadcast_in_dim %x shape = [2, 3, 2] dims = [0, 2] : tensor<1x2xf32> -> tensor<2x3x2xf32>
      return %b : tensor<2x3x2xf32>
    })",
                {makeTensor(context, "tensor<1x2xf32>", {7, 8})}),
            (Values{7, 8, 7, 8, 7, 8, 7, 8, 7, 8, 7, 8}));
  // A scalar to a matrix.
  EXPECT_EQ(run(R"(func.func @f(%x: tensor<i32>) -> tensor<2x2xi32> {
      %b = lax.broadcast_in_dim %x shape = [2, 2] dims = [] : tensor<i32> -> tensor<2x2xi32>
      return %b : tensor<2x2xi32>
    })",
                {makeTensor(context, "tensor<i32>", {5})}),
            (Values{5, 5, 5, 5}));
}

TEST_F(InterpretStructureTest, ReshapeSqueezeExpandDims) {
  EXPECT_EQ(run(R"(func.func @f(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
      %r = lax.reshape %x : tensor<2x3xf32> -> tensor<3x2xf32>
      return %r : tensor<3x2xf32>
    })",
                {x23()}),
            (Values{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(run(R"(func.func @f(%x: tensor<2x3xf32>) -> tensor<1x2x3x1xf32> {
      %r = lax.expand_dims %x dims = [0, 3] : tensor<2x3xf32> -> tensor<1x2x3x1xf32>
      return %r : tensor<1x2x3x1xf32>
    })",
                {x23()}),
            (Values{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(run(R"(func.func @f(%x: tensor<1x3x1xf32>) -> tensor<3xf32> {
      %r = lax.squeeze %x dims = [0, 2] : tensor<1x3x1xf32> -> tensor<3xf32>
      return %r : tensor<3xf32>
    })",
                {makeTensor(context, "tensor<1x3x1xf32>", {4, 5, 6})}),
            (Values{4, 5, 6}));
}

TEST_F(InterpretStructureTest, Transpose) {
  EXPECT_EQ(run(R"(func.func @f(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
      %t = lax.transpose %x permutation = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
      return %t : tensor<3x2xf32>
    })",
                {x23()}),
            (Values{0, 3, 1, 4, 2, 5}));
  // Rank 3: result dim i is operand dim perm[i]; x[a][b][c] = 100a + 10b + c.
  Values in;
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 3; ++b)
      for (int c = 0; c < 4; ++c)
        in.push_back(100 * a + 10 * b + c);
  Values want; // result[c][a][b]
  for (int c = 0; c < 4; ++c)
    for (int a = 0; a < 2; ++a)
      for (int b = 0; b < 3; ++b)
        want.push_back(100 * a + 10 * b + c);
  EXPECT_EQ(run(R"(func.func @f(%x: tensor<2x3x4xi32>) -> tensor<4x2x3xi32> {
      %t = lax.transpose %x permutation = [2, 0, 1] : tensor<2x3x4xi32> -> tensor<4x2x3xi32>
      return %t : tensor<4x2x3xi32>
    })",
                {makeTensor(context, "tensor<2x3x4xi32>", in)}),
            want);
}

TEST_F(InterpretStructureTest, Rev) {
  EXPECT_EQ(run(R"(func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
      %r = lax.rev %x dims = [1] : tensor<2x3xf32>
      return %r : tensor<2x3xf32>
    })",
                {x23()}),
            (Values{2, 1, 0, 5, 4, 3}));
  EXPECT_EQ(run(R"(func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
      %r = lax.rev %x dims = [0, 1] : tensor<2x3xf32>
      return %r : tensor<2x3xf32>
    })",
                {x23()}),
            (Values{5, 4, 3, 2, 1, 0}));
}

TEST_F(InterpretStructureTest, Slice) {
  // x is 0..19 as 4x5; rows 1..3, columns 0, 2 (stride 2 up to 4).
  Values in;
  for (int i = 0; i < 20; ++i)
    in.push_back(i);
  EXPECT_EQ(run(R"(func.func @f(%x: tensor<4x5xf32>) -> tensor<2x2xf32> {
      %s = lax.slice %x start = [1, 0] limit = [3, 4] strides = [1, 2] : tensor<4x5xf32> -> tensor<2x2xf32>
      return %s : tensor<2x2xf32>
    })",
                {makeTensor(context, "tensor<4x5xf32>", in)}),
            (Values{5, 7, 10, 12}));
}

TEST_F(InterpretStructureTest, DynamicSliceClampsLikeJax) {
  std::string source = R"(func.func @f(%x: tensor<4x5xf32>, %i: tensor<i32>, %j: tensor<i32>) -> tensor<2x3xf32> {
      %s = lax.dynamic_slice %x[%i, %j] sizes = [2, 3]
          : (tensor<4x5xf32>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>
      return %s : tensor<2x3xf32>
    })";
  Values in;
  for (int i = 0; i < 20; ++i)
    in.push_back(i);
  auto at = [&](double i, double j) {
    return run(source, {makeTensor(context, "tensor<4x5xf32>", in),
                        makeTensor(context, "tensor<i32>", {i}),
                        makeTensor(context, "tensor<i32>", {j})});
  };
  EXPECT_EQ(at(1, 1), (Values{6, 7, 8, 11, 12, 13}));
  // Starts clamp into [0, dim - size]: (9, 9) -> (2, 2); (-3, -1) -> (0, 0).
  EXPECT_EQ(at(9, 9), (Values{12, 13, 14, 17, 18, 19}));
  EXPECT_EQ(at(-3, -1), (Values{0, 1, 2, 5, 6, 7}));
}

TEST_F(InterpretStructureTest, DynamicUpdateSliceClampsLikeJax) {
  std::string source = R"(func.func @f(%x: tensor<3x4xi32>, %u: tensor<2x2xi32>, %i: tensor<i64>, %j: tensor<i64>) -> tensor<3x4xi32> {
      %r = lax.dynamic_update_slice %x[%i, %j], %u
          : (tensor<3x4xi32>, tensor<2x2xi32>, tensor<i64>, tensor<i64>) -> tensor<3x4xi32>
      return %r : tensor<3x4xi32>
    })";
  auto at = [&](double i, double j) {
    return run(source, {makeTensor(context, "tensor<3x4xi32>", Values(12, 0)),
                        makeTensor(context, "tensor<2x2xi32>", {1, 2, 3, 4}),
                        makeTensor(context, "tensor<i64>", {i}),
                        makeTensor(context, "tensor<i64>", {j})});
  };
  EXPECT_EQ(at(0, 1), (Values{0, 1, 2, 0, 0, 3, 4, 0, 0, 0, 0, 0}));
  // (5, 7) clamps to (1, 2).
  EXPECT_EQ(at(5, 7), (Values{0, 0, 0, 0, 0, 0, 1, 2, 0, 0, 3, 4}));
  EXPECT_EQ(at(-1, -9), (Values{1, 2, 0, 0, 3, 4, 0, 0, 0, 0, 0, 0}));
}

TEST_F(InterpretStructureTest, Concatenate) {
  EXPECT_EQ(run(R"(func.func @f(%x: tensor<2x3xf32>, %y: tensor<2x1xf32>) -> tensor<2x4xf32> {
      %c = lax.concatenate %x, %y dim = 1 : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
      return %c : tensor<2x4xf32>
    })",
                {x23(), makeTensor(context, "tensor<2x1xf32>", {-1, -2})}),
            (Values{0, 1, 2, -1, 3, 4, 5, -2}));
  EXPECT_EQ(run(R"(func.func @f(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<4x3xf32> {
      %c = lax.concatenate %x, %y, %x dim = 0 : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<6x3xf32>
      %s = lax.slice %c start = [1, 0] limit = [5, 3] strides = [1, 1] : tensor<6x3xf32> -> tensor<4x3xf32>
      return %s : tensor<4x3xf32>
    })",
                {x23(), makeTensor(context, "tensor<2x3xf32>", {6, 7, 8, 9, 10, 11})}),
            (Values{3, 4, 5, 6, 7, 8, 9, 10, 11, 0, 1, 2}));
}

TEST_F(InterpretStructureTest, FunctionCalls) {
  // A private callee called twice, with two results.
  module = parseModule(context, R"(
    func.func private @addmul(%a: tensor<2xf32>, %b: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
      %s = lax.add %a, %b : tensor<2xf32>
      %p = lax.mul %a, %b : tensor<2xf32>
      return %s, %p : tensor<2xf32>, tensor<2xf32>
    }
    func.func @f(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
      %s, %p = func.call @addmul(%x, %x) : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
      %s2, %p2 = func.call @addmul(%s, %p) : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
      return %s2, %p : tensor<2xf32>, tensor<2xf32>
    })");
  ASSERT_TRUE(module);
  SmallVector<Tensor> results =
      interpretOrFail(*module, "f", {makeTensor(context, "tensor<2xf32>", {1, 3})});
  ASSERT_EQ(results.size(), 2u);
  // s = 2x, p = x^2, s2 = 2x + x^2.
  EXPECT_EQ(valuesOf(results[0]), (Values{3, 15}));
  EXPECT_EQ(valuesOf(results[1]), (Values{1, 9}));
}

TEST_F(InterpretStructureTest, Errors) {
  module = parseModule(context, R"(
    func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
      return %x : tensor<2xf32>
    }
    func.func private @ext(%x: tensor<2xf32>) -> tensor<2xf32>
    func.func @g(%x: tensor<2xf32>) -> tensor<2xf32> {
      %y = func.call @ext(%x) : (tensor<2xf32>) -> tensor<2xf32>
      return %y : tensor<2xf32>
    }
    func.func @h(%x: tensor<2xf32>) -> tensor<2xf32> {
      %y = arith.addf %x, %x : tensor<2xf32>
      return %y : tensor<2xf32>
    }
    func.func @resource() -> tensor<2xf32> {
      %c = lax.constant dense_resource<blob> : tensor<2xf32>
      return %c : tensor<2xf32>
    }
    func.func @scalar() -> tensor<2xf32> {
      %s = arith.constant 1.0 : f32
      %c = lax.constant dense<1.0> : tensor<2xf32>
      return %c : tensor<2xf32>
    }
    func.func @rec(%x: tensor<2xf32>) -> tensor<2xf32> {
      %y = func.call @rec(%x) : (tensor<2xf32>) -> tensor<2xf32>
      return %y : tensor<2xf32>
    })");
  ASSERT_TRUE(module);
  Tensor x = makeTensor(context, "tensor<2xf32>", {1, 2});
  EXPECT_NE(interpretError(*module, "nope", {x}).find("no function named 'nope'"),
            std::string::npos);
  EXPECT_NE(interpretError(*module, "f", {}).find("expected 1 inputs, got 0"), std::string::npos);
  std::string wrongType =
      interpretError(*module, "f", {makeTensor(context, "tensor<3xf32>", {1, 2, 3})});
  EXPECT_NE(wrongType.find("input #0 has type 'tensor<3xf32>', expected 'tensor<2xf32>'"),
            std::string::npos)
      << wrongType;
  EXPECT_NE(interpretError(*module, "g", {x}).find("func.func with a body"), std::string::npos);
  EXPECT_NE(interpretError(*module, "h", {x}).find("the interpreter cannot evaluate 'arith.addf'"),
            std::string::npos);
  EXPECT_NE(interpretError(*module, "resource", {}).find("dense constants only"),
            std::string::npos);
  EXPECT_NE(interpretError(*module, "scalar", {}).find("dense tensor constants only"),
            std::string::npos);
  EXPECT_NE(interpretError(*module, "rec", {x}).find("calls nest deeper than 256"),
            std::string::npos);
  EXPECT_EQ(interpretError(*module, "f", {x}), "");
}

} // namespace
