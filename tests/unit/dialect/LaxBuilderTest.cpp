//===- LaxBuilderTest.cpp - building lax IR from C++ ----------------------===//
#include "dialect/LaxDialect.h"
#include "dialect/LaxOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace kiln::lax;

namespace {

class LaxBuilderTest : public ::testing::Test {
protected:
  LaxBuilderTest() : builder(&context) {
    context.loadDialect<LaxDialect, func::FuncDialect>();
    module = ModuleOp::create(builder.getUnknownLoc());
    builder.setInsertionPointToEnd(module->getBody());
  }

  RankedTensorType f32(ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, builder.getF32Type());
  }

  /// Starts `func.func @name(argTypes)`, leaving the builder in its body.
  func::FuncOp startFunction(StringRef name, TypeRange argTypes) {
    auto func = func::FuncOp::create(builder, builder.getUnknownLoc(), name,
                                     builder.getFunctionType(argTypes, {}));
    builder.setInsertionPointToStart(func.addEntryBlock());
    return func;
  }

  /// Sets the function's results to `results` and returns it.
  void finishFunction(func::FuncOp func, ValueRange results) {
    func::ReturnOp::create(builder, builder.getUnknownLoc(), results);
    func.setType(builder.getFunctionType(func.getArgumentTypes(),
                                         TypeRange(ValueRange(results))));
  }

  MLIRContext context;
  OpBuilder builder;
  OwningOpRef<ModuleOp> module;
};

// The seed 002 scan, built with ScanOp::create: result types follow from the
// body (carry type, ys stacked along axis 0 with `length` slices).
TEST_F(LaxBuilderTest, BuildsAndVerifiesScan) {
  Location loc = builder.getUnknownLoc();
  auto func = startFunction("mse", {f32({10, 5, 8}), f32({30, 15, 12})});
  Value c0 = func.getArgument(0), xs = func.getArgument(1);
  auto scan = ScanOp::create(
      builder, loc, /*consts=*/{}, /*inits=*/{c0}, /*xs=*/{xs}, /*length=*/30,
      [](OpBuilder &b, Location l, ValueRange, ValueRange carries,
         ValueRange slices) -> SmallVector<Value> {
        Value s = SinOp::create(b, l, carries[0]);
        Value c = CosOp::create(b, l, slices[0]);
        return {s, c};
      });
  finishFunction(func, scan.getResults());

  ASSERT_TRUE(succeeded(verify(*module)));
  EXPECT_EQ(scan.getNumConsts(), 0);
  EXPECT_EQ(scan.getNumCarry(), 1);
  EXPECT_EQ(scan.getLength(), 30);
  EXPECT_FALSE(scan.getReverse());
  ASSERT_EQ(scan.getYs().size(), 1u);
  EXPECT_EQ(scan.getFinalCarries()[0].getType(), f32({10, 5, 8}));
  EXPECT_EQ(scan.getYs()[0].getType(), f32({30, 15, 12}));
  EXPECT_EQ(scan.getXSliceArgs()[0].getType(), f32({15, 12}));
}

// A scan over axis 1 of its xs, stacking ys along axis 1, with a const.
TEST_F(LaxBuilderTest, ScanOverAnyAxis) {
  Location loc = builder.getUnknownLoc();
  auto func = startFunction("axes", {f32({4}), f32({4}), f32({4, 7})});
  auto scan = ScanOp::create(
      builder, loc, {func.getArgument(0)}, {func.getArgument(1)}, {func.getArgument(2)},
      /*length=*/7,
      [](OpBuilder &b, Location l, ValueRange consts, ValueRange carries,
         ValueRange slices) -> SmallVector<Value> {
        Value sum = AddOp::create(b, l, carries[0], slices[0]);
        Value scaled = MulOp::create(b, l, sum, consts[0]);
        return {scaled, sum};
      },
      /*reverse=*/true, /*xsAxes=*/{1}, /*ysAxes=*/{1});
  finishFunction(func, scan.getResults());

  ASSERT_TRUE(succeeded(verify(*module)));
  EXPECT_TRUE(scan.getReverse());
  EXPECT_EQ(scan.getConsts().size(), 1u);
  EXPECT_EQ(scan.getXsAxis(0), 1);
  EXPECT_EQ(scan.getYs()[0].getType(), f32({4, 7}));
}

// Ops infer their result types: no type to spell in C++.
TEST_F(LaxBuilderTest, InfersResultTypes) {
  Location loc = builder.getUnknownLoc();
  auto func = startFunction("infer", {f32({600, 821}), f32({32, 100, 821})});
  Value w = func.getArgument(0), a = func.getArgument(1);
  auto dot = DotGeneralOp::create(builder, loc, w, a, ArrayRef<int64_t>{1},
                                  ArrayRef<int64_t>{2}, ArrayRef<int64_t>{},
                                  ArrayRef<int64_t>{}, TypeAttr());
  EXPECT_EQ(dot.getType(), f32({600, 32, 100}));
  auto transposed = TransposeOp::create(builder, loc, dot, ArrayRef<int64_t>{1, 2, 0});
  EXPECT_EQ(transposed.getType(), f32({32, 100, 600}));
  auto sum = ReduceSumOp::create(builder, loc, transposed, ArrayRef<int64_t>{0, 2});
  EXPECT_EQ(sum.getType(), f32({100}));
  auto cmp = CompareOp::create(builder, loc, ComparisonDirection::LT, sum, sum);
  EXPECT_EQ(cmp.getType(), RankedTensorType::get({100}, builder.getI1Type()));
  auto splat = ConstantOp::create(builder, loc, f32({2, 2}), 1.5);
  EXPECT_EQ(splat.getType(), f32({2, 2}));
  finishFunction(func, {sum});
  EXPECT_TRUE(succeeded(verify(*module)));
}

// A body whose ys slice does not match the declared result is rejected with
// a message naming the value and the expected type.
TEST_F(LaxBuilderTest, RejectsMismatchedScanBody) {
  Location loc = builder.getUnknownLoc();
  auto func = startFunction("bad", {f32({3}), f32({5, 3})});
  auto scan = ScanOp::create(
      builder, loc, {}, {func.getArgument(0)}, {func.getArgument(1)}, 5,
      [](OpBuilder &, Location, ValueRange, ValueRange carries,
         ValueRange slices) -> SmallVector<Value> { return {carries[0], slices[0]}; });
  finishFunction(func, scan.getResults());
  ASSERT_TRUE(succeeded(verify(*module)));

  // Break it: make the ys result claim a different slice shape.
  scan.getResult(1).setType(f32({5, 4}));
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  EXPECT_TRUE(failed(verify(*module)));
  EXPECT_NE(message.find("value #1 has type 'tensor<3xf32>', expected "
                         "'tensor<4xf32>' (one slice of the ys)"),
            std::string::npos)
      << message;
}

} // namespace
