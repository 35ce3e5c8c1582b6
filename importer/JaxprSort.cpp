//===- JaxprSort.cpp - sort and top_k as lax ops ---------------------------===//
//
// sort[dimension is_stable num_keys] and top_k[k axis], by ranks, from the
// lax ops Kiln has (no sort op): along the axis of length n, element i's
// rank is the number of elements that come before it,
//
//   rank(i) = #{j : key(j) < key(i)} + #{j < i : key(j) == key(i)},
//
// (lexicographic over several keys, `>` for top_k), computed on an [n, n]
// comparison of every pair; then output r takes the element whose rank is
// r, as a sum over i of select(rank(i) == r, v(i), 0), on integers (floats
// bitcast to integers of their width and back), where exactly one term is
// nonzero: every value moves bit for bit. The order is JAX's: for sort, a
// float key compares by the total order after -0 becomes +0 and every NaN
// the positive quiet NaN (lax.sort's canonicalization: NaNs last, -0 and +0
// equal, ties in input order); for top_k by the total order itself (+NaN
// first, +0 before -0, ties by index). The total order is the order of the
// bits read as a signed integer with the magnitude bits of negative values
// flipped.
//
// The [n, n] comparison costs n^2 per row: an axis longer than
// kMaxSortLength is a located error.
//
//===----------------------------------------------------------------------===//
#include "importer/JaxprPrimitives.h"

#include "dialect/LaxOps.h"

using namespace mlir;
using namespace kiln::jaxpr;
using namespace kiln::lax;
using llvm::SmallVector;

namespace {

constexpr int64_t kMaxSortLength = 4096;

/// Builds ops of one sort or top_k along `axis` of `shape`.
struct RankBuilder {
  PrimitiveEmitter &e;
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
  FailureOr<Value> spread(Value v, int64_t at) {
    SmallVector<int64_t> dims;
    for (int64_t d = 0; d < rank(); ++d)
      dims.push_back(d < axis ? d : d == axis ? at : d + 1);
    return e.built(BroadcastInDimOp::create(e.b, e.loc, v, pairShape(), dims));
  }
  FailureOr<Value> compare(ComparisonDirection direction, Value l, Value r) {
    return e.built(CompareOp::create(e.b, e.loc, e.placeholder, direction, l, r));
  }
  FailureOr<Value> iota(Type element, ArrayRef<int64_t> s, int64_t dim) {
    return e.built(IotaOp::create(e.b, e.loc, RankedTensorType::get(s, element), dim));
  }
  Value constant(Type element, ArrayRef<int64_t> s, const APInt &v) {
    auto type = RankedTensorType::get(s, element);
    return ConstantOp::create(e.b, e.loc, DenseElementsAttr::get(type, v));
  }

  /// A key as a signed integer tensor ordered as the key is: integers as
  /// they are (unsigned ones compare unsigned, by lax.compare), bools as
  /// i32, floats by their total order (canonicalized first for sort).
  FailureOr<Value> orderedKey(Value key, bool canonicalize) {
    auto type = cast<RankedTensorType>(key.getType());
    Type element = type.getElementType();
    if (element.isInteger(1))
      return e.built(ConvertElementTypeOp::create(e.b, e.loc, type.clone(e.b.getI32Type()), key));
    if (!isa<FloatType>(element))
      return key;
    if (element.isF16() || element.isBF16()) { // widening is exact and keeps the order
      key = ConvertElementTypeOp::create(e.b, e.loc, type.clone(e.b.getF32Type()), key);
      type = cast<RankedTensorType>(key.getType());
      element = type.getElementType();
    }
    unsigned width = element.getIntOrFloatBitWidth();
    Type intType = e.b.getIntegerType(width);
    if (canonicalize) {
      auto floatType = cast<FloatType>(element);
      Value zero = ConstantOp::create(
          e.b, e.loc, DenseElementsAttr::get(type, APFloat::getZero(floatType.getFloatSemantics())));
      Value nan = ConstantOp::create(
          e.b, e.loc, DenseElementsAttr::get(type, APFloat::getQNaN(floatType.getFloatSemantics())));
      FailureOr<Value> isZero = compare(ComparisonDirection::EQ, key, zero);
      FailureOr<Value> isNan = compare(ComparisonDirection::NE, key, key);
      if (failed(isZero) || failed(isNan))
        return failure();
      FailureOr<Value> noNegZero =
          e.built(SelectNOp::create(e.b, e.loc, e.placeholder, *isZero, ValueRange{key, zero}));
      if (failed(noNegZero))
        return failure();
      FailureOr<Value> canonical =
          e.built(SelectNOp::create(e.b, e.loc, e.placeholder, *isNan, ValueRange{*noNegZero, nan}));
      if (failed(canonical))
        return failure();
      key = *canonical;
    }
    Value bits = BitcastConvertTypeOp::create(e.b, e.loc, type.clone(intType), key);
    Value shift = constant(intType, type.getShape(), APInt(width, width - 1));
    Value magnitude = constant(intType, type.getShape(), APInt::getSignedMaxValue(width));
    FailureOr<Value> sign =
        e.built(ShiftRightArithmeticOp::create(e.b, e.loc, e.placeholder, bits, shift));
    if (failed(sign))
      return failure();
    FailureOr<Value> flip = e.built(AndOp::create(e.b, e.loc, e.placeholder, *sign, magnitude));
    if (failed(flip))
      return failure();
    return e.built(XorOp::create(e.b, e.loc, e.placeholder, bits, *flip));
  }

