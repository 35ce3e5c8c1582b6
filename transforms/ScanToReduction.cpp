//===- ScanToReduction.cpp - an accumulating scan as one reduction --------===//
//
// After the push-up, jax-ml/jax#4968's loss is a scan whose only carry accumulates
// `reduce_sum((y_t - cos(x_t))^2)` per step. Such a scan computes
//   init (+) R(f(x_0)) (+) R(f(x_1)) (+) ... (+) R(f(x_{T-1}))
// where R reduces every axis and (+) is R's combiner. When f is elementwise,
// f applied to the stacked xs is the stack of the f(x_t), so the same value
// is init (+) R_all(f(xs)): one reduction over all steps, which fuses with f
// and runs on every core. Exact for max/min and integer sums/products (their
// combiners are associative and commutative); float sums/products regroup
// (rounding changes), so those need `reassociate`.
//
//===----------------------------------------------------------------------===//
#include "transforms/ScanPushUp.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::lax;

namespace {

bool isReduction(Operation *op) {
  return isa_and_nonnull<ReduceSumOp, ReduceMaxOp, ReduceMinOp, ReduceProdOp>(op);
}

/// Whether `combiner` is the combiner of reduction `reduce`.
bool combinesLike(Operation *combiner, Operation *reduce) {
  return (isa<AddOp>(combiner) && isa<ReduceSumOp>(reduce)) ||
         (isa<MaxOp>(combiner) && isa<ReduceMaxOp>(reduce)) ||
         (isa<MinOp>(combiner) && isa<ReduceMinOp>(reduce)) ||
         (isa<MulOp>(combiner) && isa<ReduceProdOp>(reduce));
}

/// One accumulating carry: `yielded = combine(carryArg, reduce(input))`.
struct Accumulation {
  Operation *reduce;
  Value input; // the reduced value, computed from xs slices only
};

/// The ops computing `value` inside `body` (in body order), when they are
/// elementwise lax ops and splat constants over xs slices only.
FailureOr<SmallVector<Operation *>> elementwiseSlice(Value value, Block &body,
                                                     ArrayRef<BlockArgument> xSlices) {
  llvm::SetVector<Operation *> ops;
  SmallVector<Value> work = {value};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (!llvm::is_contained(xSlices, arg))
        return failure(); // a carry or a const
      continue;
    }
    Operation *def = v.getDefiningOp();
    bool splat = false;
    if (auto c = dyn_cast<ConstantOp>(def))
      splat = isa<SplatElementsAttr>(c.getValue());
    // Splat constants may sit outside the body (the greedy driver hoists
    // them); they are lifted like the ones inside.
    if (def->getBlock() != &body && !splat)
      return failure();
    if (!splat && !(def->hasTrait<OpTrait::Elementwise>() && isa<LaxDialect>(def->getDialect())))
      return failure();
    if (ops.insert(def))
      llvm::append_range(work, def->getOperands());
  }
  // Constants first (they have no operands), then the body's ops in order.
  SmallVector<Operation *> ordered;
  for (Operation *op : ops)
    if (isa<ConstantOp>(op))
      ordered.push_back(op);
  size_t numConstants = ordered.size();
  for (Operation *op : ops)
    if (!isa<ConstantOp>(op))
      ordered.push_back(op);
  std::sort(ordered.begin() + numConstants, ordered.end(),
            [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ordered;
}

RankedTensorType stacked(Type slice, int64_t length) {
  auto type = cast<RankedTensorType>(slice);
  SmallVector<int64_t> shape = {length};
  llvm::append_range(shape, type.getShape());
  return RankedTensorType::get(shape, type.getElementType());
}

} // namespace

