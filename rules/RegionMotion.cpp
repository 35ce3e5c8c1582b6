//===- RegionMotion.cpp - region rule actions that move ops across a loop ===//
//
// hoist(op): a pure op that computes the same value at every iteration (of a
// scan, a while) or in every branch (of a cond) computed once before the
// loop; sink(op, scan): an elementwise op over a scan's stacked ys computed
// per slice in its body. Each is planned like every action (RegionRewrite.h):
// ops created detached, every check made before the IR changes.
//
//===----------------------------------------------------------------------===//
#include "rules/RegionRewrite.h"

#include "dialect/LaxOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace kiln::rules;
using namespace kiln::rules::region;
using namespace mlir;
using kiln::availableBefore;

/// hoist(op): an op of a scan body, a while region or a cond branch computed
/// once before the loop (or the cond).
Value RegionRewrite::hoist(const Expr &e) {
  auto v = eval(e.args[0]);
  Operation *op = v ? v->asOp() : nullptr;
  if (!op)
    return failV("hoist takes an op");
  if (WhileOp w = parentWhileOf(op))
    return hoistFromWhile(op, w);
  if (CondOp c = parentCondOf(op))
    return hoistFromCond(op, c);
  if (!setScan(parentScanOf(op)))
    return {};
  if (op->getNumResults() != 1 || op->getNumRegions() || !isPure(op))
    return failV("only a pure single-result op without regions can be hoisted");
  // Sound: a pure op whose operands are the same at every iteration
  // computes the same value at every iteration; computing it once before
  // the loop and passing it in as a const changes no value.
  IRMapping map;
  for (Value o : op->getOperands()) {
    if (auto arg = dyn_cast<BlockArgument>(o); arg && arg.getOwner() == &scan.getBodyBlock()) {
      if (arg.getArgNumber() >= scan.getNumConsts())
        return failV("an operand is a carry or an xs slice");
      map.map(o, scan.getConsts()[arg.getArgNumber()]);
    } else if (definedInside(o, scan)) {
      return failV("an operand is computed in the body");
    }
  }
  Operation *clone = op->clone(map);
  record(clone, Place::Free);
  if (!beforeScan.count(clone))
    return failV("the hoisted op's operands are not available before the scan");
  return toBody(clone->getResult(0));
}

/// hoist(op) for an op in a region of a lax.while. Sound as for scan: a
/// pure op whose operands are the region's consts or values from outside
/// computes the same value at every iteration; lax ops do not trap, so
/// computing it when the loop runs zero times changes nothing. The body
/// then reads it directly (while regions may use values from above).
Value RegionRewrite::hoistFromWhile(Operation *op, WhileOp w) {
  if (op->getNumResults() != 1 || op->getNumRegions() || !isPure(op))
    return failV("only a pure single-result op without regions can be hoisted");
  Block *block = op->getBlock();
  bool inBody = block == &w.getBodyBlock();
  unsigned numConsts = inBody ? w.getNumBodyConsts() : w.getNumCondConsts();
  ValueRange consts = inBody ? ValueRange(w.getBodyConsts()) : ValueRange(w.getCondConsts());
  IRMapping map;
  for (Value o : op->getOperands()) {
    if (auto arg = dyn_cast<BlockArgument>(o); arg && arg.getOwner() == block) {
      if (arg.getArgNumber() >= numConsts)
        return failV("an operand is a carry");
      map.map(o, consts[arg.getArgNumber()]);
    } else if (w->isAncestor(o.getParentBlock()->getParentOp())) {
      return failV("an operand is computed in the loop");
    }
  }
  Operation *clone = op->clone(map);
  created.emplace_back(clone, Place::Free);
  placeOfOp[clone] = Place::Free;
  anchorOf[clone] = w;
  return clone->getResult(0);
}

