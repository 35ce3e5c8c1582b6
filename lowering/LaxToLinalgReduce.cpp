//===- LaxToLinalgReduce.cpp - reductions, argmax/argmin, dot_general -----===//
#include "lowering/LaxToLinalg.h"
#include "lowering/ScalarizeElementwise.h"

#include "dialect/LaxOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

#include <limits>

using namespace mlir;
namespace kiln::lowering {
namespace {

enum class ReduceKind { Sum, Max, Min, Prod };


/// The identity of the reduction (the value of an empty reduction in JAX);
/// `uns`: the elements are unsigned.
/// The identity of a sum: -0.0 for floats (-0 + x is x for every x, -0
/// included; +0 + -0 is +0), as the reference interpreter starts its sums:
/// a sum of one -0 term, or of products that all round to -0, is -0.
Value sumIdentity(OpBuilder &b, Location loc, Type t) {
  if (auto ft = dyn_cast<FloatType>(t))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(ft, -0.0));
  return scalarConstant(b, loc, t, 0);
}

Value reductionInit(OpBuilder &b, Location loc, Type t, ReduceKind kind,
                    bool uns) {
  if (kind == ReduceKind::Sum)
    return sumIdentity(b, loc, t);
  if (kind == ReduceKind::Prod)
    return scalarConstant(b, loc, t, 1);
  bool max = kind == ReduceKind::Max;
  if (auto ft = dyn_cast<FloatType>(t))
    return arith::ConstantOp::create(
        b, loc,
        b.getFloatAttr(ft, max ? -std::numeric_limits<double>::infinity()
                               : std::numeric_limits<double>::infinity()));
  unsigned w = t.getIntOrFloatBitWidth();
  APInt v = max ? APInt::getSignedMinValue(w) : APInt::getSignedMaxValue(w);
  if (uns)
    v = max ? APInt::getMinValue(w) : APInt::getMaxValue(w);
  if (w == 1) // bool max/min are or/and: identities false/true.
    v = APInt(1, max ? 0 : 1);
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(t, v));
}

/// x op acc on floats (with `fm`) or integers.
template <typename FloatOp, typename IntOp>
Value arithmetic(OpBuilder &b, Location loc, Value x, Value acc,
                 arith::FastMathFlagsAttr fm) {
  if (isa<FloatType>(x.getType()))
    return FloatOp::create(b, loc, x, acc, fm);
  return IntOp::create(b, loc, x, acc);
}

/// The larger or smaller of x and acc: `BoolOp` on i1 (or for max, and for
/// min), then the unsigned, float (NaN-propagating) or signed op.
template <typename BoolOp, typename UnsignedOp, typename FloatOp, typename SignedOp>
Value extremum(OpBuilder &b, Location loc, Value x, Value acc, bool uns) {
  if (x.getType().isInteger(1))
    return BoolOp::create(b, loc, x, acc);
  if (uns)
    return UnsignedOp::create(b, loc, x, acc);
  if (isa<FloatType>(x.getType()))
    return FloatOp::create(b, loc, x, acc);
  return SignedOp::create(b, loc, x, acc);
}

Value combine(OpBuilder &b, Location loc, ReduceKind kind, Value x, Value acc,
              bool uns) {
  // Reduction order is unspecified in JAX/XLA: reassoc lets LLVM vectorize.
  auto fm = arith::FastMathFlagsAttr::get(b.getContext(),
                                          arith::FastMathFlags::reassoc);
  switch (kind) {
  case ReduceKind::Sum:
    return arithmetic<arith::AddFOp, arith::AddIOp>(b, loc, x, acc, fm);
  case ReduceKind::Prod:
    return arithmetic<arith::MulFOp, arith::MulIOp>(b, loc, x, acc, fm);
  case ReduceKind::Max:
    return extremum<arith::OrIOp, arith::MaxUIOp, arith::MaximumFOp, arith::MaxSIOp>(
        b, loc, x, acc, uns);
  case ReduceKind::Min:
    return extremum<arith::AndIOp, arith::MinUIOp, arith::MinimumFOp, arith::MinSIOp>(
        b, loc, x, acc, uns);
  }
  return {};
}

