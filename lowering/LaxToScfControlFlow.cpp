//===- LaxToScfControlFlow.cpp - lax.while and lax.cond to scf ------------===//
//
// lax.while becomes scf.while: the "before" region is the cond region, ending
// in scf.condition(predicate) with the carries, the "after" region is the
// body. lax.cond becomes scf.if (an i1 index, or two branches: branch 0 when
// the i32 index is 0, else branch 1) or, with N > 2 branches, a chain of
// scf.if (branch k when the index is k, k < N-1; the last branch takes N-1
// and every index out of range, jax.jit's semantics); one branch is inlined.
// Not scf.index_switch: MLIR 22's one-shot bufferization lets a later write
// into an index_switch result land in a constant a case yields (a read-only
// global: the JIT segfaulted, tests/differential/regressions/
// cond-switch-constant-write.mlir), where it copies an scf.if's.
//
// The regions are moved, with their block arguments converted by the type
// converter (ui32 carries become i32); the consts become uses of the
// converted operands. The lax.yield terminators stay in place for a
// pattern of their own, which then sees their operands converted (the ops
// that compute them are converted after this pattern ran).
//
//===----------------------------------------------------------------------===//
#include "lowering/LaxToLinalg.h"

#include "dialect/LaxControlFlowOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace {

/// Moves the single block of `from` into the new, empty region `to`, with
/// its arguments replaced by `replacements` followed by the arguments of a
/// new entry block of types `argTypes`.
LogicalResult moveRegion(ConversionPatternRewriter &rewriter, const TypeConverter &converter,
                         Region &from, Region &to, ValueRange replacements,
                         TypeRange argTypes, Location loc) {
  if (failed(rewriter.convertRegionTypes(&from, converter)))
    return failure();
  SmallVector<Location> locs(argTypes.size(), loc);
  Block *block = rewriter.createBlock(&to, to.end(), argTypes, locs);
  SmallVector<Value> args(replacements);
  llvm::append_range(args, block->getArguments());
  rewriter.inlineBlockBefore(&from.front(), block, block->end(), args);
  return success();
}

/// A pattern for a lax region op (while, cond): its tensors are static and
/// its result types convert; rewriteRegions gets the converted types.
template <typename OpTy>
struct RegionOpPattern : kiln::lowering::StaticTensorPattern<OpTy> {
  using kiln::lowering::StaticTensorPattern<OpTy>::StaticTensorPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  LogicalResult rewriteStatic(OpTy op, OpAdaptor adaptor,
                              ConversionPatternRewriter &rewriter) const final {
    SmallVector<Type> types;
    if (failed(this->getTypeConverter()->convertTypes(op->getResultTypes(), types)))
      return rewriter.notifyMatchFailure(op, "cannot convert the result types");
    return rewriteRegions(op, adaptor, types, rewriter);
  }

  virtual LogicalResult rewriteRegions(OpTy op, OpAdaptor adaptor, TypeRange resultTypes,
                                       ConversionPatternRewriter &rewriter) const = 0;
};

struct WhilePattern : RegionOpPattern<kiln::lax::WhileOp> {
  using RegionOpPattern::RegionOpPattern;
  LogicalResult rewriteRegions(kiln::lax::WhileOp op, OpAdaptor adaptor, TypeRange types,
                               ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ValueRange args = adaptor.getArgs();
    int64_t numCond = op.getNumCondConsts(), numBody = op.getNumBodyConsts();
    ValueRange condConsts = args.take_front(numCond);
    ValueRange bodyConsts = args.slice(numCond, numBody);
    ValueRange inits = args.drop_front(numCond + numBody);

    auto loop = scf::WhileOp::create(rewriter, loc, types, inits);
    if (failed(moveRegion(rewriter, *getTypeConverter(), op.getCond(), loop.getBefore(),
                          condConsts, types, loc)) ||
        failed(moveRegion(rewriter, *getTypeConverter(), op.getBody(), loop.getAfter(),
                          bodyConsts, types, loc)))
      return rewriter.notifyMatchFailure(op, "cannot convert the regions' types");
    rewriter.replaceOp(op, loop.getResults());
    return success();
  }
};

