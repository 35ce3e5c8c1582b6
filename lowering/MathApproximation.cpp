//===- MathApproximation.cpp - vectorizable f32 math ----------------------===//
//
// math.sin/cos/exp/log/tanh/... on f32 become upstream's polynomial
// approximations (MLIR's populateMathPolynomialApproximationPatterns): plain
// arithmetic that the loop vectorizer turns into SIMD code, where libm calls
// stay scalar. The approximations are accurate to a few ulp on f32 (upstream
// checks them against libm); f64 keeps libm. jax-ml/jax#4968's `cos` over 8M
// elements is the motivating case.
//
//===----------------------------------------------------------------------===//
#include "lowering/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kiln {
#define GEN_PASS_DEF_APPROXIMATEMATH
#include "lowering/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {
struct ApproximateMathPass : kiln::impl::ApproximateMathBase<ApproximateMathPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // The predicate sees the op name (upstream spells some "math.cos",
    // others "tanh"): accept both spellings of the ops Kiln emits.
    populateMathPolynomialApproximationPatterns(patterns, [](StringRef name) {
      name.consume_front("math.");
      return llvm::is_contained({"sin", "cos", "exp", "expm1", "log", "log1p", "log2",
                                 "tanh", "erf", "atan", "atan2"},
                                name);
    });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