template <typename OpTy, ReduceKind Kind>
struct ReducePattern : StaticTensorPattern<OpTy> {
  using StaticTensorPattern<OpTy>::StaticTensorPattern;
  LogicalResult rewriteStatic(OpTy op, typename OpTy::Adaptor adaptor,
                              ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = signlessTensor(op.getType());
    bool uns = isUnsignedElement(op.getOperand().getType());
    if (op.getOperand().getType().getNumElements() == 0) {
      // Nothing to combine: the result is JAX's init value (an empty sum is
      // +0, where non-empty sums start at -0 to keep a -0 term's sign).
      Value identity = Kind == ReduceKind::Sum
                           ? scalarConstant(rewriter, loc, type.getElementType(), 0)
                           : reductionInit(rewriter, loc, type.getElementType(), Kind, uns);
      rewriter.replaceOp(op, filledTensor(rewriter, loc, type, identity));
      return success();
    }
    // f16 and bf16 sums and products accumulate in f32 and round once, as
    // the interpreter (which rounds the double sum once) and as XLA's dots.
    Type result = type.getElementType();
    if ((Kind == ReduceKind::Sum || Kind == ReduceKind::Prod) &&
        (result.isF16() || result.isBF16()))
      type = type.clone(rewriter.getF32Type());
    Value init = filledTensor(
        rewriter, loc, type,
        reductionInit(rewriter, loc, type.getElementType(), Kind, uns));
    SmallVector<int64_t> dims(op.getAxes());
    llvm::sort(dims);
    auto reduceInto = [&](Value input, Value into, ArrayRef<int64_t> over) {
      return linalg::ReduceOp::create(
                 rewriter, loc, ValueRange{input}, ValueRange{into}, over,
                 [&](OpBuilder &b, Location l, ValueRange args) {
                   Value x = args[0];
                   if (x.getType() != args[1].getType())
                     x = arith::ExtFOp::create(b, l, args[1].getType(), x);
                   linalg::YieldOp::create(b, l, combine(b, l, Kind, x, args[1], uns));
                 })
          .getResult(0);
    };
    auto finish = [&](Value reduced) {
      if (result != type.getElementType())
        reduced = parallelGeneric(
            rewriter, loc, type.clone(result), ValueRange{reduced},
            {rewriter.getMultiDimIdentityMap(type.getRank())},
            [&](OpBuilder &b, Location l, ValueRange args) -> Value {
              return arith::TruncFOp::create(b, l, result, args[0]);
            });
      rewriter.replaceOp(op, reduced);
    };
    // A full reduction of rank >= 2 is a chain of one-axis reductions, the
    // last axis first: the first one has parallel dimensions (its loop runs
    // on every core and its producers fuse into it), and each partial sums
    // a short run, so float sums stay accurate (a tree of sums rather than
    // one long chain). Sound: max/min and integer sums are associative, and
    // float sums/products are reassociated anyway (JAX leaves the order
    // unspecified; see combine).
    auto inputType = cast<RankedTensorType>(adaptor.getOperand().getType());
    if (inputType.getRank() >= 2 && int64_t(dims.size()) == inputType.getRank()) {
      Value partial = adaptor.getOperand();
      for (int64_t rank = inputType.getRank(); rank > 1; --rank) {
        auto partialType = RankedTensorType::get(inputType.getShape().take_front(rank - 1),
                                                 type.getElementType());
        Value partialInit = filledTensor(
            rewriter, loc, partialType,
            reductionInit(rewriter, loc, type.getElementType(), Kind, uns));
        partial = reduceInto(partial, partialInit, {rank - 1});
      }
      finish(reduceInto(partial, init, {0}));
      return success();
    }
    finish(reduceInto(adaptor.getOperand(), init, dims));
    return success();
  }
};

