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

struct ConstantPattern : OpConversionPattern<lax::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(lax::ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkStaticTensors(op, rewriter)))
      return failure();
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

struct IotaPattern : OpConversionPattern<lax::IotaOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(lax::IotaOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkStaticTensors(op, rewriter)))
      return failure();
    auto type = signlessTensor(op.getType());
    int64_t rank = type.getRank(), dim = op.getDimension();
    Type elt = type.getElementType();
    SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, op.getLoc(), TypeRange{type}, ValueRange{},
        ValueRange{emptyTensor(rewriter, op.getLoc(), type)},
        ArrayRef<AffineMap>{rewriter.getMultiDimIdentityMap(rank)}, iters,
        [&](OpBuilder &b, Location loc, ValueRange) {
          Value idx = linalg::IndexOp::create(b, loc, dim);
          Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), idx);
          Value v;
          if (isa<FloatType>(elt))
            v = arith::SIToFPOp::create(b, loc, elt, i64);
          else if (elt.getIntOrFloatBitWidth() < 64)
            v = arith::TruncIOp::create(b, loc, elt, i64);
          else
            v = i64;
          linalg::YieldOp::create(b, loc, v);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

struct BroadcastInDimPattern : OpConversionPattern<lax::BroadcastInDimOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(lax::BroadcastInDimOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkStaticTensors(op, rewriter)))
      return failure();
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
    SmallVector<AffineMap> maps{
        AffineMap::get(rank, 0, exprs, rewriter.getContext()),
        rewriter.getMultiDimIdentityMap(rank)};
    SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, op.getLoc(), TypeRange{type},
        ValueRange{adaptor.getOperand()},
        ValueRange{emptyTensor(rewriter, op.getLoc(), type)}, maps, iters,
        [](OpBuilder &b, Location loc, ValueRange args) {
          linalg::YieldOp::create(b, loc, args[0]);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// reshape, squeeze and expand_dims are all row-major reshapes.
template <typename OpTy> struct ReshapeLikePattern : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkStaticTensors(op, rewriter)))
      return failure();
    rewriter.replaceOp(op, reshapeTensor(rewriter, op.getLoc(),
                                         adaptor.getOperand(),
                                         signlessTensor(op.getType())));
    return success();
  }
};

struct TransposePattern : OpConversionPattern<lax::TransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(lax::TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkStaticTensors(op, rewriter)))
      return failure();
    auto type = signlessTensor(op.getType());
    // lax and linalg.transpose agree: result dim i is input dim perm[i].
    auto t = linalg::TransposeOp::create(
        rewriter, op.getLoc(), adaptor.getOperand(),
        emptyTensor(rewriter, op.getLoc(), type), op.getPermutation());
    rewriter.replaceOp(op, t.getResult());
    return success();
  }
};

struct RevPattern : OpConversionPattern<lax::RevOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(lax::RevOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkStaticTensors(op, rewriter)))
      return failure();
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
    SmallVector<AffineMap> maps{
        AffineMap::get(rank, 0, exprs, rewriter.getContext()),
        rewriter.getMultiDimIdentityMap(rank)};
    SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, op.getLoc(), TypeRange{type},
        ValueRange{adaptor.getOperand()},
        ValueRange{emptyTensor(rewriter, op.getLoc(), type)}, maps, iters,
        [](OpBuilder &b, Location loc, ValueRange args) {
          linalg::YieldOp::create(b, loc, args[0]);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

struct SlicePattern : OpConversionPattern<lax::SliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(lax::SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkStaticTensors(op, rewriter)))
      return failure();
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

/// The start index of dim `d`, clamped like JAX into [0, dimSize - size].
SmallVector<OpFoldResult> clampedOffsets(OpBuilder &b, Location loc,
                                         ValueRange indices,
                                         TypeRange laxIndexTypes,
                                         RankedTensorType operand,
                                         ArrayRef<int64_t> sizes) {
  SmallVector<OpFoldResult> offsets;
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
    offsets.push_back(c);
  }
  return offsets;
}

struct DynamicSlicePattern : OpConversionPattern<lax::DynamicSliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(lax::DynamicSliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkStaticTensors(op, rewriter)))
      return failure();
    auto type = signlessTensor(op.getType());
    auto operand = cast<RankedTensorType>(op.getOperand().getType());
    SmallVector<OpFoldResult> offsets = clampedOffsets(
        rewriter, op.getLoc(), adaptor.getStartIndices(),
        op.getStartIndices().getTypes(), operand, type.getShape());
    SmallVector<OpFoldResult> sizes, strides;
    for (int64_t s : type.getShape()) {
      sizes.push_back(rewriter.getIndexAttr(s));
      strides.push_back(rewriter.getIndexAttr(1));
    }
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, type, adaptor.getOperand(), offsets, sizes, strides);
    return success();
  }
};

struct DynamicUpdateSlicePattern
    : OpConversionPattern<lax::DynamicUpdateSliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(lax::DynamicUpdateSliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkStaticTensors(op, rewriter)))
      return failure();
    auto update = cast<RankedTensorType>(op.getUpdate().getType());
    auto operand = cast<RankedTensorType>(op.getOperand().getType());
    SmallVector<OpFoldResult> offsets = clampedOffsets(
        rewriter, op.getLoc(), adaptor.getStartIndices(),
        op.getStartIndices().getTypes(), operand, update.getShape());
    SmallVector<OpFoldResult> sizes, strides;
    for (int64_t s : update.getShape()) {
      sizes.push_back(rewriter.getIndexAttr(s));
      strides.push_back(rewriter.getIndexAttr(1));
    }
    rewriter.replaceOpWithNewOp<tensor::InsertSliceOp>(
        op, adaptor.getUpdate(), adaptor.getOperand(), offsets, sizes, strides);
    return success();
  }
};

struct ConcatenatePattern : OpConversionPattern<lax::ConcatenateOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(lax::ConcatenateOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkStaticTensors(op, rewriter)))
      return failure();
    auto type = signlessTensor(op.getType());
    int64_t dim = op.getDimension();
    // Each input is written into its window of one destination tensor, so
    // bufferization produces one buffer and no intermediate copies.
    Value acc = emptyTensor(rewriter, op.getLoc(), type);
    int64_t offset = 0;
    for (Value in : adaptor.getInputs()) {
      auto inType = cast<RankedTensorType>(in.getType());
      SmallVector<OpFoldResult> offsets, sizes, strides;
      for (int64_t d = 0; d < type.getRank(); ++d) {
        offsets.push_back(rewriter.getIndexAttr(d == dim ? offset : 0));
        sizes.push_back(rewriter.getIndexAttr(inType.getDimSize(d)));
        strides.push_back(rewriter.getIndexAttr(1));
      }
      acc = tensor::InsertSliceOp::create(rewriter, op.getLoc(), in, acc,
                                          offsets, sizes, strides);
      offset += inType.getDimSize(dim);
    }
    rewriter.replaceOp(op, acc);
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
