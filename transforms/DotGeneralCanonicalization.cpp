//===- DotGeneralCanonicalization.cpp - jax-ml/jax#19327 --------------------------===//
//
// dot_general and transpose: fold operand transposes into the dimension
// numbers, turn a result transpose into an operand swap, and bring the
// contraction into one canonical form, so that jax-ml/jax#19327's f1 (dot_general then
// transpose) and f2 (the einsum form) become the same IR.
//
// All rewrites here are exact: they only relabel dimensions or swap the
// operands of a product (IEEE multiplication is commutative); the set of
// products summed for each result element is unchanged.
//
//===----------------------------------------------------------------------===//
#include "dialect/LaxOps.h"
#include "transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kiln {
#define GEN_PASS_DEF_CANONICALIZEDOTGENERAL
#include "transforms/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln;
using namespace kiln::lax;

namespace {

/// The dimension numbers of a dot_general, operand by operand.
struct DotDims {
  SmallVector<int64_t> contracting[2];
  SmallVector<int64_t> batch[2];

  explicit DotDims(DotGeneralOp op) {
    contracting[0].assign(op.getLhsContractingDimensions().begin(),
                          op.getLhsContractingDimensions().end());
    contracting[1].assign(op.getRhsContractingDimensions().begin(),
                          op.getRhsContractingDimensions().end());
    batch[0].assign(op.getLhsBatchDimensions().begin(), op.getLhsBatchDimensions().end());
    batch[1].assign(op.getRhsBatchDimensions().begin(), op.getRhsBatchDimensions().end());
  }

  /// Free dimensions of operand `side` (neither contracting nor batch), in order.
  SmallVector<int64_t> freeDims(unsigned side, int64_t rank) const {
    SmallVector<int64_t> free;
    for (int64_t d = 0; d < rank; ++d)
      if (!llvm::is_contained(contracting[side], d) && !llvm::is_contained(batch[side], d))
        free.push_back(d);
    return free;
  }

  void swapSides() {
    std::swap(contracting[0], contracting[1]);
    std::swap(batch[0], batch[1]);
  }
};

DotGeneralOp createDot(PatternRewriter &rewriter, DotGeneralOp like, Value lhs,
                       Value rhs, const DotDims &dims) {
  return DotGeneralOp::create(rewriter, like.getLoc(), lhs, rhs, dims.contracting[0],
                              dims.contracting[1], dims.batch[0], dims.batch[1],
                              like.getPreferredElementTypeAttr());
}

int64_t rankOf(Value v) { return cast<RankedTensorType>(v.getType()).getRank(); }

/// dot_general(transpose(x, p), y) -> dot_general(x, y) with dimension d of
/// the transposed operand renamed p[d]. Sound when p keeps the free
/// dimensions in increasing order: they then appear in the result in the same
/// order, and contracting/batch pairs are only renamed.
struct FoldTransposeIntoDotOperand : OpRewritePattern<DotGeneralOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DotGeneralOp op, PatternRewriter &rewriter) const override {
    for (unsigned side = 0; side < 2; ++side) {
      Value operand = side == 0 ? op.getLhs() : op.getRhs();
      auto transpose = operand.getDefiningOp<TransposeOp>();
      if (!transpose)
        continue;
      ArrayRef<int64_t> perm = transpose.getPermutation();
      DotDims dims(op);
      SmallVector<int64_t> free = dims.freeDims(side, rankOf(operand));
      bool keepsFreeOrder = true;
      for (size_t i = 1; i < free.size(); ++i)
        keepsFreeOrder &= perm[free[i - 1]] < perm[free[i]];
      if (!keepsFreeOrder)
        continue;
      for (int64_t &d : dims.contracting[side])
        d = perm[d];
      for (int64_t &d : dims.batch[side])
        d = perm[d];
      Value lhs = side == 0 ? transpose.getOperand() : op.getLhs();
      Value rhs = side == 1 ? transpose.getOperand() : op.getRhs();
      rewriter.replaceOp(op, createDot(rewriter, op, lhs, rhs, dims));
      return success();
    }
    return rewriter.notifyMatchFailure(op, "no operand transpose that keeps free dims in order");
  }
};

