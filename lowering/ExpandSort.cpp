//===- ExpandSort.cpp - lax.sort and lax.top_k for the lowering ----------===//
//
// Along an axis of at most `rank-max-length` elements, lax.sort and
// lax.top_k become lax ops that compute each element's rank: along the axis
// of length n, element i's rank is the number of elements that come before
// it,
//
//   rank(i) = #{j : key(j) < key(i)} + #{j < i : key(j) == key(i)},
//
// (lexicographic over several keys, `>` for top_k), computed on an [n, n]
// comparison of every pair; then output r takes the element whose rank is
// r, as a sum over i of select(rank(i) == r, v(i), 0), on integers (floats
// bitcast to integers of their width and back), where exactly one term is
// nonzero: every value moves bit for bit. The ranks are a permutation (ties
// go by position), so the result is exactly the stable order the ops
// define. n^2 work per row, but elementwise code that fuses and
// vectorizes, and no runtime: the GPU pipeline sorts this way.
//
// Along longer axes, float keys become integer keys ordered as the floats
// are (below), so that the lowering (LaxToLinalgSort.cpp) sorts integers
// only: a sort carries the original operands as values behind its integer
// keys; a top_k of floats becomes a top_k of their keys, whose values map
// back to the floats' bits (the key is a bijection of the bits there).
//
// Keys: floats by their total order (lax::buildTotalOrderKey), for lax.sort
// after -0 becomes +0 and every NaN the positive quiet NaN (JAX's
// canonicalization: NaNs last, -0 and +0 equal). Integers and booleans
// compare as they are.
//
//===----------------------------------------------------------------------===//
#include "lowering/Passes.h"

#include "dialect/LaxIndexingOps.h"
#include "dialect/LaxOps.h"
#include "dialect/LaxTotalOrder.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kiln {
#define GEN_PASS_DEF_EXPANDSORT
#include "lowering/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln::lax;
using llvm::SmallVector;

namespace {

/// `key` as an integer tensor ordered as the key is (see the file
/// comment): floats by their total order (buildTotalOrderKey), canonicalized
/// first with `canonicalize`; booleans as i32; integers as they are.
Value orderedSortKey(OpBuilder &b, Location loc, Value key, bool canonicalize) {
  auto type = cast<RankedTensorType>(key.getType());
  if (type.getElementType().isInteger(1)) // lax.compare orders no booleans
    return ConvertElementTypeOp::create(b, loc, type.clone(b.getI32Type()), key);
  auto floatType = dyn_cast<FloatType>(type.getElementType());
  if (floatType && canonicalize) {
    const llvm::fltSemantics &semantics = floatType.getFloatSemantics();
    Value zero = ConstantOp::create(
        b, loc, DenseElementsAttr::get(type, APFloat::getZero(semantics)));
    Value nan =
        ConstantOp::create(b, loc, DenseElementsAttr::get(type, APFloat::getQNaN(semantics)));
    auto direction = [&](ComparisonDirection d) {
      return ComparisonDirectionAttr::get(b.getContext(), d);
    };
    Value isZero = CompareOp::create(b, loc, direction(ComparisonDirection::EQ), key, zero);
    Value isNan = CompareOp::create(b, loc, direction(ComparisonDirection::NE), key, key);
    key = SelectNOp::create(b, loc, isZero, ValueRange{key, zero});
    key = SelectNOp::create(b, loc, isNan, ValueRange{key, nan});
  }
  return buildTotalOrderKey(b, loc, key);
}

/// Builds the ops of one sort or top_k along `axis` of `shape`.
struct RankBuilder {
  OpBuilder &b;
  Location loc;
  SmallVector<int64_t> shape; // the operands' shape
  int64_t axis;

  int64_t rank() const { return shape.size(); }
  int64_t length() const { return shape[axis]; }

  /// The [.., n, n, ..] shape: the axis split into (d, d + 1).
  SmallVector<int64_t> pairShape() const {
    SmallVector<int64_t> s(shape);
    s.insert(s.begin() + axis + 1, length());
    return s;
  }
  /// `v` (of `shape`) broadcast to pairShape() with its axis at `at` (axis
  /// or axis + 1).
  Value spread(Value v, int64_t at) {
    SmallVector<int64_t> dims;
    for (int64_t d = 0; d < rank(); ++d)
      dims.push_back(d < axis ? d : d == axis ? at : d + 1);
    return BroadcastInDimOp::create(b, loc, v, pairShape(), dims);
  }
  Value compare(ComparisonDirection direction, Value l, Value r) {
    return CompareOp::create(b, loc, ComparisonDirectionAttr::get(b.getContext(), direction), l,
                             r);
  }
  Value iota(Type element, ArrayRef<int64_t> s, int64_t dim) {
    return IotaOp::create(b, loc, RankedTensorType::get(s, element), dim);
  }
  Value constant(Type element, ArrayRef<int64_t> s, const APInt &v) {
    auto type = RankedTensorType::get(s, element);
    return ConstantOp::create(b, loc, DenseElementsAttr::get(type, v));
  }