/// hoist(op) for an op in a branch of a lax.cond that every other branch
/// computes too (sameInOtherBranches). Sound: exactly one branch runs,
/// and whichever runs computes this value from the same inputs (a branch
/// argument is the same cond operand in every branch); lax ops are pure and
/// do not trap, so computing it once before the cond gives the same value,
/// and no branch computes anything it did not compute before. The branches
/// then read it directly (their regions may use values from above).
Value RegionRewrite::hoistFromCond(Operation *op, CondOp cond) {
  if (op->getNumResults() != 1 || op->getNumRegions() || !isPure(op))
    return failV("only a pure single-result op without regions can be hoisted");
  auto twins = sameInOtherBranches(op, cond);
  if (!twins)
    return failV("not computed the same way in every branch");
  IRMapping map;
  for (Value o : op->getOperands())
    if (auto arg = dyn_cast<BlockArgument>(o); arg && arg.getOwner() == op->getBlock())
      map.map(o, cond.getBranchOperands()[arg.getArgNumber()]);
  Operation *clone = op->clone(map);
  created.emplace_back(clone, Place::Free);
  placeOfOp[clone] = Place::Free;
  anchorOf[clone] = cond;
  for (Operation *twin : *twins)
    replacements.emplace_back(twin, SmallVector<Value>{clone->getResult(0)});
  return clone->getResult(0);
}

/// An elementwise op reading ys of `scan` is computed per slice in the body.
/// Sound: f(ys, z)[i] = f(ys[i], z[i]) for elementwise f, so computing f
/// on slices and stacking gives the same tensor.
Value RegionRewrite::sink(const Expr &e) {
  auto v = eval(e.args[0]);
  Operation *op = v ? v->asOp() : nullptr;
  if (!op || !evalScan(e.args[1]))
    return failV("sink takes an op and a scan");
  if (auto dot = dyn_cast<kiln::lax::DotGeneralOp>(op))
    return sinkDotGeneral(dot);
  if (!op->hasTrait<OpTrait::Elementwise>() || op->getNumResults() != 1 || op->getNumRegions())
    return failV("sink: only single-result elementwise ops and dot_generals are sunk");
  int64_t axis = -1;
  RankedTensorType stacked;
  for (Value o : op->getOperands())
    if (scanOfResult(o) == scan && cast<OpResult>(o).getResultNumber() >= scan.getNumCarry()) {
      axis = scan.getYsAxis(cast<OpResult>(o).getResultNumber() - scan.getNumCarry());
      stacked = ranked(o);
      break;
    }
  if (axis < 0)
    return failV("sink: the op reads no ys of the scan");
  IRMapping map;
  for (Value o : op->getOperands()) {
    if (map.contains(o))
      continue;
    RankedTensorType t = ranked(o);
    if (!t)
      return failV("sink: an unranked operand");
    if (scanOfResult(o) == scan && cast<OpResult>(o).getResultNumber() >= scan.getNumCarry()) {
      unsigned j = cast<OpResult>(o).getResultNumber() - scan.getNumCarry();
      if (scan.getYsAxis(j) != axis)
        return failV("sink: reads ys stacked along different axes");
      if (llvm::any_of(o.getUsers(), [&](Operation *u) { return u != op; }))
        return failV("sink: the ys has other users (sinking would stack a second output)");
      map.map(o, yieldedValue(scan, scan.getNumCarry() + j));
      continue;
    }
    if (t.getRank() == 0 && t.getShape() != stacked.getShape()) {
      Value c = toBody(o);
      if (!c)
        return {};
      map.map(o, c);
      continue;
    }
    if (t.getShape() != stacked.getShape())
      return failV("sink: operand shapes differ from the ys shape");
    RankedTensorType sliceType = kiln::lax::dropDim(t, axis);
    if (auto c = o.getDefiningOp<kiln::lax::ConstantOp>();
        c && isa<SplatElementsAttr>(c.getValue())) {
      OperationState st(op->getLoc(), kiln::lax::ConstantOp::getOperationName());
      st.addAttribute("value", SplatElementsAttr::get(
                                   sliceType, cast<SplatElementsAttr>(c.getValue())
                                                  .getSplatValue<Attribute>()));
      st.addTypes(sliceType);
      map.map(o, record(Operation::create(st), Place::Body)->getResult(0));
      continue;
    }
    if (auto b = o.getDefiningOp<kiln::lax::BroadcastInDimOp>();
        b && !llvm::is_contained(b.getBroadcastDimensions(), axis) &&
        usableBeforeScan(b.getOperand())) {
      Value c = toBody(b.getOperand());
      if (!c)
        return {};
      SmallVector<int64_t> dims;
      for (int64_t d : b.getBroadcastDimensions())
        dims.push_back(d < axis ? d : d - 1);
      OpBuilder detached(rewriter.getContext());
      auto nb = kiln::lax::BroadcastInDimOp::create(detached, op->getLoc(), c,
                                                    sliceType.getShape(), dims);
      map.map(o, record(nb, Place::Body)->getResult(0));
      continue;
    }
    if (!usableBeforeScan(o))
      return failV("sink: an operand is defined after the scan");
    ext.xs.push_back(o);
    ext.xsAxes.push_back(axis);
    map.map(o, placeholder(sliceType, XsArg, ext.xs.size() - 1));
  }
  Operation *clone = op->clone(map);
  clone->getResult(0).setType(kiln::lax::dropDim(ranked(op->getResult(0)), axis));
  record(clone, Place::Body);
  ysSlice.push_back(clone->getResult(0));
  ext.ysAxes.push_back(axis);
  return placeholder(ranked(op->getResult(0)), YsResult, ext.ysAxes.size() - 1);
}

