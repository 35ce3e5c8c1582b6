//===- FuseElementwise.cpp - --kiln-fuse-elementwise ----------------------===//
//
// Upstream's elementwise fusion (linalg-fuse-elementwise-ops: the same
// patterns, reshape folding and canonicalizations) with one more condition:
// a producer that computes something is not fused into a consumer that
// would compute each of its elements more than once.
//
// Fusion inlines the producer's body into the consumer's, evaluated at the
// consumer's iteration point. When the consumer's indexing map for the
// fused operand leaves out loop dimensions (a broadcast: matvec reads x[k]
// in every row i), every producer element is recomputed once per point of
// those dimensions. For patrick-kidger/equinox#928's MLP, relu(h + b) of one layer fused
// into the next layer's matvec ran 64 times per element (4096 adds and
// maxes instead of 64). Not fusing is always exact: the producer's result
// is materialised once and read where the fused body would have recomputed
// it, the same values either way.
//
// Nor does a fusion grow an op past kMaxFusedInputs inputs or
// kMaxFusedBodyOps operations in its body: each fusion builds a new op
// with both bodies cloned, so a chain of n elementwise ops fused into one
// cost O(n^2) (a sum of 1,200 inputs: 2.9 s of this pass alone), and one
// loop reading a thousand arrays gains nothing over a few such loops.
//
//===----------------------------------------------------------------------===//
#include "lowering/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kiln {
#define GEN_PASS_DEF_FUSEELEMENTWISE
#include "lowering/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

/// Whether each element of `operand` is read at one consumer iteration
/// only: every loop its indexing map leaves out runs once (a dynamic range
/// may run more).
bool readOnce(linalg::GenericOp consumer, OpOperand &operand) {
  AffineMap map = consumer.getMatchingIndexingMap(&operand);
  for (auto [d, range] : llvm::enumerate(consumer.getStaticLoopRanges()))
    if (!map.isFunctionOfDim(d) && range != 1)
      return false;
  return true;
}

/// A body that only yields its block arguments (a broadcast, a transpose,
/// a copy): recomputing it is reading the input again.
bool onlyMovesData(linalg::GenericOp op) {
  return llvm::hasSingleElement(op.getBody()->getOperations());
}

constexpr unsigned kMaxFusedInputs = 64;
constexpr size_t kMaxFusedBodyOps = 512;

/// Whether fusing `producer` into `consumer` keeps the fused op within
/// kMaxFusedInputs and kMaxFusedBodyOps.
bool fusedSizeWithinLimits(linalg::GenericOp producer, linalg::GenericOp consumer) {
  return consumer.getNumDpsInputs() + producer.getNumDpsInputs() <= kMaxFusedInputs + 1 &&
         consumer.getBody()->getOperations().size() +
                 producer.getBody()->getOperations().size() <=
             kMaxFusedBodyOps;
}

bool shouldFuse(OpOperand *fused) {
  Operation *producer = fused->get().getDefiningOp();
  if (!producer || !producer->hasOneUse()) // upstream's condition
    return false;
  auto consumer = dyn_cast<linalg::GenericOp>(fused->getOwner());
  auto generic = dyn_cast<linalg::GenericOp>(producer);
  if (consumer && generic && !fusedSizeWithinLimits(generic, consumer))
    return false;
  if (!consumer || !generic || onlyMovesData(generic))
    return true;
  return readOnce(consumer, *fused);
}

struct FuseElementwisePass : kiln::impl::FuseElementwiseBase<FuseElementwisePass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    linalg::ControlFusionFn control = shouldFuse;
    linalg::populateElementwiseOpsFusionPatterns(patterns, control);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, control);
    tensor::populateBubbleUpExpandShapePatterns(patterns);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, context);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, context);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, context);
    context->getLoadedDialect<linalg::LinalgDialect>()->getCanonicalizationPatterns(patterns);
    linalg::populateConstantFoldLinalgOperations(patterns, control);
    GreedyRewriteConfig config;
    config.setUseTopDownTraversal(true);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      signalPassFailure();
  }
};

} // namespace
