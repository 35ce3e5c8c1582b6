//===- JaxprShapeOps.cpp - structural primitives --------------------------===//
//
// Ops that move, select or retype elements: transpose, broadcast_in_dim,
// reshape, squeeze, expand_dims, rev, slices, concatenate, iota and
// convert_element_type; split, stack and pad built from them.
//
//===----------------------------------------------------------------------===//
#include "importer/JaxprPrimitives.h"

#include "dialect/LaxOps.h"

using namespace mlir;
using namespace kiln::jaxpr;
using namespace kiln::lax;
using llvm::SmallVector;

namespace {

using IntList = FailureOr<SmallVector<int64_t>>;

//===--- Layout -------------------------------------------------------------===//

EmitResult emitTranspose(PrimitiveEmitter &e) {
  if (!e.resultIsKey())
    return emitWithAxes<TransposeOp>(e, "permutation");
  // A key array's data has a trailing dimension of 2 the jaxpr does not
  // show (here and below): it stays last.
  EmitResult x = e.operands(1, 1);
  IntList perm = e.builder.intListParam(e.eqn, "permutation");
  if (failed(x) || failed(perm))
    return failure();
  perm->push_back(int64_t(perm->size()));
  return e.finish(TransposeOp::create(e.b, e.loc, e.placeholder, (*x)[0], *perm));
}

/// squeeze and expand_dims: the axes are in `dimensions`.
template <typename OpTy>
EmitResult emitWithDimensions(PrimitiveEmitter &e) {
  return emitWithAxes<OpTy>(e, "dimensions");
}

/// broadcast_in_dim[shape broadcast_dimensions]. Current JAX leaves out the
/// shape (the result's annotation says it) and empty broadcast_dimensions.
EmitResult emitBroadcastInDim(PrimitiveEmitter &e) {
  EmitResult x = e.operands(1, 1);
  if (failed(x))
    return failure();
  IntList shape = failure();
  if (e.eqn.findParam("shape")) {
    shape = e.builder.intListParam(e.eqn, "shape");
  } else if (FailureOr<RankedTensorType> type = e.annotatedResultType();
             succeeded(type)) {
    shape = llvm::to_vector(type->getShape());
  }
  IntList dims =
      e.builder.intListParam(e.eqn, "broadcast_dimensions", SmallVector<int64_t>{});
  if (failed(shape) || failed(dims))
    return failure();
  if (e.resultIsKey()) {
    if (e.eqn.findParam("shape")) // the annotation's shape has the 2 already
      shape->push_back(2);
    dims->push_back(int64_t(shape->size()) - 1);
  }
  return e.finish(
      BroadcastInDimOp::create(e.b, e.loc, e.placeholder, (*x)[0], *shape, *dims));
}

/// reshape[new_sizes dimensions]: `dimensions` permutes the operand before
/// the row-major reshape.
EmitResult emitReshape(PrimitiveEmitter &e) {
  EmitResult x = e.operands(1, 1);
  IntList sizes = e.builder.intListParam(e.eqn, "new_sizes");
  IntList dims = e.builder.intListParam(e.eqn, "dimensions", SmallVector<int64_t>{});
  if (failed(x) || failed(sizes) || failed(dims))
    return failure();
  Value input = (*x)[0];
  if (e.resultIsKey()) {
    sizes->push_back(2);
    if (!dims->empty())
      dims->push_back(int64_t(dims->size()));
  }
  if (!dims->empty()) {
    Operation *t = TransposeOp::create(e.b, e.loc, e.placeholder, input, *dims);
    if (failed(e.builder.finishOp(t)))
      return failure();
    input = t->getResult(0);
  }
  Type element = cast<RankedTensorType>(input.getType()).getElementType();
  return e.finish(
      ReshapeOp::create(e.b, e.loc, RankedTensorType::get(*sizes, element), input));
}

EmitResult emitRev(PrimitiveEmitter &e) {
  EmitResult x = e.operands(1, 1);
  IntList dims = e.builder.intListParam(e.eqn, "dimensions");
  if (failed(x) || failed(dims))
    return failure();
  return e.finish(RevOp::create(e.b, e.loc, (*x)[0].getType(), (*x)[0], *dims));
}

//===--- Slices and concatenation -------------------------------------------===//

/// slice[start_indices limit_indices strides]; strides default to 1.
EmitResult emitSlice(PrimitiveEmitter &e) {
  EmitResult x = e.operands(1, 1);
  IntList start = e.builder.intListParam(e.eqn, "start_indices");
  IntList limit = e.builder.intListParam(e.eqn, "limit_indices");
  if (failed(x) || failed(start) || failed(limit))
    return failure();
  IntList strides = e.builder.intListParam(e.eqn, "strides",
                                           SmallVector<int64_t>(start->size(), 1));
  if (failed(strides))
    return failure();
  // A key array's data has a trailing dimension of 2 the jaxpr does not show.
  if (e.resultIsKey()) {
    start->push_back(0);
    limit->push_back(2);
    strides->push_back(1);
  }
  return e.finish(
      SliceOp::create(e.b, e.loc, e.placeholder, (*x)[0], *start, *limit, *strides));
}

/// dynamic_slice operand index...: the start indices are operands.
EmitResult emitDynamicSlice(PrimitiveEmitter &e) {
  EmitResult x = e.operands(1, SIZE_MAX);
  IntList sizes = e.builder.intListParam(e.eqn, "slice_sizes");
  if (failed(x) || failed(sizes))
    return failure();
  return e.finish(DynamicSliceOp::create(e.b, e.loc, e.placeholder, (*x)[0],
                                         ValueRange(*x).drop_front(), *sizes));
}

/// dynamic_update_slice operand update index...
EmitResult emitDynamicUpdateSlice(PrimitiveEmitter &e) {
  EmitResult x = e.operands(2, SIZE_MAX);
  if (failed(x))
    return failure();
  return e.finish(DynamicUpdateSliceOp::create(e.b, e.loc, e.placeholder, (*x)[0],
                                               (*x)[1], ValueRange(*x).drop_front(2)));
}

EmitResult emitConcatenate(PrimitiveEmitter &e) {
  EmitResult x = e.operands(1, SIZE_MAX);
  FailureOr<int64_t> dim = e.builder.intParam(e.eqn, "dimension");
  if (failed(x) || failed(dim))
    return failure();
  return e.finish(ConcatenateOp::create(e.b, e.loc, e.placeholder, *x, *dim));
}

/// Consecutive slices of `x` along `axis`, of `sizes` each (split,
/// unstack); an axis out of range is `primitive`'s located error.
FailureOr<SmallVector<Value>> slicesAlong(PrimitiveEmitter &e, Value x, int64_t axis,
                                          ArrayRef<int64_t> sizes) {
  auto type = cast<RankedTensorType>(x.getType());
  if (axis < 0 || axis >= type.getRank())
    return e.builder.emitError(e.eqn.primitiveLoc)
           << "axis " << axis << " of '" << e.primitive() << "' is out of range";
  SmallVector<Value> parts;
  SmallVector<int64_t> start(type.getRank(), 0), limit(type.getShape()),
      strides(type.getRank(), 1);
  for (int64_t size : sizes) {
    limit[axis] = start[axis] + size;
    Operation *slice = SliceOp::create(e.b, e.loc, e.placeholder, x, start, limit, strides);
    if (failed(e.builder.finishOp(slice)))
      return failure();
    parts.push_back(slice->getResult(0));
    start[axis] = limit[axis];
  }
  return parts;
}

/// split[sizes axis] x: consecutive slices along `axis`.
EmitResult emitSplit(PrimitiveEmitter &e) {
  EmitResult x = e.operands(1, 1);
  IntList sizes = e.builder.intListParam(e.eqn, "sizes");
  FailureOr<int64_t> axis = e.builder.intParam(e.eqn, "axis");
  if (failed(x) || failed(sizes) || failed(axis))
    return failure();
  return slicesAlong(e, (*x)[0], *axis, *sizes);
}

/// unstack[axis] x: x's slices of size 1 along `axis`, each reshaped without
/// that dimension (the inverse of stack).
EmitResult emitUnstack(PrimitiveEmitter &e) {
  EmitResult x = e.operands(1, 1);
  FailureOr<int64_t> axis = e.builder.intParam(e.eqn, "axis");
  if (failed(x) || failed(axis))
    return failure();
  auto type = cast<RankedTensorType>((*x)[0].getType());
  int64_t count = *axis >= 0 && *axis < type.getRank() ? type.getDimSize(*axis) : 0;
  FailureOr<SmallVector<Value>> parts =
      slicesAlong(e, (*x)[0], *axis, SmallVector<int64_t>(count, 1));
  if (failed(parts))
    return failure();
  SmallVector<int64_t> shape(type.getShape());
  shape.erase(shape.begin() + *axis);
  auto partType = RankedTensorType::get(shape, type.getElementType());
  for (Value &part : *parts) {
    FailureOr<Value> reshaped = e.built(ReshapeOp::create(e.b, e.loc, partType, part));
    if (failed(reshaped))
      return failure();
    part = *reshaped;
  }
  return *parts;
}

/// stack[axis] xs...: each operand gets a new dimension of size 1 at `axis`,
/// then they are concatenated along it.
EmitResult emitStack(PrimitiveEmitter &e) {
  EmitResult x = e.operands(1, SIZE_MAX);
  FailureOr<int64_t> axis = e.builder.intParam(e.eqn, "axis");
  if (failed(x) || failed(axis))
    return failure();
  SmallVector<Value> expanded;
  for (Value v : *x) {
    Operation *op = ExpandDimsOp::create(e.b, e.loc, e.placeholder, v,
                                         SmallVector<int64_t>{*axis});
    if (failed(e.builder.finishOp(op)))
      return failure();
    expanded.push_back(op->getResult(0));
  }
  return e.finish(ConcatenateOp::create(e.b, e.loc, e.placeholder, expanded, *axis));
}

} // namespace