  /// rank(i) (i32, of `shape`) for `keys` (ordered, most significant first).
  Value ranks(ArrayRef<Value> keys, bool descending) {
    SmallVector<int64_t> pair = pairShape();
    Type i32 = b.getI32Type();
    // pred[.., i, j, ..]: element j comes before element i.
    Value pred = compare(ComparisonDirection::LT, iota(i32, pair, axis + 1), iota(i32, pair, axis));
    for (Value key : llvm::reverse(keys)) {
      Value ki = spread(key, axis), kj = spread(key, axis + 1);
      Value strictly =
          compare(descending ? ComparisonDirection::GT : ComparisonDirection::LT, kj, ki);
      Value tie = AndOp::create(b, loc, compare(ComparisonDirection::EQ, kj, ki), pred);
      pred = OrOp::create(b, loc, strictly, tie);
    }
    Value counts = ConvertElementTypeOp::create(b, loc, RankedTensorType::get(pair, i32), pred);
    return ReduceSumOp::create(b, loc, counts, b.getDenseI64ArrayAttr({axis + 1}));
  }

  /// out[.., r, ..] = v[.., i, ..] where rank(i) = r, bit for bit.
  Value permute(Value v, Value rank) {
    auto type = cast<RankedTensorType>(v.getType());
    Type element = type.getElementType();
    // As integers of the same width (bools as i32; f16/bf16 widened exactly).
    Type carried = element;
    if (element.isInteger(1)) {
      carried = b.getI32Type();
      v = ConvertElementTypeOp::create(b, loc, type.clone(carried), v);
    } else if (element.isF16() || element.isBF16()) {
      v = ConvertElementTypeOp::create(b, loc, type.clone(b.getF32Type()), v);
      carried = b.getI32Type();
      v = BitcastConvertTypeOp::create(b, loc, type.clone(carried), v);
    } else if (isa<FloatType>(element)) {
      carried = b.getIntegerType(element.getIntOrFloatBitWidth());
      v = BitcastConvertTypeOp::create(b, loc, type.clone(carried), v);
    }
    SmallVector<int64_t> pair = pairShape();
    // At [.., r, i, ..]: rank(i) == r.
    Value hit = compare(ComparisonDirection::EQ, spread(rank, axis + 1),
                        iota(b.getI32Type(), pair, axis));
    Value zero = constant(carried, pair, APInt::getZero(carried.getIntOrFloatBitWidth()));
    Value picked = SelectNOp::create(b, loc, hit, ValueRange{zero, spread(v, axis + 1)});
    Value out = ReduceSumOp::create(b, loc, picked, b.getDenseI64ArrayAttr({axis + 1}));
    if (carried == element)
      return out;
    if (element.isInteger(1))
      return ConvertElementTypeOp::create(b, loc, type, out);
    if (element.isF16() || element.isBF16()) {
      Value wide = BitcastConvertTypeOp::create(b, loc, type.clone(b.getF32Type()), out);
      return ConvertElementTypeOp::create(b, loc, type, wide);
    }
    return BitcastConvertTypeOp::create(b, loc, type, out);
  }
};

/// lax.sort: by ranks along short axes; along long ones with its float
/// keys as integers (the original operands carried behind them).
struct ExpandSortOp : OpRewritePattern<SortOp> {
  ExpandSortOp(MLIRContext *context, int64_t rankMaxLength)
      : OpRewritePattern(context), rankMaxLength(rankMaxLength) {}

