//===- ScanPushUp.cpp - moving consumers of a scan's ys into it -----------===//
//
// Why these are sound. Let ys be stacked from slices s_0..s_{L-1} along axis a.
// - An elementwise f commutes with slicing: f(ys, z)[i] = f(s_i, z[i]), so
//   computing f per iteration and stacking gives the same tensor.
// - A reduction over a set R of axes equals a reduction over the scan axis of
//   per-slice reductions over R \ {a} when the combiner is associative and
//   commutative: exactly so for max/min and integer add/mul, up to rounding
//   for float sums/products (hence the tag).
// - A reduction over the scan axis alone is a fold over the slices: a carry
//   starting at the combiner's identity, combined with s_i at each step.
//
//===----------------------------------------------------------------------===//
#include "transforms/ScanPushUp.h"
#include "transforms/ScanUtils.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/TypeSwitch.h"

#include <limits>

using namespace mlir;
using namespace kiln;
using namespace kiln::lax;

std::optional<std::pair<ScanOp, unsigned>> kiln::asScanYs(Value value) {
  auto result = dyn_cast<OpResult>(value);
  if (!result)
    return std::nullopt;
  auto scan = dyn_cast<ScanOp>(result.getOwner());
  if (!scan || result.getResultNumber() < scan.getNumCarry())
    return std::nullopt;
  return std::make_pair(scan, (unsigned)(result.getResultNumber() - scan.getNumCarry()));
}


static RankedTensorType tensorType(Value v) { return cast<RankedTensorType>(v.getType()); }

/// Maps an axis of the stacked tensor to the slice (scan axis `a` removed).
static int64_t sliceAxis(int64_t axis, int64_t a) { return axis < a ? axis : axis - 1; }

namespace {
/// How an operand of a sunk elementwise op enters the body.
struct SunkOperand {
  enum Kind { SameScanYs, Splat, InvariantBroadcast, Scalar, NewXs } kind;
  unsigned ysIndex = 0;   // SameScanYs
  unsigned extIndex = 0;  // index into the new consts / xs
};
} // namespace