FailureOr<Value> kiln::jaxpr::padTensor(PrimitiveEmitter &e, Value operand, Value padScalar,
                                        ArrayRef<Padding> padding, llvm::SMLoc where) {
  /// `value` broadcast to `like` with dimension `dim` of size `size`.
  auto block = [&](Value like, int64_t dim, int64_t size) {
    auto t = cast<RankedTensorType>(like.getType());
    SmallVector<int64_t> shape(t.getShape());
    shape[dim] = size;
    return e.built(BroadcastInDimOp::create(e.b, e.loc, padScalar, shape, ArrayRef<int64_t>{}));
  };
  Value v = operand;
  for (auto [dim, pad] : llvm::enumerate(padding)) {
    int64_t lo = pad.low, hi = pad.high, interior = pad.interior;
    int64_t d = dim;
    auto t = cast<RankedTensorType>(v.getType());
    int64_t n = t.getDimSize(d);
    if (interior > 0 && n > 1) {
      // [.., n, ..] -> [.., n, 1 + interior, ..] -> [.., n * (1 + interior), ..]
      // -> the first n + (n - 1) * interior.
      FailureOr<Value> column =
          e.built(ExpandDimsOp::create(e.b, e.loc, e.placeholder, v, SmallVector<int64_t>{d + 1}));
      if (failed(column))
        return failure();
      FailureOr<Value> fill = block(*column, d + 1, interior);
      if (failed(fill))
        return failure();
      FailureOr<Value> rows = e.built(ConcatenateOp::create(
          e.b, e.loc, e.placeholder, ValueRange{*column, *fill}, d + 1));
      if (failed(rows))
        return failure();
      SmallVector<int64_t> flat(t.getShape());
      flat[d] = n * (1 + interior);
      FailureOr<Value> merged = e.built(ReshapeOp::create(
          e.b, e.loc, RankedTensorType::get(flat, t.getElementType()), *rows));
      if (failed(merged))
        return failure();
      SmallVector<int64_t> start(t.getRank(), 0), limit(flat), strides(t.getRank(), 1);
      limit[d] = n + (n - 1) * interior;
      FailureOr<Value> sliced =
          e.built(SliceOp::create(e.b, e.loc, e.placeholder, *merged, start, limit, strides));
      if (failed(sliced))
        return failure();
      v = *sliced;
      t = cast<RankedTensorType>(v.getType());
      n = t.getDimSize(d);
    }
    // Negative padding removes elements: slice first.
    if (lo < 0 || hi < 0) {
      SmallVector<int64_t> start(t.getRank(), 0), limit(t.getShape()), strides(t.getRank(), 1);
      start[d] = lo < 0 ? -lo : 0;
      limit[d] = hi < 0 ? n + hi : n;
      if (start[d] > limit[d])
        return e.builder.emitError(where) << "negative padding removes more than dimension "
                                              << d << " holds";
      FailureOr<Value> sliced =
          e.built(SliceOp::create(e.b, e.loc, e.placeholder, v, start, limit, strides));
      if (failed(sliced))
        return failure();
      v = *sliced;
    }
    SmallVector<Value> pieces;
    if (lo > 0) {
      FailureOr<Value> before = block(v, d, lo);
      if (failed(before))
        return failure();
      pieces.push_back(*before);
    }
    pieces.push_back(v);
    if (hi > 0) {
      FailureOr<Value> after = block(v, d, hi);
      if (failed(after))
        return failure();
      pieces.push_back(*after);
    }
    if (pieces.size() > 1) {
      FailureOr<Value> joined =
          e.built(ConcatenateOp::create(e.b, e.loc, e.placeholder, pieces, d));
      if (failed(joined))
        return failure();
      v = *joined;
    }
  }
  return v;
}