  LogicalResult matchAndRewrite(SortOp op, PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getOperands()[0].getType());
    int64_t axis = op.getDimension(), numKeys = op.getNumKeys();
    OperandRange keyOperands = op.getOperands().take_front(numKeys);
    if (type.getDimSize(axis) > rankMaxLength) {
      if (llvm::none_of(keyOperands, [](Value k) {
            return isa<FloatType>(cast<RankedTensorType>(k.getType()).getElementType());
          }))
        return rewriter.notifyMatchFailure(op, "integer keys: the lowering sorts them");
      SmallVector<Value> operands;
      for (Value key : keyOperands)
        operands.push_back(orderedSortKey(rewriter, loc, key, /*canonicalize=*/true));
      llvm::append_range(operands, op.getOperands());
      auto sorted = SortOp::create(rewriter, loc, operands, axis, numKeys);
      rewriter.replaceOp(op, sorted.getResults().drop_front(numKeys));
      return success();
    }
    RankBuilder rb{rewriter, loc, SmallVector<int64_t>(type.getShape()), axis};
    SmallVector<Value> keys;
    for (Value key : keyOperands)
      keys.push_back(orderedSortKey(rewriter, loc, key, /*canonicalize=*/true));
    Value rank = rb.ranks(keys, /*descending=*/false);
    SmallVector<Value> results;
    for (Value v : op.getOperands())
      results.push_back(rb.permute(v, rank));
    rewriter.replaceOp(op, results);
    return success();
  }

  int64_t rankMaxLength;
};

/// lax.top_k: by ranks along short axes; along long ones of floats as the
/// top_k of their keys.
struct ExpandTopKOp : OpRewritePattern<TopKOp> {
  ExpandTopKOp(MLIRContext *context, int64_t rankMaxLength)
      : OpRewritePattern(context), rankMaxLength(rankMaxLength) {}

  LogicalResult matchAndRewrite(TopKOp op, PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getOperand().getType());
    int64_t axis = op.getAxis();
    bool isLong = type.getDimSize(axis) > rankMaxLength;
    if (isLong && !isa<FloatType>(type.getElementType()))
      return rewriter.notifyMatchFailure(op, "integers: the lowering sorts them");
    Value key = orderedSortKey(rewriter, loc, op.getOperand(), /*canonicalize=*/false);
    if (isLong) {
      auto top = TopKOp::create(rewriter, loc, key, op.getK(), axis);
      rewriter.replaceOp(op, {buildFloatOfTotalOrderKey(rewriter, loc, top.getValues(),
                                                        type.getElementType()),
                              top.getIndices()});
      return success();
    }
    RankBuilder rb{rewriter, loc, SmallVector<int64_t>(type.getShape()), axis};
    Value rank = rb.ranks({key}, /*descending=*/true);
    Value indices = rb.iota(rewriter.getI32Type(), rb.shape, axis);
    SmallVector<Value> results;
    for (Value v : {Value(op.getOperand()), indices}) {
      SmallVector<int64_t> start(rb.rank(), 0), limit(rb.shape), strides(rb.rank(), 1);
      limit[axis] = op.getK();
      results.push_back(SliceOp::create(rewriter, loc, rb.permute(v, rank),
                                        rewriter.getDenseI64ArrayAttr(start),
                                        rewriter.getDenseI64ArrayAttr(limit),
                                        rewriter.getDenseI64ArrayAttr(strides)));
    }
    rewriter.replaceOp(op, results);
    return success();
  }

  int64_t rankMaxLength;
};

struct ExpandSortPass : kiln::impl::ExpandSortBase<ExpandSortPass> {
  using ExpandSortBase::ExpandSortBase;
  void runOnOperation() override {
    if (!runtimeSort) {
      // Without the runtime's sort, a long axis has no lowering: say so at
      // the op (the alternative, ranks, would take n^2 memory per row).
      WalkResult walk = getOperation()->walk([&](Operation *op) {
        int64_t axis, length;
        if (auto sort = dyn_cast<SortOp>(op))
          axis = sort.getDimension(),
          length = cast<RankedTensorType>(sort.getOperands()[0].getType()).getDimSize(axis);
        else if (auto top = dyn_cast<TopKOp>(op))
          axis = top.getAxis(), length = top.getOperand().getType().getDimSize(axis);
        else
          return WalkResult::advance();
        if (length <= rankMaxLength)
          return WalkResult::advance();
        op->emitError() << "'" << op->getName() << "' along an axis of " << length
                        << " elements: this pipeline sorts by comparing every pair, at most "
                        << int64_t(rankMaxLength)
                        << " elements (the CPU pipeline sorts any length)";
        return WalkResult::interrupt();
      });
      if (walk.wasInterrupted())
        return signalPassFailure();
    }
    RewritePatternSet patterns(&getContext());
    patterns.add<ExpandSortOp, ExpandTopKOp>(&getContext(), rankMaxLength);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