  /// rank(i) (i32, of `shape`) for `keys` (ordered, most significant first).
  FailureOr<Value> ranks(ArrayRef<Value> keys, bool descending) {
    SmallVector<int64_t> pair = pairShape();
    Type i32 = e.b.getI32Type();
    // pred[.., i, j, ..]: element j comes before element i.
    FailureOr<Value> is = iota(i32, pair, axis), js = iota(i32, pair, axis + 1);
    if (failed(is) || failed(js))
      return failure();
    FailureOr<Value> before = compare(ComparisonDirection::LT, *js, *is);
    if (failed(before))
      return failure();
    Value pred = *before;
    for (Value key : llvm::reverse(keys)) {
      FailureOr<Value> ki = spread(key, axis), kj = spread(key, axis + 1);
      if (failed(ki) || failed(kj))
        return failure();
      FailureOr<Value> strictly = compare(
          descending ? ComparisonDirection::GT : ComparisonDirection::LT, *kj, *ki);
      FailureOr<Value> equal = compare(ComparisonDirection::EQ, *kj, *ki);
      if (failed(strictly) || failed(equal))
        return failure();
      FailureOr<Value> tie = e.built(AndOp::create(e.b, e.loc, e.placeholder, *equal, pred));
      if (failed(tie))
        return failure();
      FailureOr<Value> next = e.built(OrOp::create(e.b, e.loc, e.placeholder, *strictly, *tie));
      if (failed(next))
        return failure();
      pred = *next;
    }
    FailureOr<Value> counts =
        e.built(ConvertElementTypeOp::create(e.b, e.loc, RankedTensorType::get(pair, i32), pred));
    if (failed(counts))
      return failure();
    return e.built(ReduceSumOp::create(e.b, e.loc, e.placeholder, *counts,
                                       SmallVector<int64_t>{axis + 1}));
  }

