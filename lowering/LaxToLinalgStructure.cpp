//===- LaxToLinalgStructure.cpp - structural lax ops -> tensor/linalg -----===//
//
// constant, iota, broadcast_in_dim, reshape/squeeze/expand_dims, transpose,
// rev, slice, dynamic_slice, dynamic_update_slice, concatenate.
//
//===----------------------------------------------------------------------===//
#include "lowering/LaxToLinalg.h"

#include "dialect/LaxOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
namespace kiln::lowering {

/// Groups src and dst dims into runs of equal element count (greedy by
/// products); unit dims left at the end join the last run. Fails when a run
/// has zero-size dims or a rank is 0.
static bool commonGroups(ArrayRef<int64_t> src, ArrayRef<int64_t> dst,
                         SmallVector<ReassociationIndices> &gs,
                         SmallVector<ReassociationIndices> &gd,
                         SmallVector<int64_t> &mid) {
  if (src.empty() || dst.empty())
    return false;
  size_t i = 0, j = 0;
  while (i < src.size() && j < dst.size()) {
    ReassociationIndices a{(int64_t)i}, b{(int64_t)j};
    int64_t ps = src[i++], pd = dst[j++];
    if (ps == 0 || pd == 0)
      return false;
    while (ps != pd) {
      if (ps < pd && i < src.size()) {
        a.push_back(i);
        ps *= src[i++];
      } else if (pd < ps && j < dst.size()) {
        b.push_back(j);
        pd *= dst[j++];
      } else {
        return false;
      }
    }
    gs.push_back(a);
    gd.push_back(b);
    mid.push_back(ps);
  }
  for (; i < src.size(); ++i) {
    if (src[i] != 1)
      return false;
    gs.back().push_back(i);
  }
  for (; j < dst.size(); ++j) {
    if (dst[j] != 1)
      return false;
    gd.back().push_back(j);
  }
  return true;
}

Value reshapeTensor(OpBuilder &b, Location loc, Value value,
                    RankedTensorType type) {
  auto src = cast<RankedTensorType>(value.getType());
  if (src.getShape() == type.getShape())
    return value;
  // Row-major reshapes regroup dims: collapse src to the runs of equal
  // element count it shares with dst, then expand to dst. Both steps are
  // views after bufferization when the buffer is contiguous per run.
  SmallVector<ReassociationIndices> gs, gd;
  SmallVector<int64_t> mid;
  if (commonGroups(src.getShape(), type.getShape(), gs, gd, mid)) {
    Value v = value;
    auto midType = RankedTensorType::get(mid, src.getElementType());
    if ((int64_t)mid.size() != src.getRank())
      v = tensor::CollapseShapeOp::create(b, loc, midType, v, gs);
    if ((int64_t)mid.size() != type.getRank())
      v = tensor::ExpandShapeOp::create(b, loc, type, v, gd);
    return v;
  }
  // Rank 0 on either side (or zero-size dims): through the flat 1-D view.
  int64_t n = src.getNumElements();
  auto flatType = RankedTensorType::get({n}, src.getElementType());
  auto allDims = [](int64_t rank) {
    ReassociationIndices r;
    for (int64_t i = 0; i < rank; ++i)
      r.push_back(i);
    return SmallVector<ReassociationIndices>(rank ? 1 : 0, r);
  };
  Value flat = value;
  if (src.getRank() != 1)
    flat =
        src.getRank() == 0
            ? (Value)tensor::ExpandShapeOp::create(
                  b, loc, flatType, value, SmallVector<ReassociationIndices>{})
            : (Value)tensor::CollapseShapeOp::create(b, loc, flatType, value,
                                                     allDims(src.getRank()));
  if (type.getRank() == 1)
    return flat;
  if (type.getRank() == 0)
    return tensor::CollapseShapeOp::create(b, loc, type, flat,
                                           SmallVector<ReassociationIndices>{});
  return tensor::ExpandShapeOp::create(b, loc, type, flat,
                                       allDims(type.getRank()));
}

namespace {

/// A fresh tensor of `type` whose element at index i is `input`'s element at
/// `inputMap`(i): broadcasts and reversals.
Value copyThroughMap(OpBuilder &b, Location loc, Value input, AffineMap inputMap,
                     RankedTensorType type) {
  return parallelGeneric(b, loc, type, input, inputMap,
                         [](OpBuilder &, Location, ValueRange element) { return element[0]; });
}

struct ConstantPattern : StaticTensorPattern<lax::ConstantOp> {
  using StaticTensorPattern::StaticTensorPattern;
  LogicalResult rewriteStatic(lax::ConstantOp op, OpAdaptor,
                              ConversionPatternRewriter &rewriter) const override {
    auto value = dyn_cast<TypedAttr>(op.getValue());
    if (!value)
      return rewriter.notifyMatchFailure(op, "untyped constant");
    // ui32 data are the same bits as i32 data.
    if (isUnsignedElement(value.getType())) {
      auto dense = dyn_cast<DenseElementsAttr>(value);
      if (!dense)
        return rewriter.notifyMatchFailure(
            op, "unsigned constant that is not dense");
      value = dense.bitcast(signlessTensor(dense.getType()).getElementType());
    }
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, value);
    return success();
  }
};

struct IotaPattern : StaticTensorPattern<lax::IotaOp> {
  using StaticTensorPattern::StaticTensorPattern;
  LogicalResult rewriteStatic(lax::IotaOp op, OpAdaptor,
                              ConversionPatternRewriter &rewriter) const override {
    auto type = signlessTensor(op.getType());
    int64_t dim = op.getDimension();
    Type elt = type.getElementType();
    Value iota = parallelGeneric(
        rewriter, op.getLoc(), type, /*inputs=*/{}, /*inputMaps=*/{},
        [&](OpBuilder &b, Location loc, ValueRange) -> Value {
          Value idx = linalg::IndexOp::create(b, loc, dim);
          Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), idx);
          if (isa<FloatType>(elt))
            return arith::SIToFPOp::create(b, loc, elt, i64);
          if (elt.getIntOrFloatBitWidth() < 64)
            return arith::TruncIOp::create(b, loc, elt, i64);
          return i64;
        });
    rewriter.replaceOp(op, iota);
    return success();
  }
};

