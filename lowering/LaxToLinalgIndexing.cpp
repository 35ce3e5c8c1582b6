//===- LaxToLinalgIndexing.cpp - lax.gather and lax.scatter ---------------===//
//
// gather: a linalg.generic over the result (no inputs) whose body reads the
// index vector with tensor.extract, clamps it, and extracts the operand
// element (selecting the fill value for an out-of-bounds slice in mode
// fill_or_drop). The operand and indices are captured, not inputs, so the
// elementwise fusion leaves them alone.
//
// scatter: sequential, to keep XLA's order for duplicate indices: an scf.for
// nest over the scatter dimensions of `updates` carrying the result tensor;
// per scatter index the start is computed once, then an inner nest over the
// window combines each update with tensor.extract / tensor.insert. Updates
// that a gather computes for the scatter alone are read from the gather's
// operand directly. Windows
// that do not fit are skipped with an scf.if (modes fill_or_drop and
// promise_in_bounds) or clamped (clip).
//
// Index values are cast to `index` (64-bit) before clamping: sign-extended
// from i32/i64, zero-extended from ui32, so that no index wraps.
//
//===----------------------------------------------------------------------===//
#include "lowering/LaxToLinalg.h"

#include "dialect/LaxIndexingOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace kiln::lowering;
namespace lax = kiln::lax;

namespace {

Value indexConst(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// Entry `k` of the index vector at `batch` (the positions of the indices'
/// other dimensions), as an index.
Value indexVectorEntry(OpBuilder &b, Location loc, Value indices, ValueRange batch,
                       int64_t k, bool isUnsigned) {
  SmallVector<Value> position(batch);
  position.push_back(indexConst(b, loc, k));
  Value v = tensor::ExtractOp::create(b, loc, indices, position);
  if (isUnsigned)
    return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), v);
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
}

/// Whether 0 <= v <= hi: the slice/window starting at `v` fits.
Value fits(OpBuilder &b, Location loc, Value v, int64_t hi) {
  Value ge = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, v,
                                   indexConst(b, loc, 0));
  Value le = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, v,
                                   indexConst(b, loc, hi));
  return arith::AndIOp::create(b, loc, ge, le);
}

/// `a && b`, where a null `a` is true.
Value andOf(OpBuilder &b, Location loc, Value a, Value c) {
  return a ? arith::AndIOp::create(b, loc, a, c).getResult() : c;
}

/// `v` clamped into [0, hi] (XLA's clamping of start indices).
Value clampStart(OpBuilder &b, Location loc, Value v, int64_t hi) {
  return arith::MaxSIOp::create(
      b, loc, arith::MinSIOp::create(b, loc, v, indexConst(b, loc, hi)),
      indexConst(b, loc, 0));
}

/// `value` (a FloatAttr or an IntegerAttr, possibly unsigned) as a signless
/// arith.constant.
Value constantOf(OpBuilder &b, Location loc, TypedAttr value) {
  if (auto i = dyn_cast<IntegerAttr>(value))
    value = IntegerAttr::get(signless(i.getType()), i.getValue());
  return arith::ConstantOp::create(b, loc, value);
}

/// Where gather `op` reads the slice of one batch position (`batch`: the
/// result's positions in its non-offset dimensions): the clamped start in
/// each operand dimension (null where only an offset moves), and, in mode
/// fill_or_drop, whether the slice fits (null: always read).
struct GatherStart {
  SmallVector<Value> at;
  Value inBounds;
};
GatherStart gatherStart(OpBuilder &b, Location l, lax::GatherOp op, Value indices,
                        ArrayRef<Value> batch) {
  RankedTensorType operandType = op.getOperand().getType();
  bool unsignedIndices = isUnsignedElement(op.getStartIndices().getType());
  bool fill = op.getMode() == lax::GatherScatterMode::FillOrDrop;
  lax::IndexingDims dims = lax::IndexingDims::of(op);
  GatherStart start{SmallVector<Value>(operandType.getRank()), Value()};
  for (auto [k, d] : llvm::enumerate(dims.indexMap)) {
    Value v = indexVectorEntry(b, l, indices, batch, k, unsignedIndices);
    int64_t hi = operandType.getDimSize(d) - dims.windowSizes[d];
    if (fill)
      start.inBounds = andOf(b, l, start.inBounds, fits(b, l, v, hi));
    start.at[d] = clampStart(b, l, v, hi);
  }
  for (auto [o, i] : llvm::zip(dims.operandBatching, dims.indicesBatching))
    start.at[o] = batch[i];
  return start;
}