/// A dot_general of a ys of `scan` (stacked along a free dimension a) and a
/// value from before the scan is computed per slice in the body, reading
/// the other operand as a const: the converse of hoist-xs-projection
/// (loops.yaml). Sound: a free dimension of an operand indexes the result
/// and takes no part in the sums, so slice i of the product is the product
/// of slice i -- the same sum of the same products for every element
/// (exact). The slice's contracting dimensions above a shift down by one;
/// the new ys is stacked where a lands among the result's dimensions (the
/// lhs free ones, then the rhs free ones). No batch dimensions.
Value RegionRewrite::sinkDotGeneral(kiln::lax::DotGeneralOp dot) {
  if (!dot.getLhsBatchDimensions().empty())
    return failV("sink: a dot_general with batch dimensions is not sunk");
  auto ysOf = [&](Value v) -> std::optional<unsigned> {
    if (scanOfResult(v) != scan || cast<OpResult>(v).getResultNumber() < scan.getNumCarry())
      return std::nullopt;
    return cast<OpResult>(v).getResultNumber() - scan.getNumCarry();
  };
  std::optional<unsigned> lhsYs = ysOf(dot.getLhs()), rhsYs = ysOf(dot.getRhs());
  if (lhsYs.has_value() == rhsYs.has_value())
    return failV("sink: the dot_general must read one ys of the scan and one value from "
                 "before it");
  bool lhs = lhsYs.has_value();
  unsigned j = lhs ? *lhsYs : *rhsYs;
  Value ys = lhs ? dot.getLhs() : dot.getRhs(), other = lhs ? dot.getRhs() : dot.getLhs();
  int64_t axis = scan.getYsAxis(j);
  ArrayRef<int64_t> contracting =
      lhs ? dot.getLhsContractingDimensions() : dot.getRhsContractingDimensions();
  if (llvm::is_contained(contracting, axis))
    return failV("sink: the dot_general contracts the ys over its scan axis");
  if (llvm::any_of(ys.getUsers(), [&](Operation *u) { return u != dot.getOperation(); }))
    return failV("sink: the ys has other users (sinking would stack a second output)");
  if (!usableBeforeScan(other))
    return failV("sink: the dot_general's other operand is defined after the scan");
  Value constant = toBody(other);
  if (!constant)
    return {};
  // Where a lands among the result's dimensions: the operand's free
  // dimensions below it, after the lhs free ones when the ys is the rhs.
  int64_t resultAxis =
      axis - llvm::count_if(contracting, [&](int64_t d) { return d < axis; });
  if (!lhs)
    resultAxis += ranked(dot.getLhs()).getRank() - int64_t(dot.getLhsContractingDimensions().size());
  SmallVector<int64_t> sliced;
  for (int64_t d : contracting)
    sliced.push_back(d < axis ? d : d - 1);
  IRMapping map;
  map.map(ys, yieldedValue(scan, scan.getNumCarry() + j));
  map.map(other, constant);
  auto clone = cast<kiln::lax::DotGeneralOp>(dot->clone(map));
  if (lhs)
    clone.setLhsContractingDimensions(sliced);
  else
    clone.setRhsContractingDimensions(sliced);
  clone.getResult().setType(kiln::lax::dropDim(ranked(dot.getResult()), resultAxis));
  record(clone, Place::Body);
  ysSlice.push_back(clone.getResult());
  ext.ysAxes.push_back(resultAxis);
  return placeholder(ranked(dot.getResult()), YsResult, ext.ysAxes.size() - 1);
}