struct BroadcastInDimPattern : StaticTensorPattern<lax::BroadcastInDimOp> {
  using StaticTensorPattern::StaticTensorPattern;
  LogicalResult rewriteStatic(lax::BroadcastInDimOp op, OpAdaptor adaptor,
                              ConversionPatternRewriter &rewriter) const override {
    auto type = signlessTensor(op.getType());
    auto srcType = cast<RankedTensorType>(op.getOperand().getType());
    int64_t rank = type.getRank();
    // Operand dim i reads result dim dims[i], or index 0 where it has size 1
    // and is stretched (JAX's degenerate broadcasting).
    SmallVector<AffineExpr> exprs;
    for (auto [i, d] : llvm::enumerate(op.getBroadcastDimensions())) {
      if (srcType.getDimSize(i) == 1 && type.getDimSize(d) != 1)
        exprs.push_back(rewriter.getAffineConstantExpr(0));
      else
        exprs.push_back(rewriter.getAffineDimExpr(d));
    }
    rewriter.replaceOp(op, copyThroughMap(rewriter, op.getLoc(), adaptor.getOperand(),
                                          AffineMap::get(rank, 0, exprs, rewriter.getContext()),
                                          type));
    return success();
  }
};

/// reshape, squeeze and expand_dims are all row-major reshapes.
template <typename OpTy> struct ReshapeLikePattern : StaticTensorPattern<OpTy> {
  using StaticTensorPattern<OpTy>::StaticTensorPattern;
  LogicalResult rewriteStatic(OpTy op, typename OpTy::Adaptor adaptor,
                              ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, reshapeTensor(rewriter, op.getLoc(),
                                         adaptor.getOperand(),
                                         signlessTensor(op.getType())));
    return success();
  }
};

