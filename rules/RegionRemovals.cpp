//===- RegionRemovals.cpp - region rules' remove_* actions ----------------===//
//
// remove_ys, remove_carry and remove_const on a lax.scan or lax.while,
// remove_xs on a lax.scan,
// remove_result and remove_operand on a lax.cond (RegionRulesImpl.h:
// LoopRemoval): the check that the removed part is unobserved, then the op
// rebuilt without it. The other actions are in RegionActions.cpp.
//
//===----------------------------------------------------------------------===//
#include "rules/RegionRulesImpl.h"

#include "dialect/LaxOps.h"
#include "transforms/ScanUtils.h"

using namespace kiln::rules::region;
using namespace mlir;

/// remove_ys(s, j): a ys nobody reads is not stacked. remove_carry(l, i):
/// a carry of a scan or while whose final value nobody reads, which a
/// while's cond does not read, and whose block argument feeds only its own
/// update is not computed (it cannot change the number of iterations nor
/// any other value). remove_const(l, k): a const no region reads.
/// remove_xs(s, j): an xs whose slice the body never reads.
/// remove_result(c, i): a cond result nobody reads is not yielded;
/// remove_operand(c, k): an operand no branch reads is not passed. None
/// changes an observed value.
bool LoopRemoval::plan(ScanOp scan, std::string &why) {
  auto fail = [&](const std::string &m) {
    if (why.empty())
      why = m;
    return false;
  };
  int64_t i = index;
  if (auto c = dyn_cast<CondOp>(from)) {
    if (action == "remove_result")
      return (i >= 0 && i < c.getNumResults() && c.getResult(i).use_empty()) ||
             fail("remove_result: the result is read");
    if (action == "remove_operand")
      return (i >= 0 && i < (int64_t)c.getBranchOperands().size() &&
              llvm::all_of(c.getBranches(),
                           [&](Region &b) { return b.front().getArgument(i).use_empty(); })) ||
             fail("remove_operand: a branch reads the operand");
    return fail(action + " does not apply to a lax.cond (remove_result, remove_operand do)");
  }
  if (action == "remove_result" || action == "remove_operand")
    return fail(action + " applies to a lax.cond");
  if (action == "remove_const")
    return (constArg(from, i) && constArg(from, i).use_empty()) ||
           fail("remove_const: the const is read");
  if (action == "remove_xs")
    return (scan && from == scan.getOperation() && i >= 0 &&
            i < (int64_t)scan.getXSliceArgs().size() && scan.getXSliceArgs()[i].use_empty()) ||
           fail("remove_xs: the body reads the xs slice (or it is not an xs of a lax.scan)");
  if (action == "remove_carry")
    return carryFeedsOnlyItself(from, i, &fedOps) ||
           fail("remove_carry: the final carry is read, or the carry feeds more than its own "
                "update");
  // remove_ys
  return (scan && i >= 0 && i < (int64_t)scan.getYs().size() && scan.getYs()[i].use_empty()) ||
         fail("remove_ys: the ys is read");
}

/// Erases the ops that only fed a removed carry, users first.
void LoopRemoval::eraseFedOps(RewriterBase &rewriter) {
  SmallVector<Operation *> order(fedOps.begin(), fedOps.end());
  llvm::sort(order, [](Operation *a, Operation *b) { return b->isBeforeInBlock(a); });
  for (Operation *op : order)
    rewriter.eraseOp(op);
}

/// Replaces `block`'s yield by one without operand `i`.
static void dropYielded(RewriterBase &rewriter, Block &block, unsigned i) {
  Operation *yield = block.getTerminator();
  SmallVector<Value> yields(yield->getOperands());
  yields.erase(yields.begin() + i);
  rewriter.setInsertionPoint(yield);
  rewriter.replaceOpWithNewOp<kiln::lax::YieldOp>(yield, yields);
}

/// Replaces `old`'s results by `rebuilt`'s, skipping result `removed` (-1:
/// none; it has no uses), and erases `old`.
static void replaceRebuilt(RewriterBase &rewriter, Operation *old, Operation *rebuilt,
                           int64_t removed) {
  unsigned r = 0;
  for (unsigned i = 0; i < old->getNumResults(); ++i)
    if ((int64_t)i != removed)
      rewriter.replaceAllUsesWith(old->getResult(i), rebuilt->getResult(r++));
  rewriter.eraseOp(old);
}