/// argmax/argmin along one axis: a linalg.generic reducing (value, index)
/// pairs. A strictly better value (or the first NaN, which JAX treats as the
/// extreme) replaces the pair, so ties keep the first index as in JAX.
template <typename OpTy, bool IsMax>
struct ArgReducePattern : StaticTensorPattern<OpTy> {
  using StaticTensorPattern<OpTy>::StaticTensorPattern;
  LogicalResult rewriteStatic(OpTy op, typename OpTy::Adaptor adaptor,
                              ConversionPatternRewriter &rewriter) const override {
    if (op.getAxes().size() != 1)
      return rewriter.notifyMatchFailure(op, "needs exactly one axis");
    Location loc = op.getLoc();
    auto type = signlessTensor(op.getType());
    auto srcType = signlessTensor(op.getOperand().getType());
    bool uns = isUnsignedElement(op.getOperand().getType());
    Type elt = srcType.getElementType(), idxType = type.getElementType();
    int64_t axis = op.getAxes()[0], rank = srcType.getRank();
    auto valType = RankedTensorType::get(type.getShape(), elt);
    Value initVal = filledTensor(
        rewriter, loc, valType,
        reductionInit(rewriter, loc, elt,
                      IsMax ? ReduceKind::Max : ReduceKind::Min, uns));
    Value initIdx = filledTensor(rewriter, loc, type,
                                 scalarConstant(rewriter, loc, idxType, 0));
    SmallVector<AffineExpr> outExprs;
    SmallVector<utils::IteratorType> iters;
    for (int64_t d = 0; d < rank; ++d) {
      iters.push_back(d == axis ? utils::IteratorType::reduction
                                : utils::IteratorType::parallel);
      if (d != axis)
        outExprs.push_back(rewriter.getAffineDimExpr(d));
    }
    AffineMap outMap = AffineMap::get(rank, 0, outExprs, rewriter.getContext());
    SmallVector<AffineMap> maps{rewriter.getMultiDimIdentityMap(rank), outMap,
                                outMap};
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{valType, type},
        ValueRange{adaptor.getOperand()}, ValueRange{initVal, initIdx}, maps,
        iters, [&](OpBuilder &b, Location l, ValueRange args) {
          Value x = args[0], best = args[1], bestIdx = args[2];
          Value better;
          if (isa<FloatType>(elt)) {
            Value cmp = arith::CmpFOp::create(b, l,
                                              IsMax ? arith::CmpFPredicate::OGT
                                                    : arith::CmpFPredicate::OLT,
                                              x, best);
            Value xNan =
                arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNO, x, x);
            Value bestNotNan = arith::CmpFOp::create(
                b, l, arith::CmpFPredicate::ORD, best, best);
            better = arith::OrIOp::create(
                b, l, cmp, arith::AndIOp::create(b, l, xNan, bestNotNan));
          } else {
            bool u = uns || elt.isInteger(1);
            auto p = IsMax ? (u ? arith::CmpIPredicate::ugt
                                : arith::CmpIPredicate::sgt)
                           : (u ? arith::CmpIPredicate::ult
                                : arith::CmpIPredicate::slt);
            better = arith::CmpIOp::create(b, l, p, x, best);
          }
          Value idx = linalg::IndexOp::create(b, l, axis);
          Value idxCast = arith::IndexCastOp::create(b, l, idxType, idx);
          linalg::YieldOp::create(
              b, l,
              ValueRange{
                  arith::SelectOp::create(b, l, better, x, best),
                  arith::SelectOp::create(b, l, better, idxCast, bestIdx)});
        });
    rewriter.replaceOp(op, generic.getResult(1));
    return success();
  }
};

