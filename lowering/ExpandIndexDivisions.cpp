//===- ExpandIndexDivisions.cpp - ceildiv/floordiv to plain arith ---------===//
//
// The CPU pipeline's async-parallel-for emits arith.ceildivsi & co., which
// ArithToLLVM does not lower. Only those are expanded here: upstream's
// arith-expand would also turn arith.maximumf/minimumf into a compare and a
// select that lose IEEE 754-2019's -0 < +0 (see Passes.td).
//
//===----------------------------------------------------------------------===//
#include "lowering/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kiln {
#define GEN_PASS_DEF_EXPANDINDEXDIVISIONS
#include "lowering/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {
struct ExpandIndexDivisionsPass
    : kiln::impl::ExpandIndexDivisionsBase<ExpandIndexDivisionsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    arith::populateCeilFloorDivExpandOpsPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