struct CondPattern : RegionOpPattern<kiln::lax::CondOp> {
  using RegionOpPattern::RegionOpPattern;
  LogicalResult rewriteRegions(kiln::lax::CondOp op, OpAdaptor adaptor, TypeRange types,
                               ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ValueRange operands = adaptor.getBranchOperands();
    unsigned numBranches = op.getNumBranches();

    // One branch: it always runs.
    if (numBranches == 1) {
      if (failed(rewriter.convertRegionTypes(&op.getBranches()[0], *getTypeConverter())))
        return rewriter.notifyMatchFailure(op, "cannot convert the branch's types");
      Block &block = op.getBranches()[0].front();
      auto yield = cast<kiln::lax::YieldOp>(block.getTerminator());
      SmallVector<Value> results(yield.getValues());
      rewriter.inlineBlockBefore(&block, op, operands);
      rewriter.eraseOp(yield);
      rewriter.replaceOp(op, results);
      return success();
    }

    Value index = tensor::ExtractOp::create(rewriter, loc, adaptor.getIndex(), ValueRange());
    Operation *dispatch;
    SmallVector<Region *> targets; // target region of branch k
    if (numBranches == 2) {
      // An i1 index runs branch 1 when true; an i32 index unless it is 0
      // (an index out of range runs the last branch, negative ones too).
      Value pred = index;
      if (!index.getType().isInteger(1)) {
        Value zero = arith::ConstantOp::create(rewriter, loc, rewriter.getI32IntegerAttr(0));
        pred = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ne, index, zero);
      }
      auto ifOp = scf::IfOp::create(rewriter, loc, types, pred, /*addThenBlock=*/false,
                                    /*addElseBlock=*/false);
      targets = {&ifOp.getElseRegion(), &ifOp.getThenRegion()};
      dispatch = ifOp;
    } else {
      // if (index == 0) {branch 0} else { if (index == 1) {branch 1} else
      // {... else {branch N-1}} }: each else block but the innermost yields
      // the results of the scf.if nested in it.
      OpBuilder::InsertionGuard guard(rewriter);
      scf::IfOp outer, inner;
      for (unsigned k = 0; k + 1 < numBranches; ++k) {
        if (inner)
          rewriter.setInsertionPointToStart(rewriter.createBlock(&inner.getElseRegion()));
        Value kth =
            arith::ConstantOp::create(rewriter, loc, rewriter.getIntegerAttr(index.getType(), k));
        Value pred = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, index, kth);
        auto ifOp = scf::IfOp::create(rewriter, loc, types, pred, /*addThenBlock=*/false,
                                      /*addElseBlock=*/false);
        if (inner)
          scf::YieldOp::create(rewriter, loc, ifOp.getResults());
        targets.push_back(&ifOp.getThenRegion());
        if (!outer)
          outer = ifOp;
        inner = ifOp;
      }
      targets.push_back(&inner.getElseRegion());
      dispatch = outer;
    }
    for (auto [k, target] : llvm::enumerate(targets))
      if (failed(moveRegion(rewriter, *getTypeConverter(), op.getBranches()[k], *target,
                            operands, {}, loc)))
        return rewriter.notifyMatchFailure(op, "cannot convert the branches' types");
    rewriter.replaceOp(op, dispatch->getResults());
    return success();
  }
};

/// The lax.yield of a region moved by the patterns above: scf.condition in
/// the "before" region of an scf.while (the predicate, then the carries the
/// region received), scf.yield elsewhere.
struct YieldPattern : OpConversionPattern<kiln::lax::YieldOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(kiln::lax::YieldOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Operation *parent = op->getParentOp();
    if (auto loop = dyn_cast<scf::WhileOp>(parent);
        loop && op->getParentRegion() == &loop.getBefore()) {
      Value predicate = tensor::ExtractOp::create(rewriter, op.getLoc(),
                                                  adaptor.getValues()[0], ValueRange());
      // At the while's location: what leaves here are the loop's carries.
      scf::ConditionOp::create(rewriter, loop.getLoc(), predicate,
                               loop.getBeforeArguments());
      rewriter.eraseOp(op);
      return success();
    }
    if (!isa<scf::WhileOp, scf::IfOp>(parent))
      return rewriter.notifyMatchFailure(op, "not in a region of a lowered while or cond");
    rewriter.replaceOpWithNewOp<scf::YieldOp>(op, adaptor.getValues());
    return success();
  }
};

} // namespace

void kiln::lowering::populateControlFlowPatterns(RewritePatternSet &patterns,
                                                 TypeConverter &converter) {
  patterns.add<WhilePattern, CondPattern, YieldPattern>(converter,
                                                        patterns.getContext());
}
