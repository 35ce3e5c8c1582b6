//===- ScanToLoops.cpp - lax.scan -> scf.for ------------------------------===//
//
// lax.scan becomes one scf.for over [0, length) whose iter_args are the
// carries followed by the stacked ys. Each iteration reads slice i of every
// xs with a rank-reducing tensor.extract_slice along that xs's own axis (no
// transpose is materialised: after bufferization it is a strided subview),
// inlines the scan body, and writes slice i of every ys with a rank-expanding
// tensor.insert_slice into the ys iter_arg. The ys iter_args start as
// tensor.empty and are only ever updated in place, so one-shot
// bufferization keeps one buffer per ys for the whole loop.
//
//===----------------------------------------------------------------------===//
#include "lowering/LaxToLinalg.h"

#include "dialect/LaxOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Transforms/DialectConversion.h"
#include "lowering/Passes.h"

using namespace mlir;
namespace kiln::lowering {
namespace {

/// Offsets/sizes/strides selecting index `i` of `axis` of `full`.
void sliceAt(OpBuilder &b, RankedTensorType full, int64_t axis, OpFoldResult i,
             SmallVectorImpl<OpFoldResult> &offsets,
             SmallVectorImpl<OpFoldResult> &sizes,
             SmallVectorImpl<OpFoldResult> &strides) {
  for (int64_t d = 0; d < full.getRank(); ++d) {
    offsets.push_back(d == axis ? i : b.getIndexAttr(0));
    sizes.push_back(b.getIndexAttr(d == axis ? 1 : full.getDimSize(d)));
    strides.push_back(b.getIndexAttr(1));
  }
}

constexpr llvm::StringLiteral kScanYsAxes = "kiln.scan_ys_axes";
constexpr llvm::StringLiteral kScanNumCarry = "kiln.scan_num_carry";
constexpr llvm::StringLiteral kScanReverseLast = "kiln.scan_reverse_last";

/// The lax.yield of a scan body inlined into its scf.for by ScanPattern:
/// the carries go to the scf.yield as they are, each ys slice is inserted
/// at index i of its accumulator (an iter_arg after the carries).
struct ScanYieldPattern : OpConversionPattern<lax::YieldOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(lax::YieldOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto forOp = dyn_cast<scf::ForOp>(op->getParentOp());
    auto axes = op->getAttrOfType<DenseI64ArrayAttr>(kScanYsAxes);
    auto numCarry = op->getAttrOfType<IntegerAttr>(kScanNumCarry);
    if (!forOp || !axes || !numCarry)
      return rewriter.notifyMatchFailure(op, "not the yield of a lowered scan");
    Location loc = op.getLoc();
    int64_t nCarry = numCarry.getInt();
    Value i = forOp.getInductionVar();
    if (auto last = op->getAttrOfType<IntegerAttr>(kScanReverseLast)) {
      // ScanPattern computed length-1-iv at the top of the body: reuse it.
      Value found;
      for (auto sub : forOp.getBody()->getOps<arith::SubIOp>())
        if (sub.getRhs() == i && getConstantIntValue(sub.getLhs()) ==
                                     std::optional<int64_t>(last.getInt())) {
          found = sub;
          break;
        }
      if (!found) {
        Value l = arith::ConstantIndexOp::create(rewriter, loc, last.getInt());
        found = arith::SubIOp::create(rewriter, loc, l, i);
      }
      i = found;
    }
    ValueRange values = adaptor.getValues();
    SmallVector<Value> next(values.take_front(nCarry));
    ValueRange ysAcc = forOp.getRegionIterArgs().drop_front(nCarry);
    for (auto [k, acc] : llvm::enumerate(ysAcc)) {
      auto yType = cast<RankedTensorType>(acc.getType());
      SmallVector<OpFoldResult> offsets, sizes, strides;
      sliceAt(rewriter, yType, axes[k], i, offsets, sizes, strides);
      next.push_back(tensor::InsertSliceOp::create(
          rewriter, loc, values[nCarry + k], acc, offsets, sizes, strides));
    }
    rewriter.replaceOpWithNewOp<scf::YieldOp>(op, next);
    return success();
  }
};

struct ScanPattern : OpConversionPattern<lax::ScanOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(lax::ScanOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    for (Type t :
         llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes()))
      if (!cast<RankedTensorType>(t).hasStaticShape())
        return rewriter.notifyMatchFailure(op, "needs static shapes");
    Location loc = op.getLoc();
    int64_t nConsts = op.getNumConsts(), nCarry = op.getNumCarry();
    ValueRange args = adaptor.getArgs();
    ValueRange consts = args.take_front(nConsts);
    ValueRange inits = args.slice(nConsts, nCarry);
    ValueRange xs = args.drop_front(nConsts + nCarry);