/// Element `out` of gather `op`'s result, its slice at `start`, read from
/// `operand` (converted): the start plus the offsets, or the fill value
/// where the slice does not fit.
Value gatherRead(OpBuilder &b, Location l, lax::GatherOp op, Value operand,
                 const GatherStart &start, ArrayRef<Value> out) {
  RankedTensorType type = signlessTensor(op.getType());
  // A collapsed dimension of slice size 0 gives an empty operand a
  // non-empty result; nothing can be read from it (the interpreter yields
  // zeros there too).
  if (op.getOperand().getType().getNumElements() == 0)
    return constantOf(b, l, b.getZeroAttr(type.getElementType()));
  lax::IndexingDims dims = lax::IndexingDims::of(op);
  SmallVector<Value> at(start.at);
  for (auto [resultDim, operandDim] : llvm::zip(op.getOffsetDims(), dims.windowOperandDims))
    at[operandDim] = at[operandDim]
                         ? arith::AddIOp::create(b, l, at[operandDim], out[resultDim]).getResult()
                         : out[resultDim];
  for (Value &v : at)
    if (!v)
      v = indexConst(b, l, 0);
  Value x = tensor::ExtractOp::create(b, l, operand, at);
  if (start.inBounds)
    x = arith::SelectOp::create(b, l, start.inBounds, x,
                                constantOf(b, l, op.getEffectiveFillValue()));
  return x;
}

/// The positions of `out` in gather `op`'s batch (non-offset) dimensions.
SmallVector<Value> gatherBatch(lax::GatherOp op, ArrayRef<Value> out) {
  SmallVector<Value> batch;
  for (auto [d, v] : llvm::enumerate(out))
    if (!llvm::is_contained(op.getOffsetDims(), int64_t(d)))
      batch.push_back(v);
  return batch;
}

