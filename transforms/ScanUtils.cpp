//===- ScanUtils.cpp - rebuilding lax.scan ops ----------------------------===//
#include "transforms/ScanUtils.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::lax;

ScanSignature ScanSignature::of(ScanOp scan) {
  ScanSignature s;
  s.consts.assign(scan.getConsts().begin(), scan.getConsts().end());
  s.inits.assign(scan.getInits().begin(), scan.getInits().end());
  s.xs.assign(scan.getXs().begin(), scan.getXs().end());
  s.xsAxes.assign(scan.getXsAxes().begin(), scan.getXsAxes().end());
  s.ysAxes.assign(scan.getYsAxes().begin(), scan.getYsAxes().end());
  for (Value y : scan.getYs())
    s.ysTypes.push_back(y.getType());
  s.length = scan.getLength();
  s.reverse = scan.getReverse();
  s.unroll = scan.getUnroll();
  return s;
}

bool kiln::availableBefore(Value v, ScanOp scan) {
  Block *block = v.getParentBlock();
  if (!block)
    return false;
  Operation *ancestor = block->findAncestorOpInBlock(*scan);
  if (!ancestor)
    return false;
  if (isa<BlockArgument>(v))
    return true;
  Operation *def = v.getDefiningOp();
  return def != ancestor && def->isBeforeInBlock(ancestor);
}

ScanOp kiln::rebuildScan(RewriterBase &rewriter, ScanOp scan,
                         const ScanSignature &s) {
  SmallVector<Value> args(s.consts);
  llvm::append_range(args, s.inits);
  llvm::append_range(args, s.xs);
  SmallVector<Type> resultTypes;
  for (Value init : s.inits)
    resultTypes.push_back(init.getType());
  llvm::append_range(resultTypes, s.ysTypes);
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(scan);
  auto rebuilt = ScanOp::create(rewriter, scan.getLoc(), resultTypes, args, s.length,
                                s.consts.size(), s.inits.size(), s.reverse, s.unroll,
                                s.xsAxes, s.ysAxes);
  rebuilt->setDiscardableAttrs(scan->getDiscardableAttrDictionary());
  rewriter.inlineRegionBefore(scan.getBody(), rebuilt.getBody(), rebuilt.getBody().end());
  return rebuilt;
}

ExtendedScan
kiln::extendScan(RewriterBase &rewriter, ScanOp scan, const ScanExtension &ext,
                 function_ref<ScanBodyYields(OpBuilder &, const ScanBodyView &)> buildBody) {
  Block &body = scan.getBodyBlock();
  Location loc = scan.getLoc();
  unsigned numConsts = scan.getNumConsts(), numCarry = scan.getNumCarry();
  auto yield = cast<YieldOp>(body.getTerminator());
  SmallVector<Value> oldYields(yield.getValues());

  // New block arguments: consts after the old consts, carries after the old
  // carries, xs slices at the end.
  SmallVector<Value> constArgs, carryArgs, sliceArgs;
  for (auto [k, c] : llvm::enumerate(ext.consts))
    constArgs.push_back(body.insertArgument(numConsts + k, c.getType(), loc));
  unsigned carryStart = numConsts + ext.consts.size() + numCarry;
  for (auto [k, init] : llvm::enumerate(ext.inits))
    carryArgs.push_back(body.insertArgument(carryStart + k, init.getType(), loc));
  for (auto [x, axis] : llvm::zip(ext.xs, ext.xsAxes))
    sliceArgs.push_back(
        body.addArgument(dropDim(cast<RankedTensorType>(x.getType()), axis), loc));

  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(yield);
  ScanBodyView view{constArgs, carryArgs, sliceArgs,
                    ValueRange(oldYields).take_front(numCarry),
                    ValueRange(oldYields).drop_front(numCarry)};
  ScanBodyYields yields = buildBody(rewriter, view);
  assert(yields.carries.size() == ext.inits.size() &&
         yields.ys.size() == ext.ysAxes.size() && "one yield per new carry and ys");

  SmallVector<Value> newYields(view.oldCarryYields);
  llvm::append_range(newYields, yields.carries);
  llvm::append_range(newYields, view.oldYsYields);
  llvm::append_range(newYields, yields.ys);
  rewriter.replaceOpWithNewOp<YieldOp>(yield, newYields);

  ScanSignature signature = ScanSignature::of(scan);
  llvm::append_range(signature.consts, ext.consts);
  llvm::append_range(signature.inits, ext.inits);
  llvm::append_range(signature.xs, ext.xs);
  llvm::append_range(signature.xsAxes, ext.xsAxes);
  for (auto [y, axis] : llvm::zip(yields.ys, ext.ysAxes)) {
    signature.ysTypes.push_back(
        insertDim(cast<RankedTensorType>(y.getType()), axis, scan.getLength()));
    signature.ysAxes.push_back(axis);
  }
  ScanOp rebuilt = rebuildScan(rewriter, scan, signature);

  unsigned newCarries = ext.inits.size();
  unsigned numOldYs = scan.getYs().size();
  SmallVector<Value> replacements;
  for (unsigned i = 0; i < numCarry; ++i)
    replacements.push_back(rebuilt.getResult(i));
  for (unsigned j = 0; j < numOldYs; ++j)
    replacements.push_back(rebuilt.getResult(numCarry + newCarries + j));
  rewriter.replaceOp(scan, replacements);
  return ExtendedScan{rebuilt, numCarry, numCarry + newCarries + numOldYs};
}