    SmallVector<Value> iterInits(inits.begin(), inits.end());
    for (Value y : op.getYs())
      iterInits.push_back(
          emptyTensor(rewriter, loc, signlessTensor(y.getType())));

    Value lb = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value ub = arith::ConstantIndexOp::create(rewriter, loc, op.getLength());
    Value step = arith::ConstantIndexOp::create(rewriter, loc, 1);
    auto forOp =
        scf::ForOp::create(rewriter, loc, lb, ub, step, iterInits,
                           [](OpBuilder &, Location, Value, ValueRange) {});
    Block *loopBody = forOp.getBody();
    rewriter.setInsertionPointToStart(loopBody);
    // reverse: iteration k works on slice length-1-k; slice i still lands at
    // index i of the ys, so reads and writes use the same index.
    Value i = forOp.getInductionVar();
    if (op.getReverse()) {
      Value last =
          arith::ConstantIndexOp::create(rewriter, loc, op.getLength() - 1);
      i = arith::SubIOp::create(rewriter, loc, last, i);
    }
    SmallVector<Value> blockArgs(consts.begin(), consts.end());
    ValueRange loopCarries = forOp.getRegionIterArgs().take_front(nCarry);
    blockArgs.append(loopCarries.begin(), loopCarries.end());
    // A scan of length 1 reads its xs at the static index 0. Upstream's
    // canonicalizer (MLIR 22) mis-folds a rank-reducing extract_slice whose
    // dynamic offset becomes a constant -- here the induction variable, once
    // the one-trip scf.for is inlined -- when the source has another unit
    // dimension: the slice [0, 0, %i] [1, 2, 1] of a tensor<1x2x3xf32> with
    // %i = 0 became [0, 0, 0] [1, 1, 2], which reads the wrong elements, or
    // fails to verify ("slice along dimension 2 runs out-of-bounds";
    // tests/differential/regressions/scan-length-one-xs.mlir). A slice built
    // with static offsets is left alone.
    OpFoldResult xsIndex = op.getLength() == 1 ? OpFoldResult(rewriter.getIndexAttr(0))
                                               : OpFoldResult(i);
    for (auto [k, x] : llvm::enumerate(xs)) {
      auto xType = cast<RankedTensorType>(x.getType());
      int64_t axis = op.getXsAxis(k);
      SmallVector<OpFoldResult> offsets, sizes, strides;
      sliceAt(rewriter, xType, axis, xsIndex, offsets, sizes, strides);
      // Where xs has another unit dimension, a rank-reducing slice is
      // ambiguous (which unit dimension goes), and bufferization picked
      // another one than the slice's type, with other strides: "expected
      // result type to be 'memref<1x1x1x1xi8, strided<[3, 6, 3, 3]...>' or
      // a rank-reduced version"). There the slice keeps the axis and a
      // collapse_shape drops exactly it
      // (tests/differential/regressions/scan-xs-unit-dims.mlir).
      int64_t rank = xType.getRank();
      bool ambiguous = llvm::any_of(llvm::seq<int64_t>(0, rank), [&](int64_t d) {
        return d != axis && xType.getDimSize(d) == 1;
      });
      if (!ambiguous) {
        blockArgs.push_back(tensor::ExtractSliceOp::create(
            rewriter, loc, lax::dropDim(xType, axis), x, offsets, sizes, strides));
        continue;
      }
      SmallVector<int64_t> kept(xType.getShape());
      kept[axis] = 1;
      Value slice = tensor::ExtractSliceOp::create(
          rewriter, loc, RankedTensorType::get(kept, xType.getElementType()), x, offsets, sizes,
          strides);
      // Every other dimension alone; the axis joins the next one's group,
      // or the previous one's when it is the last.
      SmallVector<ReassociationIndices> groups;
      for (int64_t d = 0; d < rank; ++d)
        if (d != axis)
          groups.push_back({d});
      if (axis + 1 < rank)
        groups[axis].insert(groups[axis].begin(), axis);
      else
        groups.back().push_back(axis);
      blockArgs.push_back(tensor::CollapseShapeOp::create(rewriter, loc, lax::dropDim(xType, axis),
                                                          slice, groups));
    }

    // Body arguments of unsigned types become signless like their values.
    if (failed(rewriter.convertRegionTypes(&op.getBody(), *getTypeConverter())))
      return rewriter.notifyMatchFailure(op, "cannot convert the body's types");
    Block &body = op.getBodyBlock();
    auto yield = cast<lax::YieldOp>(body.getTerminator());
    rewriter.inlineBlockBefore(&body, loopBody, loopBody->end(), blockArgs);

