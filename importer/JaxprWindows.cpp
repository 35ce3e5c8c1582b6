//===- JaxprWindows.cpp - pooling as lax ops ------------------------------===//
//
// reduce_window_sum/max/min and select_and_scatter_add (max pooling's
// gradient), built from the structural and elementwise ops Kiln has, so the
// interpreter, the error model and both pipelines need nothing new:
//
// - reduce_window_{sum,max,min}: the operand padded with the reduction's
//   identity (base dilation as interior padding, as XLA pads), then, for
//   each offset of the window, the strided slice that offset reads at every
//   output position, combined with add/max/min. Windows that tile the
//   operand (strides equal to the window, no dilation) are reshaped into
//   axes of their own and reduced by one reduce op instead. max and min are
//   exact in any order; a sum is the same sum in another order (XLA's own
//   order is unspecified), within the error model.
// - select_and_scatter_add source operand: XLA's selection, step by step:
//   in each window the selected element starts as the first (row-major) and
//   is replaced by each next element e for which select(selected, e) is
//   false (ge: the first maximum; NaN as XLA compares it). Each source
//   value is then added at its window's selected position: per offset, the
//   values whose selection is that offset, placed by interior padding.
//
// - select_and_gather_add (forward-mode derivatives of max pooling): the
//   same selection, carrying the tangent instead of the offset's number.
//
//===----------------------------------------------------------------------===//
#include "importer/JaxprPrimitives.h"

#include "dialect/LaxOps.h"

#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace kiln::jaxpr;
using namespace kiln::lax;
using llvm::SmallVector;