struct TransposePattern : StaticTensorPattern<lax::TransposeOp> {
  using StaticTensorPattern::StaticTensorPattern;
  LogicalResult rewriteStatic(lax::TransposeOp op, OpAdaptor adaptor,
                              ConversionPatternRewriter &rewriter) const override {
    auto type = signlessTensor(op.getType());
    // lax and linalg.transpose agree: result dim i is input dim perm[i].
    auto t = linalg::TransposeOp::create(
        rewriter, op.getLoc(), adaptor.getOperand(),
        emptyTensor(rewriter, op.getLoc(), type), op.getPermutation());
    rewriter.replaceOp(op, t.getResult());
    return success();
  }
};

struct RevPattern : StaticTensorPattern<lax::RevOp> {
  using StaticTensorPattern::StaticTensorPattern;
  LogicalResult rewriteStatic(lax::RevOp op, OpAdaptor adaptor,
                              ConversionPatternRewriter &rewriter) const override {
    auto type = signlessTensor(op.getType());
    int64_t rank = type.getRank();
    // Result[i] = operand[n - 1 - i] along each reversed dim: an affine read.
    SmallVector<AffineExpr> exprs;
    for (int64_t d = 0; d < rank; ++d) {
      AffineExpr e = rewriter.getAffineDimExpr(d);
      if (llvm::is_contained(op.getDimensions(), d))
        e = rewriter.getAffineConstantExpr(type.getDimSize(d) - 1) - e;
      exprs.push_back(e);
    }
    rewriter.replaceOp(op, copyThroughMap(rewriter, op.getLoc(), adaptor.getOperand(),
                                          AffineMap::get(rank, 0, exprs, rewriter.getContext()),
                                          type));
    return success();
  }
};

struct SlicePattern : StaticTensorPattern<lax::SliceOp> {
  using StaticTensorPattern::StaticTensorPattern;
  LogicalResult rewriteStatic(lax::SliceOp op, OpAdaptor adaptor,
                              ConversionPatternRewriter &rewriter) const override {
    auto type = signlessTensor(op.getType());
    SmallVector<OpFoldResult> offsets, sizes, strides;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      offsets.push_back(rewriter.getIndexAttr(op.getStartIndices()[d]));
      sizes.push_back(rewriter.getIndexAttr(type.getDimSize(d)));
      strides.push_back(rewriter.getIndexAttr(op.getStrides()[d]));
    }
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, type, adaptor.getOperand(), offsets, sizes, strides);
    return success();
  }
};

/// A window of a tensor, as tensor.extract_slice and insert_slice take it.
struct Window {
  SmallVector<OpFoldResult> offsets, sizes, strides;
};

/// The window of shape `sizes` with unit strides at `indices` (one start
/// index per dim), each clamped like JAX into [0, dimSize - size].
Window clampedWindow(OpBuilder &b, Location loc, ValueRange indices,
                     TypeRange laxIndexTypes, RankedTensorType operand,
                     ArrayRef<int64_t> sizes) {
  Window window;
  for (int64_t size : sizes) {
    window.sizes.push_back(b.getIndexAttr(size));
    window.strides.push_back(b.getIndexAttr(1));
  }
  for (auto [d, idx] : llvm::enumerate(indices)) {
    Value scalar = tensor::ExtractOp::create(b, loc, idx, ValueRange{});
    Value i = isUnsignedElement(laxIndexTypes[d])
                  ? (Value)arith::IndexCastUIOp::create(
                        b, loc, b.getIndexType(), scalar)
                  : (Value)arith::IndexCastOp::create(b, loc, b.getIndexType(),
                                                      scalar);
    Value lo = arith::ConstantIndexOp::create(b, loc, 0);
    Value hi = arith::ConstantIndexOp::create(b, loc,
                                              operand.getDimSize(d) - sizes[d]);
    Value c = arith::MaxSIOp::create(b, loc,
                                     arith::MinSIOp::create(b, loc, i, hi), lo);
    window.offsets.push_back(c);
  }
  return window;
}