void LoopRemoval::applyToWhile(RewriterBase &rewriter, WhileOp w) {
  SmallVector<Value> condConsts(w.getCondConsts()), bodyConsts(w.getBodyConsts()),
      inits(w.getInits());
  Block &condBlock = w.getCondBlock(), &body = w.getBodyBlock();
  int64_t k = index, numCond = w.getNumCondConsts();
  if (action == "remove_const") {
    if (k < numCond) {
      condConsts.erase(condConsts.begin() + k);
      condBlock.eraseArgument(k);
    } else {
      bodyConsts.erase(bodyConsts.begin() + (k - numCond));
      body.eraseArgument(k - numCond);
    }
  } else {
    dropYielded(rewriter, body, k);
    eraseFedOps(rewriter);
    body.eraseArgument(w.getNumBodyConsts() + k);
    condBlock.eraseArgument(numCond + k);
    inits.erase(inits.begin() + k);
  }
  rewriter.setInsertionPoint(w);
  auto rebuilt = WhileOp::create(rewriter, w.getLoc(), condConsts, bodyConsts, inits);
  rebuilt->setDiscardableAttrs(w->getDiscardableAttrDictionary());
  rewriter.inlineRegionBefore(w.getCond(), rebuilt.getCond(), rebuilt.getCond().end());
  rewriter.inlineRegionBefore(w.getBody(), rebuilt.getBody(), rebuilt.getBody().end());
  replaceRebuilt(rewriter, w, rebuilt, action == "remove_carry" ? k : -1);
}

void LoopRemoval::applyToCond(RewriterBase &rewriter, CondOp c) {
  SmallVector<Type> types(c.getResultTypes());
  SmallVector<Value> operands(c.getBranchOperands());
  int64_t i = index;
  for (Region &branch : c.getBranches()) {
    if (action == "remove_result")
      dropYielded(rewriter, branch.front(), i);
    else
      branch.front().eraseArgument(i);
  }
  if (action == "remove_result")
    types.erase(types.begin() + i);
  else
    operands.erase(operands.begin() + i);
  rewriter.setInsertionPoint(c);
  auto rebuilt = CondOp::create(rewriter, c.getLoc(), types, c.getIndex(), operands,
                                c.getNumBranches());
  rebuilt->setDiscardableAttrs(c->getDiscardableAttrDictionary());
  for (auto [to, from] : llvm::zip(rebuilt.getBranches(), c.getBranches()))
    rewriter.inlineRegionBefore(from, to, to.end());
  replaceRebuilt(rewriter, c, rebuilt, action == "remove_result" ? i : -1);
}

void LoopRemoval::apply(RewriterBase &rewriter, ScanOp scan) {
  if (auto w = dyn_cast<WhileOp>(from))
    return applyToWhile(rewriter, w);
  if (auto c = dyn_cast<CondOp>(from))
    return applyToCond(rewriter, c);
  kiln::ScanSignature sig = kiln::ScanSignature::of(scan);
  Block &body = scan.getBodyBlock();
  int64_t k = index, numCarry = scan.getNumCarry();
  int64_t removedResult = -1;
  if (action == "remove_const") {
    sig.consts.erase(sig.consts.begin() + k);
    body.eraseArgument(k);
  } else if (action == "remove_xs") {
    body.eraseArgument(scan.getXSliceArgs()[k].getArgNumber());
    sig.xs.erase(sig.xs.begin() + k);
    sig.xsAxes.erase(sig.xsAxes.begin() + k);
  } else if (action == "remove_ys") {
    sig.ysTypes.erase(sig.ysTypes.begin() + k);
    sig.ysAxes.erase(sig.ysAxes.begin() + k);
    dropYielded(rewriter, body, numCarry + k);
    removedResult = numCarry + k;
  } else {
    sig.inits.erase(sig.inits.begin() + k);
    dropYielded(rewriter, body, k);
    eraseFedOps(rewriter);
    body.eraseArgument(scan.getNumConsts() + k);
    removedResult = k;
  }
  replaceRebuilt(rewriter, scan, kiln::rebuildScan(rewriter, scan, sig), removedResult);
}