namespace {

/// pad[padding_config=((lo, hi, interior), ...)] x value (padTensor).
EmitResult emitPad(PrimitiveEmitter &e) {
  if (failed(e.checkArity(2, 2)))
    return failure();
  FailureOr<Value> operand = e.builder.operand(e.eqn.ins[0], e.scope);
  if (failed(operand))
    return failure();
  auto type = cast<RankedTensorType>(operand->getType());
  FailureOr<Value> padValue =
      e.builder.operand(e.eqn.ins[1], e.scope, RankedTensorType::get({}, type.getElementType()));
  const Param *config = e.builder.requireParam(e.eqn, "padding_config");
  if (failed(padValue) || !config)
    return failure();
  if (config->value.items.size() != size_t(type.getRank()))
    return e.builder.emitError(config->value.loc)
           << "'padding_config' has " << config->value.items.size()
           << " entries for an operand of rank " << type.getRank();
  SmallVector<Padding> padding;
  for (const ParamValue &entry : config->value.items) {
    FailureOr<SmallVector<int64_t>> lhi = e.builder.intList(entry, "a 'padding_config' entry");
    if (failed(lhi))
      return failure();
    if (lhi->size() != 3 || (*lhi)[2] < 0)
      return e.builder.emitError(entry.loc)
             << "a 'padding_config' entry must be (low, high, interior) with interior >= 0";
    padding.push_back({(*lhi)[0], (*lhi)[1], (*lhi)[2]});
  }
  FailureOr<Value> padded = padTensor(e, *operand, *padValue, padding, config->value.loc);
  if (failed(padded))
    return failure();
  return SmallVector<Value>{*padded};
}

//===--- New values and types -----------------------------------------------===//

EmitResult emitIota(PrimitiveEmitter &e) {
  EmitResult x = e.operands(0, 0);
  FailureOr<Type> dtype = e.builder.dtypeParam(e.eqn, "dtype", /*optional=*/false);
  IntList shape = e.builder.intListParam(e.eqn, "shape");
  FailureOr<int64_t> dim = e.builder.intParam(e.eqn, "dimension", 0);
  if (failed(x) || failed(dtype) || failed(shape) || failed(dim))
    return failure();
  return e.finish(
      IotaOp::create(e.b, e.loc, RankedTensorType::get(*shape, *dtype), *dim));
}

/// empty2[dtype memory_space]: a rank-0 array whose contents are
/// unspecified (JAX's zeros for an unused cotangent); JAX lowers it to a
/// zero constant, and so does Kiln, so results agree bit for bit.
EmitResult emitEmpty(PrimitiveEmitter &e) {
  EmitResult x = e.operands(0, 0);
  FailureOr<Type> dtype = e.builder.dtypeParam(e.eqn, "dtype", /*optional=*/false);
  if (failed(x) || failed(dtype))
    return failure();
  return e.finish(ConstantOp::create(e.b, e.loc, RankedTensorType::get({}, *dtype), 0.0));
}

EmitResult emitConvertElementType(PrimitiveEmitter &e) {
  EmitResult x = e.operands(1, 1);
  FailureOr<Type> dtype =
      e.builder.dtypeParam(e.eqn, "new_dtype", /*optional=*/false);
  if (failed(x) || failed(dtype))
    return failure();
  auto type = cast<RankedTensorType>((*x)[0].getType());
  return e.finish(ConvertElementTypeOp::create(
      e.b, e.loc, RankedTensorType::get(type.getShape(), *dtype), (*x)[0]));
}

} // namespace

void kiln::jaxpr::registerShapePrimitives(PrimitiveTable &table) {
  addPrimitives(table, {
      {"transpose", emitTranspose},
      {"squeeze", emitWithDimensions<SqueezeOp>},
      {"expand_dims", emitWithDimensions<ExpandDimsOp>},
      {"broadcast_in_dim", emitBroadcastInDim},
      {"reshape", emitReshape},
      {"rev", emitRev},
      {"slice", emitSlice},
      {"dynamic_slice", emitDynamicSlice},
      {"dynamic_update_slice", emitDynamicUpdateSlice},
      {"concatenate", emitConcatenate},
      {"split", emitSplit},
      {"stack", emitStack},
      {"unstack", emitUnstack},
      {"pad", emitPad},
      {"iota", emitIota},
      {"empty2", emitEmpty},
      {"convert_element_type", emitConvertElementType},
  });
}