namespace {

/// At most this many window offsets become slices (a window that tiles the
/// operand has no limit).
constexpr int64_t kMaxWindowOffsets = 1024;

enum class WindowReduction { Sum, Max, Min };

struct Window {
  SmallVector<int64_t> dims, strides, baseDilation, windowDilation;
  SmallVector<Padding> padding;
};

/// The window parameters of `e`'s equation for an operand of rank `rank`.
FailureOr<Window> windowParams(PrimitiveEmitter &e, int64_t rank) {
  Window w;
  SmallVector<int64_t> ones(rank, 1);
  auto dims = e.builder.intListParam(e.eqn, "window_dimensions");
  auto strides = e.builder.intListParam(e.eqn, "window_strides", ones);
  auto base = e.builder.intListParam(e.eqn, "base_dilation", ones);
  auto dilation = e.builder.intListParam(e.eqn, "window_dilation", ones);
  if (failed(dims) || failed(strides) || failed(base) || failed(dilation))
    return failure();
  for (auto [name, list] : {std::pair<StringRef, SmallVector<int64_t> *>{"window_dimensions", &*dims},
                            {"window_strides", &*strides},
                            {"base_dilation", &*base},
                            {"window_dilation", &*dilation}}) {
    if (int64_t(list->size()) != rank)
      return e.builder.emitError(e.eqn.primitiveLoc)
             << "'" << e.primitive() << "': " << name << " has " << list->size()
             << " entries for an operand of rank " << rank;
    if (llvm::any_of(*list, [](int64_t v) { return v < 1; }))
      return e.builder.emitError(e.eqn.primitiveLoc)
             << "'" << e.primitive() << "': every entry of " << name << " must be at least 1";
  }
  w.dims = *dims;
  w.strides = *strides;
  w.baseDilation = *base;
  w.windowDilation = *dilation;
  w.padding.assign(rank, Padding());
  if (const Param *p = e.eqn.findParam("padding")) {
    if (p->value.kind != ParamValue::Kind::List || int64_t(p->value.items.size()) != rank)
      return e.builder.emitError(p->value.loc)
             << "'" << e.primitive() << "': padding must be one (low, high) pair per dimension";
    for (auto [d, pair] : llvm::enumerate(p->value.items)) {
      FailureOr<SmallVector<int64_t>> lh = e.builder.intList(pair, "a padding pair");
      if (failed(lh))
        return failure();
      if (lh->size() != 2 || (*lh)[0] < 0 || (*lh)[1] < 0)
        return e.builder.emitError(pair.loc)
               << "'" << e.primitive() << "': padding pairs must be (low, high), both >= 0";
      w.padding[d] = {(*lh)[0], (*lh)[1], w.baseDilation[d] - 1};
    }
  } else {
    for (int64_t d = 0; d < rank; ++d)
      w.padding[d].interior = w.baseDilation[d] - 1;
  }
  return w;
}

/// A rank-0 constant of `element`: 0, or its lowest or highest value.
Value scalarOf(PrimitiveEmitter &e, Type element, ReductionIdentity identity) {
  return reductionIdentity(e, identity, RankedTensorType::get({}, element));
}

/// The identity of `kind`.
ReductionIdentity identityOf(WindowReduction kind) {
  return kind == WindowReduction::Sum   ? ReductionIdentity::Zero
         : kind == WindowReduction::Max ? ReductionIdentity::Lowest
                                        : ReductionIdentity::Highest;
}

/// `acc` combined with `next` by `kind`; `next` itself when `acc` is null
/// (the first term).
FailureOr<Value> accumulate(PrimitiveEmitter &e, WindowReduction kind, Value acc, Value next) {
  if (!acc)
    return next;
  Type t = acc.getType();
  switch (kind) {
  case WindowReduction::Sum: return e.built(AddOp::create(e.b, e.loc, t, acc, next));
  case WindowReduction::Max: return e.built(MaxOp::create(e.b, e.loc, t, acc, next));
  case WindowReduction::Min: return e.built(MinOp::create(e.b, e.loc, t, acc, next));
  }
  return failure();
}

/// The number of window positions along each dimension of `padded`.
SmallVector<int64_t> outputShape(ArrayRef<int64_t> padded, const Window &w) {
  SmallVector<int64_t> out;
  for (auto [d, n] : llvm::enumerate(padded)) {
    int64_t extent = (w.dims[d] - 1) * w.windowDilation[d] + 1;
    out.push_back(n < extent ? 0 : (n - extent) / w.strides[d] + 1);
  }
  return out;
}

/// Calls `fn(offset)` for every offset of the window, row-major.
template <typename Fn> LogicalResult forEachOffset(ArrayRef<int64_t> dims, Fn fn) {
  SmallVector<int64_t> offset(dims.size(), 0);
  while (true) {
    if (failed(fn(ArrayRef<int64_t>(offset))))
      return failure();
    int64_t d = int64_t(dims.size()) - 1;
    for (; d >= 0; --d) {
      if (++offset[d] < dims[d])
        break;
      offset[d] = 0;
    }
    if (d < 0)
      return success();
  }
}

/// The strided slice of `padded` that window offset `offset` reads at every
/// one of the `out` positions.
FailureOr<Value> windowSlice(PrimitiveEmitter &e, Value padded, const Window &w,
                             ArrayRef<int64_t> out, ArrayRef<int64_t> offset) {
  int64_t rank = out.size();
  SmallVector<int64_t> start(rank), limit(rank);
  for (int64_t d = 0; d < rank; ++d) {
    start[d] = offset[d] * w.windowDilation[d];
    limit[d] = start[d] + (out[d] - 1) * w.strides[d] + 1;
  }
  return e.built(SliceOp::create(e.b, e.loc, e.placeholder, padded, start, limit, w.strides));
}

bool hasPadding(const Window &w) {
  return llvm::any_of(w.padding,
                      [](const Padding &p) { return p.low || p.high || p.interior; });
}

/// `operand` padded with the rank-0 `padScalar` as the window says (base
/// dilation as interior padding); itself if the window does not pad.
FailureOr<Value> padForWindow(PrimitiveEmitter &e, Value operand, Value padScalar,
                              const Window &w) {
  if (!hasPadding(w))
    return operand;
  return padTensor(e, operand, padScalar, w.padding, e.eqn.primitiveLoc);
}

/// The same with `value` of the operand's element type.
FailureOr<Value> padForWindow(PrimitiveEmitter &e, Value operand, ReductionIdentity value,
                              const Window &w) {
  if (!hasPadding(w))
    return operand;
  Type element = cast<RankedTensorType>(operand.getType()).getElementType();
  return padForWindow(e, operand, scalarOf(e, element, value), w);
}

int64_t offsetCount(const Window &w) {
  int64_t count = 1;
  for (int64_t d : w.dims)
    count = d > kMaxWindowOffsets ? kMaxWindowOffsets + 1
                                  : std::min(count * d, kMaxWindowOffsets + 1);
  return count;
}

/// reduce_window_{sum,max,min}[window_dimensions window_strides padding
/// base_dilation window_dilation] x.
template <WindowReduction kind> EmitResult emitReduceWindow(PrimitiveEmitter &e) {
  EmitResult x = e.operands(1, 1);
  if (failed(x))
    return failure();
  Value operand = (*x)[0];
  auto type = cast<RankedTensorType>(operand.getType());
  FailureOr<Window> w = windowParams(e, type.getRank());
  if (failed(w))
    return failure();
  FailureOr<Value> padded = padForWindow(e, operand, identityOf(kind), *w);
  if (failed(padded))
    return failure();
  auto paddedType = cast<RankedTensorType>(padded->getType());
  SmallVector<int64_t> out = outputShape(paddedType.getShape(), *w);
  if (llvm::is_contained(out, 0))
    return e.finish(BroadcastInDimOp::create(
        e.b, e.loc, scalarOf(e, type.getElementType(), identityOf(kind)), out,
        ArrayRef<int64_t>{}));

  bool tiles = llvm::all_of(llvm::seq<int64_t>(0, type.getRank()), [&](int64_t d) {
    return w->strides[d] == w->dims[d] && w->windowDilation[d] == 1;
  });
  if (tiles) {
    // [.., out*k, ..] -> [.., out, k, ..], reduced over the k axes.
    SmallVector<int64_t> start(type.getRank(), 0), limit, step(type.getRank(), 1), split, axes;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      limit.push_back(out[d] * w->dims[d]);
      split.append({out[d], w->dims[d]});
      axes.push_back(2 * d + 1);
    }
    FailureOr<Value> whole =
        e.built(SliceOp::create(e.b, e.loc, e.placeholder, *padded, start, limit, step));
    if (failed(whole))
      return failure();
    FailureOr<Value> windows = e.built(ReshapeOp::create(
        e.b, e.loc, RankedTensorType::get(split, type.getElementType()), *whole));
    if (failed(windows))
      return failure();
    switch (kind) {
    case WindowReduction::Sum:
      return e.finish(ReduceSumOp::create(e.b, e.loc, e.placeholder, *windows, axes));
    case WindowReduction::Max:
      return e.finish(ReduceMaxOp::create(e.b, e.loc, e.placeholder, *windows, axes));
    case WindowReduction::Min:
      return e.finish(ReduceMinOp::create(e.b, e.loc, e.placeholder, *windows, axes));
    }
  }