    // The body's ops are converted after this pattern, so the lax.yield
    // stays and ScanYieldPattern turns it into the insert_slices of the ys
    // and the scf.yield, with the converted (signless) values: a ui32 value
    // yielded here would otherwise need a cast back from i32 that nothing
    // removes.
    SmallVector<int64_t> ysAxes;
    for (int64_t k = 0, e = op.getYs().size(); k < e; ++k)
      ysAxes.push_back(op.getYsAxis(k));
    rewriter.modifyOpInPlace(yield, [&] {
      yield->setAttr(kScanYsAxes, rewriter.getDenseI64ArrayAttr(ysAxes));
      yield->setAttr(kScanNumCarry, rewriter.getI64IntegerAttr(nCarry));
      if (op.getReverse())
        yield->setAttr(kScanReverseLast,
                       rewriter.getI64IntegerAttr(op.getLength() - 1));
    });
    rewriter.replaceOp(op, forOp.getResults());
    return success();
  }
};

} // namespace

void populateScanPatterns(RewritePatternSet &patterns,
                          const TypeConverter &converter) {
  patterns.add<ScanPattern, ScanYieldPattern>(converter, patterns.getContext());
}

} // namespace kiln::lowering

//===----------------------------------------------------------------------===//
// --kiln-loop-carry-in-place
//===----------------------------------------------------------------------===//

namespace kiln {
#define GEN_PASS_DEF_LOOPCARRYINPLACE
#include "lowering/Passes.h.inc"
} // namespace kiln

namespace {
struct LoopCarryInPlacePass
    : kiln::impl::LoopCarryInPlaceBase<LoopCarryInPlacePass> {
  void runOnOperation() override {
    getOperation()->walk([](Operation *op) {
      if (auto forOp = dyn_cast<scf::ForOp>(op)) {
        copyRepeatedOperands(forOp.getBody()->getTerminator());
        computeInPlace(forOp.getBody(), forOp.getRegionIterArgs());
      }
      // lax.while's loops: the "after" region's carries (its arguments)
      // then need no copy in the "before" region either.
      if (auto whileOp = dyn_cast<scf::WhileOp>(op)) {
        copyRepeatedOperands(whileOp.getBeforeBody()->getTerminator());
        copyRepeatedOperands(whileOp.getAfterBody()->getTerminator());
        computeInPlace(whileOp.getAfterBody(), whileOp.getAfterArguments());
      }
    });
  }

  /// A loop that yields (or forwards) one tensor as two carries gets a copy
  /// for each repeat. One-shot bufferization gives a loop result its own
  /// iter_arg's buffer, or the yielded buffer where that is a fresh
  /// allocation, without recording that two results then share it: a later
  /// in-place write into one result changed the other (a scan yielding one
  /// dynamic_update_slice as both carries, then a scatter into the first;
  /// tests/differential/regressions/scan-repeated-carry.mlir and
  /// tests/lowering/scan.mlir, @repeated_carry). A copy is exact, and such
  /// loops are rare.
  static void copyRepeatedOperands(Operation *terminator) {
    llvm::SmallPtrSet<Value, 4> seen;
    OpBuilder b(terminator);
    for (OpOperand &operand : terminator->getOpOperands()) {
      Value v = operand.get();
      auto type = dyn_cast<RankedTensorType>(v.getType());
      if (!type || !type.hasStaticShape() || seen.insert(v).second)
        continue;
      operand.set(bufferization::AllocTensorOp::create(b, terminator->getLoc(), type,
                                                       ValueRange{}, v));
    }
  }

  static void computeInPlace(Block *body, ValueRange iterArgs) {
    auto yield = cast<scf::YieldOp>(body->getTerminator());
    for (auto [value, iterArg] : llvm::zip(yield.getOperands(), iterArgs)) {
      if (value == iterArg || value.getType() != iterArg.getType())
        continue;
      // Walk the destination chain inside this loop body down to the
      // operand that receives a tensor.empty, and give it the iter_arg.
      Value v = value;
      while (true) {
        Operation *def = v.getDefiningOp();
        auto dps = dyn_cast_or_null<DestinationStyleOpInterface>(def);
        if (!dps || def->getBlock() != body)
          break;
        OpOperand *init = dps.getTiedOpOperand(cast<OpResult>(v));
        if (!init || init->get().getType() != iterArg.getType())
          break;
        if (init->get().getDefiningOp<tensor::EmptyOp>()) {
          init->set(iterArg);
          break;
        }
        v = init->get();
      }
    }
  }
};
} // namespace