struct GatherPattern : OpConversionPattern<lax::GatherOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(lax::GatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkStaticTensors(op, rewriter)))
      return failure();
    Location loc = op.getLoc();
    RankedTensorType type = signlessTensor(op.getType());
    SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(type.getRank())};
    SmallVector<utils::IteratorType> iterators(type.getRank(),
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{},
        ValueRange{emptyTensor(rewriter, loc, type)}, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange) {
          SmallVector<Value> out;
          for (int64_t d = 0; d < type.getRank(); ++d)
            out.push_back(linalg::IndexOp::create(b, l, d));
          GatherStart start =
              gatherStart(b, l, op, adaptor.getStartIndices(), gatherBatch(op, out));
          linalg::YieldOp::create(b, l, gatherRead(b, l, op, adaptor.getOperand(), start, out));
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

/// `old` combined with `update` by `kind` (`isUnsigned`: ui32 elements).
Value combine(OpBuilder &b, Location loc, lax::ScatterKind kind, Value old, Value update,
              bool isUnsigned) {
  Type t = old.getType();
  bool isFloat = isa<FloatType>(t);
  bool isPred = t.isInteger(1); // min is `and`, max is `or` (add/mul rejected)
  switch (kind) {
  case lax::ScatterKind::Set:
    return update;
  case lax::ScatterKind::Add:
    return isFloat ? (Value)arith::AddFOp::create(b, loc, old, update)
                   : (Value)arith::AddIOp::create(b, loc, old, update);
  case lax::ScatterKind::Mul:
    return isFloat ? (Value)arith::MulFOp::create(b, loc, old, update)
                   : (Value)arith::MulIOp::create(b, loc, old, update);
  case lax::ScatterKind::Min:
    // minimumf: NaN-propagating, -0 < +0 (lax.min on XLA).
    if (isFloat)
      return arith::MinimumFOp::create(b, loc, old, update);
    if (isPred)
      return arith::AndIOp::create(b, loc, old, update);
    return isUnsigned ? (Value)arith::MinUIOp::create(b, loc, old, update)
                      : (Value)arith::MinSIOp::create(b, loc, old, update);
  case lax::ScatterKind::Max:
    if (isFloat)
      return arith::MaximumFOp::create(b, loc, old, update);
    if (isPred)
      return arith::OrIOp::create(b, loc, old, update);
    return isUnsigned ? (Value)arith::MaxUIOp::create(b, loc, old, update)
                      : (Value)arith::MaxSIOp::create(b, loc, old, update);
  }
  llvm_unreachable("unknown scatter kind");
}

struct ScatterPattern : OpConversionPattern<lax::ScatterOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(lax::ScatterOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkStaticTensors(op, rewriter)))
      return failure();
    Location loc = op.getLoc();
    RankedTensorType operandType = op.getOperand().getType();
    RankedTensorType updatesType = op.getUpdates().getType();
    bool unsignedIndices = isUnsignedElement(op.getScatterIndices().getType());
    bool unsignedElements = isUnsignedElement(operandType);
    lax::IndexingDims dims = lax::IndexingDims::of(op);
    ArrayRef<int64_t> windowDims = op.getUpdateWindowDims();
    SmallVector<int64_t> scatterDims;
    SmallVector<Value> scatterUbs, windowUbs;
    for (int64_t d = 0; d < updatesType.getRank(); ++d) {
      Value ub = indexConst(rewriter, loc, updatesType.getDimSize(d));
      if (llvm::is_contained(windowDims, d)) {
        windowUbs.push_back(ub);
      } else {
        scatterDims.push_back(d);
        scatterUbs.push_back(ub);
      }
    }
    bool clip = op.getMode() == lax::GatherScatterMode::Clip;
    lax::ScatterKind kind = op.getKind();
    Value indices = adaptor.getScatterIndices(), updates = adaptor.getUpdates();
    // Updates gathered for this scatter alone (a GNN's segment_sum of
    // x[senders]) are read from the gather's operand where the scatter
    // reads them: the same elements, without the gathered tensor (as large
    // as the updates) written and read back; the gather, left unused, is
    // removed as dead code. Its slices must be the scatter's windows (the
    // same offset and window dimensions), so that a slice's start is found
    // once per scatter index, outside the window loop.
    auto gather = op.getUpdates().getDefiningOp<lax::GatherOp>();
    Value gatherOperand, gatherIndices;
    if (gather && gather->hasOneUse() && gather.getOffsetDims() == windowDims) {
      gatherOperand = rewriter.getRemappedValue(gather.getOperand());
      gatherIndices = rewriter.getRemappedValue(gather.getStartIndices());
    }
    Value c0 = indexConst(rewriter, loc, 0), c1 = indexConst(rewriter, loc, 1);
    auto zeros = [&](size_t n) { return SmallVector<Value>(n, c0); };
    auto ones = [&](size_t n) { return SmallVector<Value>(n, c1); };

    // The window of one scatter index, applied to `acc` from `start`.
    auto applyWindow = [&](OpBuilder &b, Location l, ValueRange s, ArrayRef<Value> start,
                           Value acc) -> Value {
      GatherStart slice;
      if (gatherIndices)
        slice = gatherStart(b, l, gather, gatherIndices, SmallVector<Value>(s));
      scf::LoopNest window = scf::buildLoopNest(
          b, l, zeros(windowUbs.size()), windowUbs, ones(windowUbs.size()),
          ValueRange{acc},
          [&](OpBuilder &b, Location l, ValueRange w, ValueRange iter) -> scf::ValueVector {
            SmallVector<Value> at(start), u(updatesType.getRank());
            for (auto [i, d] : llvm::enumerate(scatterDims))
              u[d] = s[i];
            for (auto [i, d] : llvm::enumerate(windowDims)) {
              u[d] = w[i];
              int64_t operandDim = dims.windowOperandDims[i];
              at[operandDim] = arith::AddIOp::create(b, l, at[operandDim], w[i]);
            }
            Value update = gatherIndices
                               ? gatherRead(b, l, gather, gatherOperand, slice, u)
                               : tensor::ExtractOp::create(b, l, updates, u).getResult();
            Value value = update;
            if (kind != lax::ScatterKind::Set) {
              Value old = tensor::ExtractOp::create(b, l, iter[0], at);
              value = combine(b, l, kind, old, update, unsignedElements);
            }
            return {tensor::InsertOp::create(b, l, value, iter[0], at)};
          });
      return window.results.empty() ? acc : window.results[0];
    };

    scf::LoopNest nest = scf::buildLoopNest(
        rewriter, loc, zeros(scatterUbs.size()), scatterUbs, ones(scatterUbs.size()),
        ValueRange{adaptor.getOperand()},
        [&](OpBuilder &b, Location l, ValueRange s, ValueRange iter) -> scf::ValueVector {
          SmallVector<Value> start(operandType.getRank(), c0);
          Value inBounds;
          for (auto [k, d] : llvm::enumerate(dims.indexMap)) {
            Value v = indexVectorEntry(b, l, indices, s, k, unsignedIndices);
            int64_t hi = operandType.getDimSize(d) - dims.windowSizes[d];
            if (clip) {
              start[d] = clampStart(b, l, v, hi);
            } else {
              // Unclamped: the window is applied only when it fits.
              inBounds = andOf(b, l, inBounds, fits(b, l, v, hi));
              start[d] = v;
            }
          }
          for (auto [o, i] : llvm::zip(dims.operandBatching, dims.indicesBatching))
            start[o] = s[i];
          if (!inBounds)
            return {applyWindow(b, l, s, start, iter[0])};
          auto ifOp = scf::IfOp::create(
              b, l, inBounds,
              [&](OpBuilder &b, Location l) {
                scf::YieldOp::create(b, l, applyWindow(b, l, s, start, iter[0]));
              },
              [&](OpBuilder &b, Location l) { scf::YieldOp::create(b, l, iter[0]); });
          return {ifOp.getResult(0)};
        });
    rewriter.replaceOp(op, nest.results);
    return success();
  }
};

} // namespace

void kiln::lowering::populateIndexingPatterns(RewritePatternSet &patterns) {
  patterns.add<GatherPattern, ScatterPattern>(patterns.getContext());
}