  if (offsetCount(*w) > kMaxWindowOffsets)
    return e.builder.emitError(e.eqn.primitiveLoc)
           << "'" << e.primitive() << "' with a window of more than " << kMaxWindowOffsets
           << " elements that does not tile its operand (strides equal to the window, no "
              "dilation) is not supported";
  Value acc;
  LogicalResult built = forEachOffset(w->dims, [&](ArrayRef<int64_t> offset) -> LogicalResult {
    FailureOr<Value> slice = windowSlice(e, *padded, *w, out, offset);
    if (failed(slice))
      return failure();
    FailureOr<Value> next = accumulate(e, kind, acc, *slice);
    if (failed(next))
      return failure();
    acc = *next;
    return success();
  });
  if (failed(built))
    return failure();
  return SmallVector<Value>{acc};
}

/// The direction of a select_prim parameter (ge, gt, le, lt); a located
/// error otherwise.
FailureOr<ComparisonDirection> selectDirection(PrimitiveEmitter &e) {
  const Param *select = e.builder.requireParam(e.eqn, "select_prim");
  if (!select)
    return failure();
  std::optional<ComparisonDirection> direction =
      llvm::StringSwitch<std::optional<ComparisonDirection>>(select->value.text)
          .Case("ge", ComparisonDirection::GE)
          .Case("gt", ComparisonDirection::GT)
          .Case("le", ComparisonDirection::LE)
          .Case("lt", ComparisonDirection::LT)
          .Default(std::nullopt);
  if (!direction)
    return e.builder.emitError(select->value.loc)
           << "'" << e.primitive() << "': select_prim must be ge, gt, le or lt, got '"
           << select->value.spelling << "'";
  return *direction;
}

/// Whether `direction` selects toward the highest value (ge, gt).
bool selectsHigh(ComparisonDirection direction) {
  return direction == ComparisonDirection::GE || direction == ComparisonDirection::GT;
}