/// transpose(dot_general(l, r), q) with q = (batch, rhs free, lhs free)
/// -> dot_general(r, l): swapping the operands yields exactly that order.
struct FoldResultTransposeIntoOperandSwap : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op, PatternRewriter &rewriter) const override {
    auto dot = op.getOperand().getDefiningOp<DotGeneralOp>();
    if (!dot)
      return rewriter.notifyMatchFailure(op, "operand is not a dot_general");
    if (!dot->hasOneUse())
      return rewriter.notifyMatchFailure(op, "dot_general has other uses: a swap would compute it twice");
    DotDims dims(dot);
    int64_t numBatch = dims.batch[0].size();
    int64_t numLhsFree = dims.freeDims(0, rankOf(dot.getLhs())).size();
    int64_t numRhsFree = dims.freeDims(1, rankOf(dot.getRhs())).size();
    SmallVector<int64_t> swapped;
    for (int64_t i = 0; i < numBatch; ++i)
      swapped.push_back(i);
    for (int64_t i = 0; i < numRhsFree; ++i)
      swapped.push_back(numBatch + numLhsFree + i);
    for (int64_t i = 0; i < numLhsFree; ++i)
      swapped.push_back(numBatch + i);
    if (ArrayRef<int64_t>(swapped) != op.getPermutation())
      return rewriter.notifyMatchFailure(op, "permutation is not (batch, rhs free, lhs free)");
    dims.swapSides();
    rewriter.replaceOp(op, createDot(rewriter, dot, dot.getRhs(), dot.getLhs(), dims));
    return success();
  }
};

/// The canonical form: contracting pairs sorted by lhs dimension (the pairs
/// are an unordered set), an operand without free dimensions on the right
/// (then the result order batch + free does not depend on the operand order),
/// and no preferred_element_type equal to the operands' (it changes nothing).
struct CanonicalDotForm : OpRewritePattern<DotGeneralOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DotGeneralOp op, PatternRewriter &rewriter) const override {
    DotDims dims(op);
    bool changed = false;
    SmallVector<std::pair<int64_t, int64_t>> pairs;
    for (auto [l, r] : llvm::zip(dims.contracting[0], dims.contracting[1]))
      pairs.push_back({l, r});
    if (!llvm::is_sorted(pairs)) {
      llvm::sort(pairs);
      for (auto [i, pair] : llvm::enumerate(pairs)) {
        dims.contracting[0][i] = pair.first;
        dims.contracting[1][i] = pair.second;
      }
      changed = true;
    }
    Value lhs = op.getLhs(), rhs = op.getRhs();
    if (dims.freeDims(0, rankOf(lhs)).empty() && !dims.freeDims(1, rankOf(rhs)).empty()) {
      dims.swapSides();
      std::swap(lhs, rhs);
      changed = true;
    }
    TypeAttr preferred = op.getPreferredElementTypeAttr();
    if (preferred && preferred.getValue() == op.getLhs().getType().getElementType()) {
      preferred = nullptr;
      changed = true;
    }
    if (!changed)
      return rewriter.notifyMatchFailure(op, "already canonical");
    rewriter.replaceOp(op, DotGeneralOp::create(rewriter, op.getLoc(), lhs, rhs,
                                                dims.contracting[0], dims.contracting[1],
                                                dims.batch[0], dims.batch[1], preferred));
    return success();
  }
};

struct CanonicalizeDotGeneralPass
    : kiln::impl::CanonicalizeDotGeneralBase<CanonicalizeDotGeneralPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateDotGeneralCanonicalizationPatterns(patterns);
    TransposeOp::getCanonicalizationPatterns(patterns, &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void kiln::populateDotGeneralCanonicalizationPatterns(RewritePatternSet &patterns) {
  patterns.add<FoldTransposeIntoDotOperand, FoldResultTransposeIntoOperandSwap,
               CanonicalDotForm>(patterns.getContext());
}