  /// out[.., r, ..] = v[.., i, ..] where rank(i) = r, bit for bit.
  FailureOr<Value> permute(Value v, Value rank) {
    auto type = cast<RankedTensorType>(v.getType());
    Type element = type.getElementType();
    // As integers of the same width (bools as i32; f16/bf16 widened exactly).
    Type carried = element;
    if (element.isInteger(1)) {
      carried = e.b.getI32Type();
      v = ConvertElementTypeOp::create(e.b, e.loc, type.clone(carried), v);
    } else if (element.isF16() || element.isBF16()) {
      v = ConvertElementTypeOp::create(e.b, e.loc, type.clone(e.b.getF32Type()), v);
      carried = e.b.getI32Type();
      v = BitcastConvertTypeOp::create(e.b, e.loc, type.clone(carried), v);
    } else if (isa<FloatType>(element)) {
      carried = e.b.getIntegerType(element.getIntOrFloatBitWidth());
      v = BitcastConvertTypeOp::create(e.b, e.loc, type.clone(carried), v);
    }
    SmallVector<int64_t> pair = pairShape();
    // At [.., r, i, ..]: rank(i) == r.
    FailureOr<Value> rankI = spread(rank, axis + 1), rs = iota(e.b.getI32Type(), pair, axis);
    FailureOr<Value> vi = spread(v, axis + 1);
    if (failed(rankI) || failed(rs) || failed(vi))
      return failure();
    FailureOr<Value> hit = compare(ComparisonDirection::EQ, *rankI, *rs);
    if (failed(hit))
      return failure();
    Value zero = constant(carried, pair, APInt::getZero(carried.getIntOrFloatBitWidth()));
    FailureOr<Value> picked =
        e.built(SelectNOp::create(e.b, e.loc, e.placeholder, *hit, ValueRange{zero, *vi}));
    if (failed(picked))
      return failure();
    FailureOr<Value> out = e.built(ReduceSumOp::create(e.b, e.loc, e.placeholder, *picked,
                                                       SmallVector<int64_t>{axis + 1}));
    if (failed(out) || carried == element)
      return out;
    if (element.isInteger(1) )
      return e.built(ConvertElementTypeOp::create(e.b, e.loc, type, *out));
    if (element.isF16() || element.isBF16()) {
      Value wide = BitcastConvertTypeOp::create(e.b, e.loc, type.clone(e.b.getF32Type()), *out);
      return e.built(ConvertElementTypeOp::create(e.b, e.loc, type, wide));
    }
    return e.built(BitcastConvertTypeOp::create(e.b, e.loc, type, *out));
  }
};

/// Checks the axis and the operands' common shape.
FailureOr<RankBuilder> rankBuilder(PrimitiveEmitter &e, ArrayRef<Value> operands, int64_t axis) {
  auto type = cast<RankedTensorType>(operands[0].getType());
  for (Value v : operands)
    if (cast<RankedTensorType>(v.getType()).getShape() != type.getShape())
      return e.builder.emitError(e.eqn.primitiveLoc)
             << "'" << e.primitive() << "' operands must have one shape";
  if (axis < 0)
    axis += type.getRank();
  if (axis < 0 || axis >= type.getRank())
    return e.builder.emitError(e.eqn.primitiveLoc)
           << "'" << e.primitive() << "' axis out of range for rank " << type.getRank();
  if (type.getDimSize(axis) > kMaxSortLength)
    return e.builder.emitError(e.eqn.primitiveLoc)
           << "'" << e.primitive() << "' along an axis of " << type.getDimSize(axis)
           << " elements: Kiln sorts by an n x n comparison, at most " << kMaxSortLength;
  return RankBuilder{e, SmallVector<int64_t>(type.getShape()), axis};
}

/// sort[dimension is_stable num_keys] operands...: every operand permuted by
/// the order of the first num_keys (ties in input order, stable or not).
EmitResult emitSort(PrimitiveEmitter &e) {
  EmitResult operands = e.operands(1, 64);
  FailureOr<int64_t> dimension = e.builder.intParam(e.eqn, "dimension");
  FailureOr<int64_t> numKeys = e.builder.intParam(e.eqn, "num_keys", 1);
  if (failed(operands) || failed(dimension) || failed(numKeys))
    return failure();
  if (*numKeys < 1 || *numKeys > int64_t(operands->size()))
    return e.builder.emitError(e.eqn.primitiveLoc)
           << "'sort' num_keys must be between 1 and the number of operands";
  FailureOr<RankBuilder> rb = rankBuilder(e, *operands, *dimension);
  if (failed(rb))
    return failure();
  SmallVector<Value> keys;
  for (int64_t k = 0; k < *numKeys; ++k) {
    FailureOr<Value> key = rb->orderedKey((*operands)[k], /*canonicalize=*/true);
    if (failed(key))
      return failure();
    keys.push_back(*key);
  }
  FailureOr<Value> rank = rb->ranks(keys, /*descending=*/false);
  if (failed(rank))
    return failure();
  SmallVector<Value> results;
  for (Value v : *operands) {
    FailureOr<Value> sorted = rb->permute(v, *rank);
    if (failed(sorted))
      return failure();
    results.push_back(*sorted);
  }
  return results;
}

/// top_k[k axis] operand: the k largest along `axis` (default: the last),
/// largest first, and their indices (i32).
EmitResult emitTopK(PrimitiveEmitter &e) {
  EmitResult operands = e.operands(1, 1);
  FailureOr<int64_t> k = e.builder.intParam(e.eqn, "k");
  if (failed(operands) || failed(k))
    return failure();
  auto type = cast<RankedTensorType>((*operands)[0].getType());
  FailureOr<int64_t> axis = e.builder.intParam(e.eqn, "axis", type.getRank() - 1);
  if (failed(axis))
    return failure();
  FailureOr<RankBuilder> rb = rankBuilder(e, *operands, *axis);
  if (failed(rb))
    return failure();
  if (*k < 0 || *k > rb->length())
    return e.builder.emitError(e.eqn.primitiveLoc)
           << "'top_k' k = " << *k << " is not within the axis's " << rb->length() << " elements";
  FailureOr<Value> key = rb->orderedKey((*operands)[0], /*canonicalize=*/false);
  if (failed(key))
    return failure();
  FailureOr<Value> rank = rb->ranks({*key}, /*descending=*/true);
  FailureOr<Value> indices = rb->iota(e.b.getI32Type(), rb->shape, rb->axis);
  if (failed(rank) || failed(indices))
    return failure();
  SmallVector<Value> results;
  for (Value v : {(*operands)[0], *indices}) {
    FailureOr<Value> ordered = rb->permute(v, *rank);
    if (failed(ordered))
      return failure();
    SmallVector<int64_t> start(rb->rank(), 0), limit(rb->shape), strides(rb->rank(), 1);
    limit[rb->axis] = *k;
    FailureOr<Value> first =
        e.built(SliceOp::create(e.b, e.loc, e.placeholder, *ordered, start, limit, strides));
    if (failed(first))
      return failure();
    results.push_back(*first);
  }
  return results;
}

} // namespace

void kiln::jaxpr::registerSortPrimitives(PrimitiveTable &table) {
  addPrimitives(table, {{"sort", emitSort}, {"top_k", emitTopK}});
}