LogicalResult kiln::sinkElementwiseIntoScan(RewriterBase &rewriter, Operation *op) {
  if (!op->hasTrait<OpTrait::Elementwise>() || op->getNumResults() != 1)
    return rewriter.notifyMatchFailure(op, "not a single-result elementwise op");
  std::optional<std::pair<ScanOp, unsigned>> source;
  for (Value operand : op->getOperands())
    if ((source = asScanYs(operand)))
      break;
  if (!source)
    return rewriter.notifyMatchFailure(op, "reads no ys of a scan");
  auto [scan, firstYs] = *source;
  int64_t axis = scan.getYsAxis(firstYs);
  RankedTensorType stacked = tensorType(scan.getYs()[firstYs]);

  ScanExtension ext;
  SmallVector<SunkOperand> plan;
  for (Value operand : op->getOperands()) {
    RankedTensorType type = tensorType(operand);
    if (auto ys = asScanYs(operand); ys && ys->first == scan) {
      if (scan.getYsAxis(ys->second) != axis)
        return rewriter.notifyMatchFailure(op, "reads ys stacked along different axes");
      if (llvm::any_of(operand.getUsers(), [&](Operation *u) { return u != op; }))
        return rewriter.notifyMatchFailure(op, "the ys has other users: sinking would stack "
                                               "a second output instead of replacing it");
      plan.push_back({SunkOperand::SameScanYs, ys->second});
      continue;
    }
    if (type.getRank() == 0 && type.getShape() != stacked.getShape()) {
      if (!availableBefore(operand, scan))
        return rewriter.notifyMatchFailure(op, "a scalar operand is defined after the scan");
      plan.push_back({SunkOperand::Scalar, 0, (unsigned)ext.consts.size()});
      ext.consts.push_back(operand);
      continue;
    }
    if (type.getShape() != stacked.getShape())
      return rewriter.notifyMatchFailure(op, "operand shapes differ from the ys shape");
    if (auto constant = operand.getDefiningOp<ConstantOp>();
        constant && isa<SplatElementsAttr>(constant.getValue())) {
      plan.push_back({SunkOperand::Splat});
      continue;
    }
    if (auto broadcast = operand.getDefiningOp<BroadcastInDimOp>();
        broadcast && !llvm::is_contained(broadcast.getBroadcastDimensions(), axis) &&
        availableBefore(broadcast.getOperand(), scan)) {
      plan.push_back({SunkOperand::InvariantBroadcast, 0, (unsigned)ext.consts.size()});
      ext.consts.push_back(broadcast.getOperand());
      continue;
    }
    if (!availableBefore(operand, scan))
      return rewriter.notifyMatchFailure(op, "an operand is defined after the scan");
    plan.push_back({SunkOperand::NewXs, 0, (unsigned)ext.xs.size()});
    ext.xs.push_back(operand);
    ext.xsAxes.push_back(axis);
  }
  ext.ysAxes.push_back(axis);

  ExtendedScan extended = extendScan(
      rewriter, scan, ext, [&](OpBuilder &b, const ScanBodyView &body) -> ScanBodyYields {
        IRMapping mapping;
        for (auto [operand, how] : llvm::zip(op->getOperands(), plan)) {
          RankedTensorType sliceType = dropDim(tensorType(operand), axis);
          Value inBody;
          switch (how.kind) {
          case SunkOperand::SameScanYs:
            inBody = body.oldYsYields[how.ysIndex];
            break;
          case SunkOperand::Splat: {
            auto splat = cast<SplatElementsAttr>(operand.getDefiningOp<ConstantOp>().getValue());
            inBody = ConstantOp::create(b, op->getLoc(),
                                        SplatElementsAttr::get(sliceType, splat.getSplatValue<Attribute>()));
            break;
          }
          case SunkOperand::InvariantBroadcast: {
            auto broadcast = operand.getDefiningOp<BroadcastInDimOp>();
            SmallVector<int64_t> dims;
            for (int64_t d : broadcast.getBroadcastDimensions())
              dims.push_back(sliceAxis(d, axis));
            inBody = BroadcastInDimOp::create(b, op->getLoc(), body.consts[how.extIndex],
                                              sliceType.getShape(), dims);
            break;
          }
          case SunkOperand::Scalar:
            inBody = body.consts[how.extIndex];
            break;
          case SunkOperand::NewXs:
            inBody = body.xSlices[how.extIndex];
            break;
          }
          mapping.map(operand, inBody);
        }
        Operation *sunk = b.clone(*op, mapping);
        sunk->getResult(0).setType(dropDim(tensorType(op->getResult(0)), axis));
        return {{}, {sunk->getResult(0)}};
      });
  rewriter.replaceOp(op, extended.scan.getResult(extended.firstNewYs));
  return success();
}

bool kiln::reductionReassociates(Operation *reduce) {
  if (!isa<ReduceSumOp, ReduceProdOp>(reduce))
    return false;
  return isa<FloatType>(tensorType(reduce->getOperand(0)).getElementType());
}

Value kiln::createReduceLike(OpBuilder &b, Operation *like, Value operand,
                             ArrayRef<int64_t> axes) {
  Location loc = like->getLoc();
  return TypeSwitch<Operation *, Value>(like)
      .Case([&](ReduceSumOp) { return ReduceSumOp::create(b, loc, operand, axes); })
      .Case([&](ReduceMaxOp) { return ReduceMaxOp::create(b, loc, operand, axes); })
      .Case([&](ReduceMinOp) { return ReduceMinOp::create(b, loc, operand, axes); })
      .Case([&](ReduceProdOp) { return ReduceProdOp::create(b, loc, operand, axes); });
}

/// The axes of a reduction of a scan's ys, checked: `reduce` must be one of
/// the four reductions, reading a ys.
static FailureOr<std::pair<ScanOp, unsigned>> reducedYs(RewriterBase &rewriter,
                                                        Operation *reduce) {
  if (!isa<ReduceSumOp, ReduceMaxOp, ReduceMinOp, ReduceProdOp>(reduce))
    return rewriter.notifyMatchFailure(reduce, "not a reduce_sum/max/min/prod");
  auto ys = asScanYs(reduce->getOperand(0));
  if (!ys)
    return rewriter.notifyMatchFailure(reduce, "does not reduce a ys of a scan");
  return *ys;
}

static ArrayRef<int64_t> reduceAxes(Operation *reduce) {
  return cast<DenseI64ArrayAttr>(reduce->getAttr("axes")).asArrayRef();
}