/// XLA's selection in every window, step by step, as its reducer
/// `select(k(acc), k(e)) ? acc : e` runs over the window in row-major order:
/// `selected` (the operand's value) and `carried` (what travels with it:
/// `carriedAt(offset)`) start as given, or as the first offset's when null,
/// and the element at each next offset replaces them where
/// `direction`(selected, element) is false (ge: the first maximum stays; NaN
/// compares false, as in XLA).
LogicalResult
selectInWindows(PrimitiveEmitter &e, ComparisonDirection direction, Value padded,
                const Window &w, ArrayRef<int64_t> out,
                llvm::function_ref<FailureOr<Value>(ArrayRef<int64_t>)> carriedAt,
                Value &selected, Value &carried) {
  auto predType = RankedTensorType::get(out, e.b.getI1Type());
  return forEachOffset(w.dims, [&](ArrayRef<int64_t> offset) -> LogicalResult {
    FailureOr<Value> slice = windowSlice(e, padded, w, out, offset);
    FailureOr<Value> here = carriedAt(offset);
    if (failed(slice) || failed(here))
      return failure();
    if (!selected) {
      selected = *slice;
      carried = *here;
      return success();
    }
    FailureOr<Value> keep =
        e.built(CompareOp::create(e.b, e.loc, predType, direction, selected, *slice));
    if (failed(keep))
      return failure();
    FailureOr<Value> value = e.built(
        SelectNOp::create(e.b, e.loc, e.placeholder, *keep, ValueRange{*slice, selected}));
    FailureOr<Value> next = e.built(
        SelectNOp::create(e.b, e.loc, e.placeholder, *keep, ValueRange{*here, carried}));
    if (failed(value) || failed(next))
      return failure();
    selected = *value;
    carried = *next;
    return success();
  });
}

/// select_and_scatter_add[select_prim window_dimensions window_strides
/// padding] source operand.
EmitResult emitSelectAndScatterAdd(PrimitiveEmitter &e) {
  EmitResult x = e.operands(2, 2);
  if (failed(x))
    return failure();
  Value source = (*x)[0], operand = (*x)[1];
  auto type = cast<RankedTensorType>(operand.getType());
  auto sourceType = cast<RankedTensorType>(source.getType());
  Type element = type.getElementType();
  FailureOr<Window> w = windowParams(e, type.getRank());
  if (failed(w))
    return failure();
  FailureOr<ComparisonDirection> direction = selectDirection(e);
  if (failed(direction))
    return failure();
  if (llvm::any_of(w->baseDilation, [](int64_t v) { return v != 1; }) ||
      llvm::any_of(w->windowDilation, [](int64_t v) { return v != 1; }))
    return e.builder.emitError(e.eqn.primitiveLoc)
           << "'select_and_scatter_add' with dilation is not supported";
  // Padding is never selected: it is the value every select passes over.
  FailureOr<Value> padded = padForWindow(
      e, operand, selectsHigh(*direction) ? ReductionIdentity::Lowest : ReductionIdentity::Highest,
      *w);
  if (failed(padded))
    return failure();
  auto paddedType = cast<RankedTensorType>(padded->getType());
  SmallVector<int64_t> out = outputShape(paddedType.getShape(), *w);
  if (ArrayRef<int64_t>(out) != sourceType.getShape())
    return e.builder.emitError(e.eqn.primitiveLoc)
           << "'select_and_scatter_add': the source has shape " << sourceType
           << " but the operand's windows " << RankedTensorType::get(out, element);
  if (offsetCount(*w) > kMaxWindowOffsets)
    return e.builder.emitError(e.eqn.primitiveLoc)
           << "'select_and_scatter_add' with a window of more than " << kMaxWindowOffsets
           << " elements is not supported";
  Value zero = scalarOf(e, sourceType.getElementType(), ReductionIdentity::Zero);
  if (llvm::is_contained(out, 0))
    return e.finish(BroadcastInDimOp::create(e.b, e.loc, zero, type.getShape(),
                                             ArrayRef<int64_t>{}));

  // The selection: the value selected so far and its offset's number.
  auto indexType = RankedTensorType::get(out, e.b.getI32Type());
  auto predType = RankedTensorType::get(out, e.b.getI1Type());
  Value selected, which;
  int32_t number = 0;
  LogicalResult scanned = selectInWindows(
      e, *direction, *padded, *w, out,
      [&](ArrayRef<int64_t>) -> FailureOr<Value> {
        return ConstantOp::create(e.b, e.loc, indexType, double(number++)).getResult();
      },
      selected, which);
  if (failed(scanned))
    return failure();

  // The scatter: per offset, the source values selected there, placed.
  Value zeros = ConstantOp::create(e.b, e.loc, sourceType, 0.0);
  Value sum;
  number = 0;
  LogicalResult placed = forEachOffset(w->dims, [&](ArrayRef<int64_t> offset) -> LogicalResult {
    Value here = ConstantOp::create(e.b, e.loc, indexType, double(number++));
    FailureOr<Value> mine = e.built(
        CompareOp::create(e.b, e.loc, predType, ComparisonDirection::EQ, which, here));
    if (failed(mine))
      return failure();
    FailureOr<Value> values = e.built(
        SelectNOp::create(e.b, e.loc, e.placeholder, *mine, ValueRange{zeros, source}));
    if (failed(values))
      return failure();
    SmallVector<Padding> place;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      int64_t last = offset[d] + (out[d] - 1) * w->strides[d];
      place.push_back({offset[d], paddedType.getDimSize(d) - 1 - last, w->strides[d] - 1});
    }
    FailureOr<Value> spread = padTensor(e, *values, zero, place, e.eqn.primitiveLoc);
    if (failed(spread))
      return failure();
    FailureOr<Value> next = accumulate(e, WindowReduction::Sum, sum, *spread);
    if (failed(next))
      return failure();
    sum = *next;
    return success();
  });
  if (failed(placed))
    return failure();
  if (!hasPadding(*w))
    return SmallVector<Value>{sum};
  SmallVector<int64_t> start, limit, step(type.getRank(), 1);
  for (int64_t d = 0; d < type.getRank(); ++d) {
    start.push_back(w->padding[d].low);
    limit.push_back(paddedType.getDimSize(d) - w->padding[d].high);
  }
  return e.finish(SliceOp::create(e.b, e.loc, e.placeholder, sum, start, limit, step));
}

