//===- ScanLayoutFolding.cpp - jax-ml/jax#2491 -----------------------------------===//
//
// jax-ml/jax#2491 transposes its (systems, n) diagonals so that lax.scan walks axis
// 0, then reverses the stacked outputs with [::-1] for the back-substitution.
// lax.scan has a scan axis per xs operand and per ys result and a `reverse`
// flag, so both the transposes and the reverses fold into the scan: the loop
// reads and writes the original layout directly.
//
// All three rewrites are exact: they change which memory a slice is read from
// or written to, never the values computed.
//
//===----------------------------------------------------------------------===//
#include "dialect/LaxOps.h"
#include "transforms/Passes.h"
#include "transforms/ScanUtils.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kiln {
#define GEN_PASS_DEF_FOLDSCANLAYOUT
#include "transforms/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln;
using namespace kiln::lax;

namespace {

/// True when `perm` without the entry at `skip` is increasing: the dimensions
/// other than the scan axis keep their relative order, so a slice has the
/// same layout with or without the transpose.
bool keepsOrderExcept(ArrayRef<int64_t> perm, int64_t skip) {
  int64_t last = -1;
  for (auto [i, p] : llvm::enumerate(perm)) {
    if ((int64_t)i == skip)
      continue;
    if (p < last)
      return false;
    last = p;
  }
  return true;
}

/// xs = transpose(x, p) scanned along axis a: slice i of it is slice i of x
/// along axis p[a], in the same layout when p keeps the other dims in order.
struct FoldTransposeIntoXs : OpRewritePattern<ScanOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ScanOp scan, PatternRewriter &rewriter) const override {
    for (auto [j, x] : llvm::enumerate(scan.getXs())) {
      auto transpose = x.getDefiningOp<TransposeOp>();
      if (!transpose)
        continue;
      ArrayRef<int64_t> perm = transpose.getPermutation();
      int64_t axis = scan.getXsAxis(j);
      if (!keepsOrderExcept(perm, axis))
        continue;
      SmallVector<int64_t> axes(scan.getXsAxes());
      axes[j] = perm[axis];
      unsigned operandIndex = scan.getNumConsts() + scan.getNumCarry() + j;
      rewriter.modifyOpInPlace(scan, [&] {
        scan->setOperand(operandIndex, transpose.getOperand());
        scan.setXsAxes(axes);
      });
      return success();
    }
    return rewriter.notifyMatchFailure(scan, "no xs transpose that keeps slice layout");
  }
};

/// transpose(ys, q) where ys is stacked along axis a: stacking the same
/// slices along axis b = q^-1(a) of the transposed shape produces it
/// directly, when q keeps the slice dimensions in order.
struct FoldTransposeIntoYs : OpRewritePattern<ScanOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ScanOp scan, PatternRewriter &rewriter) const override {
    for (auto [j, ys] : llvm::enumerate(scan.getYs())) {
      if (!ys.hasOneUse())
        continue;
      auto transpose = dyn_cast<TransposeOp>(*ys.getUsers().begin());
      if (!transpose)
        continue;
      ArrayRef<int64_t> perm = transpose.getPermutation();
      int64_t axis = scan.getYsAxis(j);
      int64_t newAxis = llvm::find(perm, axis) - perm.begin();
      if (!keepsOrderExcept(perm, newAxis))
        continue;
      ScanSignature signature = ScanSignature::of(scan);
      signature.ysAxes[j] = newAxis;
      signature.ysTypes[j] = transpose.getType();
      ScanOp rebuilt = rebuildScan(rewriter, scan, signature);
      unsigned resultIndex = scan.getNumCarry() + j;
      rewriter.replaceOp(transpose, rebuilt.getResult(resultIndex));
      SmallVector<Value> replacements(rebuilt.getResults());
      replacements[resultIndex] = nullptr; // its only user is gone
      for (auto [old, repl] : llvm::zip(scan.getResults(), replacements))
        if (repl)
          rewriter.replaceAllUsesWith(old, repl);
      rewriter.eraseOp(scan);
      return success();
    }
    return rewriter.notifyMatchFailure(scan, "no ys with a single layout-keeping transpose");
  }
};

/// Whether `v` is a rev whose dimensions include `axis`.
RevOp revAlong(Value v, int64_t axis) {
  auto rev = v.getDefiningOp<RevOp>();
  return rev && llvm::is_contained(rev.getDimensions(), axis) ? rev : RevOp();
}

/// Builds rev(x) over `dims` without `axis`, or returns x when none remain.
Value revWithout(PatternRewriter &rewriter, Location loc, Value x,
                 ArrayRef<int64_t> dims, int64_t axis) {
  SmallVector<int64_t> rest;
  for (int64_t d : dims)
    if (d != axis)
      rest.push_back(d);
  if (rest.empty())
    return x;
  return RevOp::create(rewriter, loc, x, rest);
}

/// A scan reading every xs through rev along its scan axis, whose ys are only
/// read through rev along their scan axis: step s reads xs slice L-1-s and its
/// ys slice s ends at L-1-s. The same scan with `reverse` flipped reads the
/// original xs slice L-1-s at step s and writes its ys slice to index L-1-s
/// directly, so the carries are identical and the reverses disappear.
struct FoldRevIntoReverse : OpRewritePattern<ScanOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ScanOp scan, PatternRewriter &rewriter) const override {
    bool anyRev = false;
    for (auto [j, x] : llvm::enumerate(scan.getXs())) {
      if (!revAlong(x, scan.getXsAxis(j)))
        return rewriter.notifyMatchFailure(scan, "an xs is not reversed along its scan axis");
      anyRev = true;
    }
    for (auto [j, ys] : llvm::enumerate(scan.getYs()))
      for (Operation *user : ys.getUsers()) {
        auto rev = dyn_cast<RevOp>(user);
        if (!rev || !llvm::is_contained(rev.getDimensions(), scan.getYsAxis(j)))
          return rewriter.notifyMatchFailure(scan, "a ys is used other than through rev");
        anyRev = true;
      }
    if (!anyRev)
      return rewriter.notifyMatchFailure(scan, "nothing reversed");

    ScanSignature signature = ScanSignature::of(scan);
    signature.reverse = !signature.reverse;
    for (auto [j, x] : llvm::enumerate(scan.getXs())) {
      RevOp rev = revAlong(x, scan.getXsAxis(j));
      signature.xs[j] = revWithout(rewriter, scan.getLoc(), rev.getOperand(),
                                   rev.getDimensions(), scan.getXsAxis(j));
    }
    ScanOp rebuilt = rebuildScan(rewriter, scan, signature);
    for (auto [j, ys] : llvm::enumerate(scan.getYs())) {
      Value newYs = rebuilt.getYs()[j];
      for (Operation *user : llvm::make_early_inc_range(ys.getUsers())) {
        auto rev = cast<RevOp>(user);
        rewriter.setInsertionPoint(rev);
        rewriter.replaceOp(rev, revWithout(rewriter, rev.getLoc(), newYs,
                                           rev.getDimensions(), scan.getYsAxis(j)));
      }
    }
    rewriter.replaceOp(scan, rebuilt.getResults());
    return success();
  }
};

struct FoldScanLayoutPass : kiln::impl::FoldScanLayoutBase<FoldScanLayoutPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateScanLayoutFoldingPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void kiln::populateScanLayoutFoldingPatterns(RewritePatternSet &patterns) {
  patterns.add<FoldTransposeIntoXs, FoldTransposeIntoYs, FoldRevIntoReverse>(
      patterns.getContext());
  ScanOp::getCanonicalizationPatterns(patterns, patterns.getContext());
}