/// Any dot_general as one linalg.generic: loops over batch, lhs free, rhs
/// free (the result order) and then the contracting dims; operands are
/// converted to the result element type before multiply-accumulate.
struct DotGeneralGenericPattern : StaticTensorPattern<lax::DotGeneralOp> {
  using StaticTensorPattern::StaticTensorPattern;
  LogicalResult rewriteStatic(lax::DotGeneralOp op, OpAdaptor adaptor,
                              ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = signlessTensor(op.getType());
    auto lt = signlessTensor(op.getLhs().getType());
    auto rt = signlessTensor(op.getRhs().getType());
    bool lUns = isUnsignedElement(op.getLhs().getType()),
         rUns = isUnsignedElement(op.getRhs().getType());
    Type elt = type.getElementType();
    if (isa<FloatType>(elt) != isa<FloatType>(lt.getElementType()) ||
        isa<FloatType>(elt) != isa<FloatType>(rt.getElementType()))
      return rewriter.notifyMatchFailure(op, "mixed int/float contraction");
    ArrayRef<int64_t> lb = op.getLhsBatchDimensions(),
                      rb = op.getRhsBatchDimensions();
    ArrayRef<int64_t> lc = op.getLhsContractingDimensions(),
                      rc = op.getRhsContractingDimensions();
    int64_t nb = lb.size(), nc = lc.size();
    int64_t nlf = lt.getRank() - nb - nc, nrf = rt.getRank() - nb - nc;
    int64_t nLoops = nb + nlf + nrf + nc;
    MLIRContext *ctx = rewriter.getContext();
    // Loop order (loops are emitted outer to inner in this order): batch,
    // lhs free, then rhs free and contracting dims. When the rhs's innermost
    // dim is free (B stored [.., K, N]) the contracting loops go before the
    // rhs free ones (i-k-j), so the innermost loop walks B and C rows
    // contiguously and vectorizes without reassociation; otherwise (B stored
    // [.., N, K]) the contraction is innermost (i-j-k) and walks both
    // operands contiguously.
    bool rhsInnerFree = rt.getRank() > 0 &&
                        !llvm::is_contained(rb, rt.getRank() - 1) &&
                        !llvm::is_contained(rc, rt.getRank() - 1);
    int64_t rfBase = rhsInnerFree ? nb + nlf + nc : nb + nlf;
    int64_t cBase = rhsInnerFree ? nb + nlf : nb + nlf + nrf;
    auto operandMap = [&](RankedTensorType t, ArrayRef<int64_t> batch,
                          ArrayRef<int64_t> contract, int64_t freeBase) {
      SmallVector<AffineExpr> exprs;
      int64_t free = freeBase;
      for (int64_t d = 0; d < t.getRank(); ++d) {
        if (auto *it = llvm::find(batch, d); it != batch.end())
          exprs.push_back(getAffineDimExpr(it - batch.begin(), ctx));
        else if (auto *ct = llvm::find(contract, d); ct != contract.end())
          exprs.push_back(
              getAffineDimExpr(cBase + (ct - contract.begin()), ctx));
        else
          exprs.push_back(getAffineDimExpr(free++, ctx));
      }
      return AffineMap::get(nLoops, 0, exprs, ctx);
    };
    SmallVector<AffineExpr> outExprs;
    for (int64_t d = 0; d < nb + nlf; ++d)
      outExprs.push_back(getAffineDimExpr(d, ctx));
    for (int64_t d = 0; d < nrf; ++d)
      outExprs.push_back(getAffineDimExpr(rfBase + d, ctx));
    SmallVector<AffineMap> maps{operandMap(lt, lb, lc, nb),
                                operandMap(rt, rb, rc, rfBase),
                                AffineMap::get(nLoops, 0, outExprs, ctx)};
    SmallVector<utils::IteratorType> iters(nLoops,
                                           utils::IteratorType::parallel);
    for (int64_t d = 0; d < nc; ++d)
      iters[cBase + d] = utils::IteratorType::reduction;
    int64_t contracted = 1;
    for (int64_t d : lc)
      contracted *= lt.getDimSize(d);
    if (contracted == 0) {
      // An empty contraction is +0, as JAX's (the -0 below only starts a
      // non-empty sum, to keep the sign of a sum of -0 products).
      rewriter.replaceOp(op, filledTensor(rewriter, loc, type,
                                          scalarConstant(rewriter, loc, elt, 0)));
      return success();
    }
    // f16 and bf16 dots accumulate in f32 and round once, as XLA's (and as
    // the interpreter, which rounds the exact sum once): a sum rounded to
    // 8 bits at every term loses the small terms of a long contraction.
    Type result = elt;
    if (elt.isF16() || elt.isBF16()) {
      elt = rewriter.getF32Type();
      type = type.clone(elt);
    }
    Value init = filledTensor(rewriter, loc, type,
                              sumIdentity(rewriter, loc, elt));
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type},
        ValueRange{adaptor.getLhs(), adaptor.getRhs()}, ValueRange{init}, maps,
        iters, [&](OpBuilder &b, Location l, ValueRange args) {
          auto cvt = [&](Value v, bool uns) -> Value {
            Type from = v.getType();
            if (from == elt)
              return v;
            if (isa<FloatType>(elt))
              return from.getIntOrFloatBitWidth() < elt.getIntOrFloatBitWidth()
                         ? (Value)arith::ExtFOp::create(b, l, elt, v)
                         : (Value)arith::TruncFOp::create(b, l, elt, v);
            if (from.getIntOrFloatBitWidth() >= elt.getIntOrFloatBitWidth())
              return arith::TruncIOp::create(b, l, elt, v);
            return uns ? (Value)arith::ExtUIOp::create(b, l, elt, v)
                       : (Value)arith::ExtSIOp::create(b, l, elt, v);
          };
          Value x = cvt(args[0], lUns), y = cvt(args[1], rUns);
          Value r;
          // reassoc/contract: the sum order of a contraction is unspecified
          // in JAX/XLA; the flags let LLVM vectorize the reduction and fuse
          // multiply-adds.
          // Only the accumulation is reassociable: reassoc on the multiply
          // let LLVM fold it with a fused producer ((a + a) * 0.5 became a,
          // which gave 65504 where f16 overflows to inf;
          // tests/differential/regressions/dot-fused-producer-f16.mlir).
          auto fm = arith::FastMathFlagsAttr::get(
              b.getContext(),
              arith::FastMathFlags::reassoc | arith::FastMathFlags::contract);
          auto mulFm = arith::FastMathFlagsAttr::get(
              b.getContext(), arith::FastMathFlags::contract);
          if (isa<FloatType>(elt))
            r = arith::AddFOp::create(
                b, l, args[2], arith::MulFOp::create(b, l, x, y, mulFm), fm);
          else
            r = arith::AddIOp::create(b, l, args[2],
                                      arith::MulIOp::create(b, l, x, y));
          linalg::YieldOp::create(b, l, r);
        });
    Value sum = generic.getResult(0);
    if (result != elt) {
      auto rounded = type.clone(result);
      sum = parallelGeneric(rewriter, loc, rounded, ValueRange{sum},
                            {rewriter.getMultiDimIdentityMap(type.getRank())},
                            [&](OpBuilder &b, Location l, ValueRange args) -> Value {
                              return arith::TruncFOp::create(b, l, result, args[0]);
                            });
    }
    rewriter.replaceOp(op, sum);
    return success();
  }
};

} // namespace

void populateReductionPatterns(RewritePatternSet &patterns) {
  patterns.add<ReducePattern<lax::ReduceSumOp, ReduceKind::Sum>,
               ReducePattern<lax::ReduceMaxOp, ReduceKind::Max>,
               ReducePattern<lax::ReduceMinOp, ReduceKind::Min>,
               ReducePattern<lax::ReduceProdOp, ReduceKind::Prod>,
               ArgReducePattern<lax::ArgMaxOp, true>,
               ArgReducePattern<lax::ArgMinOp, false>>(patterns.getContext());
}

void populateDotGeneralGenericPattern(RewritePatternSet &patterns) {
  patterns.add<DotGeneralGenericPattern>(patterns.getContext(), /*benefit=*/1);
}

} // namespace kiln::lowering