/// select_and_gather_add[select_prim window_dimensions window_strides padding
/// base_dilation window_dilation] tangents operand: in each window, the
/// tangent where the operand's selected element is (forward-mode derivatives
/// of max and min pooling). JAX lowers it to a reduce_window over (operand,
/// tangent) pairs from (-inf or +inf, 0), padding included, which this
/// follows step by step: a window whose every element compares like the
/// start (all -inf under ge) gives 0. For f64 JAX's CPU lowering rounds both
/// to 20 mantissa bits (it packs the pair into one 64-bit word); Kiln keeps
/// them exact.
EmitResult emitSelectAndGatherAdd(PrimitiveEmitter &e) {
  EmitResult x = e.operands(2, 2);
  if (failed(x))
    return failure();
  Value tangents = (*x)[0], operand = (*x)[1];
  auto type = cast<RankedTensorType>(operand.getType());
  if (cast<RankedTensorType>(tangents.getType()) != type)
    return e.builder.emitError(e.eqn.primitiveLoc)
           << "'select_and_gather_add': the tangents ("
           << JaxprBuilder::formatType(tangents.getType()) << ") and the operand ("
           << JaxprBuilder::formatType(type) << ") must have one type";
  if (!isa<FloatType>(type.getElementType()))
    return e.builder.emitError(e.eqn.primitiveLoc)
           << "'select_and_gather_add' takes floats, got " << JaxprBuilder::formatType(type);
  FailureOr<Window> w = windowParams(e, type.getRank());
  if (failed(w))
    return failure();
  FailureOr<ComparisonDirection> direction = selectDirection(e);
  if (failed(direction))
    return failure();
  ReductionIdentity start =
      selectsHigh(*direction) ? ReductionIdentity::Lowest : ReductionIdentity::Highest;
  FailureOr<Value> padded = padForWindow(e, operand, start, *w);
  if (failed(padded))
    return failure();
  FailureOr<Value> paddedTangents = padForWindow(e, tangents, ReductionIdentity::Zero, *w);
  if (failed(paddedTangents))
    return failure();
  SmallVector<int64_t> out =
      outputShape(cast<RankedTensorType>(padded->getType()).getShape(), *w);
  auto outType = RankedTensorType::get(out, type.getElementType());
  Value selected = reductionIdentity(e, start, outType);
  Value carried = reductionIdentity(e, ReductionIdentity::Zero, outType);
  if (llvm::is_contained(out, 0))
    return SmallVector<Value>{carried};
  if (offsetCount(*w) > kMaxWindowOffsets)
    return e.builder.emitError(e.eqn.primitiveLoc)
           << "'select_and_gather_add' with a window of more than " << kMaxWindowOffsets
           << " elements is not supported";
  LogicalResult scanned = selectInWindows(
      e, *direction, *padded, *w, out,
      [&](ArrayRef<int64_t> offset) { return windowSlice(e, *paddedTangents, *w, out, offset); },
      selected, carried);
  if (failed(scanned))
    return failure();
  return SmallVector<Value>{carried};
}