struct DynamicSlicePattern : StaticTensorPattern<lax::DynamicSliceOp> {
  using StaticTensorPattern::StaticTensorPattern;
  LogicalResult rewriteStatic(lax::DynamicSliceOp op, OpAdaptor adaptor,
                              ConversionPatternRewriter &rewriter) const override {
    auto type = signlessTensor(op.getType());
    auto operand = cast<RankedTensorType>(op.getOperand().getType());
    Window window = clampedWindow(rewriter, op.getLoc(), adaptor.getStartIndices(),
                                  op.getStartIndices().getTypes(), operand, type.getShape());
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, type, adaptor.getOperand(), window.offsets, window.sizes, window.strides);
    return success();
  }
};

struct DynamicUpdateSlicePattern
    : StaticTensorPattern<lax::DynamicUpdateSliceOp> {
  using StaticTensorPattern::StaticTensorPattern;
  LogicalResult rewriteStatic(lax::DynamicUpdateSliceOp op, OpAdaptor adaptor,
                              ConversionPatternRewriter &rewriter) const override {
    auto update = cast<RankedTensorType>(op.getUpdate().getType());
    auto operand = cast<RankedTensorType>(op.getOperand().getType());
    // An empty update writes nothing: the result is the operand.
    if (update.getNumElements() == 0) {
      rewriter.replaceOp(op, adaptor.getOperand());
      return success();
    }
    Window window = clampedWindow(rewriter, op.getLoc(), adaptor.getStartIndices(),
                                  op.getStartIndices().getTypes(), operand, update.getShape());
    rewriter.replaceOpWithNewOp<tensor::InsertSliceOp>(op, adaptor.getUpdate(),
                                                       adaptor.getOperand(), window.offsets,
                                                       window.sizes, window.strides);
    return success();
  }
};

struct ConcatenatePattern : StaticTensorPattern<lax::ConcatenateOp> {
  using StaticTensorPattern::StaticTensorPattern;
  LogicalResult rewriteStatic(lax::ConcatenateOp op, OpAdaptor adaptor,
                              ConversionPatternRewriter &rewriter) const override {
    auto type = signlessTensor(op.getType());
    // An empty input adds nothing.
    SmallVector<Value> inputs;
    for (Value in : adaptor.getInputs())
      if (cast<RankedTensorType>(in.getType()).getNumElements() != 0)
        inputs.push_back(in);
    if (inputs.empty()) {
      rewriter.replaceOp(op, emptyTensor(rewriter, op.getLoc(), type));
      return success();
    }
    // One tensor.concat, which bufferizes to one buffer and a copy of each
    // input into its window. (A chain of insert_slices into one tensor.empty
    // did the same, but made every input and the chain one alias set: the
    // one-shot analysis, quadratic or worse in an alias set's size, took
    // 90 s on a small CNN's training step of 45 concatenations.)
    rewriter.replaceOpWithNewOp<tensor::ConcatOp>(op, type, op.getDimension(), inputs);
    return success();
  }
};

} // namespace

void populateStructurePatterns(RewritePatternSet &patterns) {
  patterns.add<ConstantPattern, IotaPattern, BroadcastInDimPattern,
               ReshapeLikePattern<lax::ReshapeOp>,
               ReshapeLikePattern<lax::SqueezeOp>,
               ReshapeLikePattern<lax::ExpandDimsOp>, TransposePattern,
               RevPattern, SlicePattern, DynamicSlicePattern,
               DynamicUpdateSlicePattern, ConcatenatePattern>(
      patterns.getContext());
}

} // namespace kiln::lowering
