//===- ScanPushUpPatterns.cpp - the push-up as patterns and a pass --------===//
#include "transforms/Passes.h"
#include "transforms/ScanPushUp.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kiln {
#define GEN_PASS_DEF_SCANPUSHUP
#define GEN_PASS_DEF_SCANTOREDUCTION
#include "transforms/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln;
using namespace kiln::lax;

namespace {

/// Any elementwise op reading a ys moves into the scan body (exact).
struct SinkElementwiseConsumer : RewritePattern {
  SinkElementwiseConsumer(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}
  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    if (!op->hasTrait<OpTrait::Elementwise>() || !isa<LaxDialect>(op->getDialect()))
      return rewriter.notifyMatchFailure(op, "not a lax elementwise op");
    return sinkElementwiseIntoScan(rewriter, op);
  }
};

/// A reduction of a ys moves into the body (its non-scan axes) or into a
/// carry (its scan axis). Float sums/products only when reassociation is on.
template <typename ReduceOp>
struct PushReduction : OpRewritePattern<ReduceOp> {
  PushReduction(MLIRContext *ctx, bool reassociate)
      : OpRewritePattern<ReduceOp>(ctx), reassociate(reassociate) {}
  LogicalResult matchAndRewrite(ReduceOp op, PatternRewriter &rewriter) const override {
    if (reductionReassociates(op) && !reassociate)
      return rewriter.notifyMatchFailure(op, "float sum/product: needs reassociates-float");
    if (succeeded(moveReductionIntoScanBody(rewriter, op)))
      return success();
    return scanReductionToCarry(rewriter, op);
  }
  bool reassociate;
};

/// A scan left accumulating full reductions of its xs becomes one reduction
/// over all of them (float sums only when reassociation is on).
struct AccumulatingScanToReduction : OpRewritePattern<ScanOp> {
  AccumulatingScanToReduction(MLIRContext *ctx, bool reassociate)
      : OpRewritePattern<ScanOp>(ctx), reassociate(reassociate) {}
  LogicalResult matchAndRewrite(ScanOp scan, PatternRewriter &rewriter) const override {
    return accumulatingScanToReduction(rewriter, scan, reassociate);
  }
  bool reassociate;
};

struct ScanPushUpPass : kiln::impl::ScanPushUpBase<ScanPushUpPass> {
  using ScanPushUpBase::ScanPushUpBase;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateScanPushUpPatterns(patterns, reassociate);
    ScanOp::getCanonicalizationPatterns(patterns, &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

struct ScanToReductionPass : kiln::impl::ScanToReductionBase<ScanToReductionPass> {
  using ScanToReductionBase::ScanToReductionBase;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<AccumulatingScanToReduction>(&getContext(), reassociate);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void kiln::populateScanPushUpPatterns(RewritePatternSet &patterns, bool reassociate) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<SinkElementwiseConsumer>(ctx);
  patterns.add<PushReduction<ReduceSumOp>, PushReduction<ReduceMaxOp>,
               PushReduction<ReduceMinOp>, PushReduction<ReduceProdOp>>(ctx, reassociate);
}