/// reduce_window[jaxpr consts window_dimensions window_strides padding
/// base_dilation window_dilation] operands... init_values...: the generic
/// form, whose reducer is a jaxpr on scalars (the accumulators, then the
/// elements). As XLA:CPU evaluates it: every output position's accumulators
/// start as the init values and take the window's elements one offset at a
/// time, row-major (acc = body(acc, element)), padding skipped; applied to
/// all positions at once.
EmitResult emitGenericReduceWindow(PrimitiveEmitter &e) {
  FailureOr<ReducerOperands> x = reducerOperands(e);
  FailureOr<const Jaxpr *> body = e.builder.jaxprParam(e.eqn, {"jaxpr"});
  if (failed(x) || failed(body))
    return failure();
  if (!(*body)->constvars.empty())
    return e.builder.emitError(e.eqn.primitiveLoc)
           << "'reduce_window' with a reducer that captures constants is not supported";
  size_t n = x->operands.size();
  ArrayRef<Value> operands = x->operands, inits = x->inits;
  auto type = cast<RankedTensorType>(operands.front().getType());
  FailureOr<Window> w = windowParams(e, type.getRank());
  if (failed(w))
    return failure();
  SmallVector<Value> padded;
  for (size_t i = 0; i < n; ++i) {
    FailureOr<Value> p = padForWindow(e, operands[i], inits[i], *w);
    if (failed(p))
      return failure();
    padded.push_back(*p);
  }
  SmallVector<int64_t> out =
      outputShape(cast<RankedTensorType>(padded.front().getType()).getShape(), *w);
  SmallVector<Value> acc;
  for (Value init : inits)
    acc.push_back(BroadcastInDimOp::create(e.b, e.loc, init, out, ArrayRef<int64_t>{}));
  if (llvm::is_contained(out, 0))
    return acc;
  if (offsetCount(*w) > kMaxWindowOffsets)
    return e.builder.emitError(e.eqn.primitiveLoc)
           << "'reduce_window' with a reducer jaxpr and a window of more than "
           << kMaxWindowOffsets << " elements is not supported";
  // XLA:CPU skips the padding rather than reducing its init values (which
  // matters when the init is not the reducer's identity): where an
  // offset reads padding, the accumulators stay.
  Value real;
  if (hasPadding(*w)) {
    auto predType = RankedTensorType::get(type.getShape(), e.b.getI1Type());
    Value truths = ConstantOp::create(e.b, e.loc, predType, 1.0);
    Value falseScalar = ConstantOp::create(e.b, e.loc, predType.clone(ArrayRef<int64_t>{}), 0.0);
    FailureOr<Value> mask = padTensor(e, truths, falseScalar, w->padding, e.eqn.primitiveLoc);
    if (failed(mask))
      return failure();
    real = *mask;
  }
  LogicalResult built = forEachOffset(w->dims, [&](ArrayRef<int64_t> offset) -> LogicalResult {
    SmallVector<Value> args(acc);
    for (Value p : padded) {
      FailureOr<Value> slice = windowSlice(e, p, *w, out, offset);
      if (failed(slice))
        return failure();
      args.push_back(*slice);
    }
    FailureOr<SmallVector<Value>> next = e.builder.applyElementwise(**body, args);
    if (failed(next))
      return failure();
    if (next->size() != n)
      return e.builder.emitError((*body)->outsLoc)
             << "the reducer of 'reduce_window' returns " << next->size() << " values for "
             << n << " operands";
    if (real) {
      FailureOr<Value> here = windowSlice(e, real, *w, out, offset);
      if (failed(here))
        return failure();
      for (auto [a, v] : llvm::zip(acc, *next)) {
        FailureOr<Value> kept =
            e.built(SelectNOp::create(e.b, e.loc, e.placeholder, *here, ValueRange{a, v}));
        if (failed(kept))
          return failure();
        v = *kept;
      }
    }
    acc = *next;
    return success();
  });
  if (failed(built))
    return failure();
  return acc;
}

} // namespace

void kiln::jaxpr::registerWindowPrimitives(PrimitiveTable &table) {
  addPrimitives(table, {
      {"reduce_window_sum", emitReduceWindow<WindowReduction::Sum>},
      {"reduce_window_max", emitReduceWindow<WindowReduction::Max>},
      {"reduce_window_min", emitReduceWindow<WindowReduction::Min>},
      {"select_and_scatter_add", emitSelectAndScatterAdd},
      {"select_and_gather_add", emitSelectAndGatherAdd},
      {"reduce_window", emitGenericReduceWindow},
  });
}