LogicalResult kiln::accumulatingScanToReduction(RewriterBase &rewriter, ScanOp scan,
                                                bool reassociate) {
  if (scan.getNumCarry() == 0 || scan.getNumConsts() != 0)
    return rewriter.notifyMatchFailure(scan, "needs carries and no consts");
  if (llvm::any_of(scan.getYs(), [](Value ys) { return !ys.use_empty(); }))
    return rewriter.notifyMatchFailure(scan, "its ys are used");
  for (unsigned i = 0; i < scan.getXs().size(); ++i)
    if (scan.getXsAxis(i) != 0)
      return rewriter.notifyMatchFailure(scan, "xs must be stacked along axis 0");
  Block &body = scan.getBodyBlock();
  auto yield = cast<YieldOp>(body.getTerminator());
  SmallVector<BlockArgument> xSlices(scan.getXSliceArgs());
  SmallVector<Accumulation> accumulations;
  SmallVector<SmallVector<Operation *>> slices;
  for (auto [i, carry] : llvm::enumerate(scan.getCarryArgs())) {
    Operation *combiner = yield.getValues()[i].getDefiningOp();
    if (!combiner || combiner->getNumOperands() != 2 || combiner->getBlock() != &body)
      return rewriter.notifyMatchFailure(scan, "a carry is not an accumulation");
    Value other = combiner->getOperand(0) == carry   ? combiner->getOperand(1)
                  : combiner->getOperand(1) == carry ? combiner->getOperand(0)
                                                     : Value();
    Operation *reduce = other ? other.getDefiningOp() : nullptr;
    if (!isReduction(reduce) || !combinesLike(combiner, reduce) || !carry.hasOneUse())
      return rewriter.notifyMatchFailure(scan, "a carry is not `c (+) reduce(...)`");
    auto inputType = cast<RankedTensorType>(reduce->getOperand(0).getType());
    if (cast<RankedTensorType>(reduce->getResult(0).getType()).getRank() != 0)
      return rewriter.notifyMatchFailure(scan, "the reduction does not reduce every axis");
    if (reductionReassociates(reduce) && !reassociate)
      return rewriter.notifyMatchFailure(scan, "float sum/product: needs reassociates-float");
    FailureOr<SmallVector<Operation *>> slice =
        elementwiseSlice(reduce->getOperand(0), body, xSlices);
    if (failed(slice))
      return rewriter.notifyMatchFailure(scan, "the reduced value is not elementwise in the xs");
    for (BlockArgument x : xSlices)
      if (x.getType() != inputType &&
          llvm::any_of(*slice, [&](Operation *op) { return llvm::is_contained(op->getOperands(), x); }))
        return rewriter.notifyMatchFailure(scan, "an xs slice has another shape");
    accumulations.push_back({reduce, reduce->getOperand(0)});
    slices.push_back(std::move(*slice));
  }

  // Lift each accumulation's ops to the stacked shape, reduce everything.
  rewriter.setInsertionPoint(scan);
  int64_t length = scan.getLength();
  SmallVector<Value> finals;
  for (auto [acc, ops, init] : llvm::zip(accumulations, slices, scan.getInits())) {
    IRMapping lifted;
    for (auto [x, xs] : llvm::zip(xSlices, scan.getXs()))
      lifted.map(x, xs);
    for (Operation *op : ops) {
      if (auto c = dyn_cast<ConstantOp>(op)) {
        auto splat = cast<SplatElementsAttr>(c.getValue());
        auto type = stacked(c.getType(), length);
        lifted.map(c.getResult(), ConstantOp::create(rewriter, c.getLoc(),
                                                     SplatElementsAttr::get(
                                                         type, splat.getSplatValue<Attribute>()))
                                      .getResult());
        continue;
      }
      Operation *clone = rewriter.clone(*op, lifted);
      clone->getResult(0).setType(stacked(op->getResult(0).getType(), length));
    }
    Value input = lifted.lookup(acc.input);
    int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
    Value total = createReduceLike(rewriter, acc.reduce, input,
                                   llvm::to_vector(llvm::seq<int64_t>(0, rank)));
    // An init that is the reduction's identity (jax-ml/jax#4968's zero) adds
    // nothing: the total already starts from the identity.
    DenseElementsAttr initValue;
    bool identity = false;
    if (matchPattern(init, m_Constant(&initValue)) && initValue.isSplat()) {
      auto type = cast<RankedTensorType>(init.getType());
      Value id = identityOfReduction(rewriter, acc.reduce, type);
      DenseElementsAttr idValue;
      identity = matchPattern(id, m_Constant(&idValue)) && idValue == initValue;
      rewriter.eraseOp(id.getDefiningOp());
    }
    finals.push_back(identity ? total : combineLike(rewriter, acc.reduce, init, total));
  }
  for (auto [result, value] : llvm::zip(scan.getFinalCarries(), finals))
    rewriter.replaceAllUsesWith(result, value);
  rewriter.eraseOp(scan);
  return success();
}