LogicalResult kiln::moveReductionIntoScanBody(RewriterBase &rewriter, Operation *reduce) {
  FailureOr<std::pair<ScanOp, unsigned>> ys = reducedYs(rewriter, reduce);
  if (failed(ys))
    return failure();
  auto [scan, j] = *ys;
  int64_t axis = scan.getYsAxis(j);
  SmallVector<int64_t> inner;
  bool overScanAxis = false;
  for (int64_t r : reduceAxes(reduce)) {
    if (r == axis)
      overScanAxis = true;
    else
      inner.push_back(sliceAxis(r, axis));
  }
  if (inner.empty())
    return rewriter.notifyMatchFailure(reduce, "reduces only over the scan axis");
  int64_t newAxis = axis - llvm::count_if(reduceAxes(reduce), [&](int64_t r) { return r < axis; });

  ScanExtension ext;
  ext.ysAxes.push_back(newAxis);
  ExtendedScan extended = extendScan(
      rewriter, scan, ext, [&](OpBuilder &b, const ScanBodyView &body) -> ScanBodyYields {
        return {{}, {createReduceLike(b, reduce, body.oldYsYields[j], inner)}};
      });
  Value partial = extended.scan.getResult(extended.firstNewYs);
  rewriter.setInsertionPoint(reduce);
  Value replacement =
      overScanAxis ? createReduceLike(rewriter, reduce, partial, {newAxis}) : partial;
  rewriter.replaceOp(reduce, replacement);
  return success();
}

Value kiln::identityOfReduction(OpBuilder &b, Operation *reduce, RankedTensorType type) {
  Type element = type.getElementType();
  Location loc = reduce->getLoc();
  if (isa<ReduceSumOp, ReduceProdOp>(reduce))
    return ConstantOp::create(b, loc, type, isa<ReduceSumOp>(reduce) ? 0.0 : 1.0);
  bool isMax = isa<ReduceMaxOp>(reduce);
  Attribute scalar;
  if (auto f = dyn_cast<FloatType>(element))
    scalar = b.getFloatAttr(element, APFloat::getInf(f.getFloatSemantics(), isMax));
  else if (element.isUnsignedInteger())
    scalar = b.getIntegerAttr(element, isMax ? APInt::getMinValue(element.getIntOrFloatBitWidth())
                                             : APInt::getMaxValue(element.getIntOrFloatBitWidth()));
  else
    scalar = b.getIntegerAttr(element,
                              isMax ? APInt::getSignedMinValue(element.getIntOrFloatBitWidth())
                                    : APInt::getSignedMaxValue(element.getIntOrFloatBitWidth()));
  return ConstantOp::create(b, loc, SplatElementsAttr::get(type, scalar));
}

Value kiln::combineLike(OpBuilder &b, Operation *reduce, Value acc, Value slice) {
  Location loc = reduce->getLoc();
  return TypeSwitch<Operation *, Value>(reduce)
      .Case([&](ReduceSumOp) { return AddOp::create(b, loc, acc, slice); })
      .Case([&](ReduceMaxOp) { return MaxOp::create(b, loc, acc, slice); })
      .Case([&](ReduceMinOp) { return MinOp::create(b, loc, acc, slice); })
      .Case([&](ReduceProdOp) { return MulOp::create(b, loc, acc, slice); });
}

LogicalResult kiln::scanReductionToCarry(RewriterBase &rewriter, Operation *reduce) {
  FailureOr<std::pair<ScanOp, unsigned>> ys = reducedYs(rewriter, reduce);
  if (failed(ys))
    return failure();
  auto [scan, j] = *ys;
  ArrayRef<int64_t> axes = reduceAxes(reduce);
  if (axes.size() != 1 || axes[0] != scan.getYsAxis(j))
    return rewriter.notifyMatchFailure(reduce, "does not reduce exactly the scan axis");

  RankedTensorType accType = tensorType(reduce->getResult(0));
  rewriter.setInsertionPoint(scan);
  ScanExtension ext;
  ext.inits.push_back(identityOfReduction(rewriter, reduce, accType));
  ExtendedScan extended = extendScan(
      rewriter, scan, ext, [&](OpBuilder &b, const ScanBodyView &body) -> ScanBodyYields {
        return {{combineLike(b, reduce, body.carries[0], body.oldYsYields[j])}, {}};
      });
  rewriter.replaceOp(reduce, extended.scan.getResult(extended.firstNewCarry));
  return success();
}
