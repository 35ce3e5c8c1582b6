//===- JaxprSort.cpp - sort and top_k -------------------------------------===//
//
// sort[dimension is_stable num_keys] and top_k[k axis] import one op each
// (approx_top_k, computed exactly, one or three):
// lax.sort (stable whatever is_stable says: a stable order is one of the
// orders an unstable sort may return) and lax.top_k. How they sort is the
// lowering's choice (lowering/ExpandSort.cpp, LaxToLinalgSort.cpp).
//
//===----------------------------------------------------------------------===//
#include "importer/JaxprPrimitives.h"

#include "dialect/LaxIndexingOps.h"

using namespace mlir;
using namespace kiln::jaxpr;
using namespace kiln::lax;
using llvm::SmallVector;

namespace {

/// `axis` (negative: from the end) as a dimension of `type`, or a located
/// error.
FailureOr<int64_t> axisOf(PrimitiveEmitter &e, RankedTensorType type, int64_t axis) {
  if (axis < 0)
    axis += type.getRank();
  if (axis < 0 || axis >= type.getRank())
    return e.builder.emitError(e.eqn.primitiveLoc)
           << "'" << e.primitive() << "' axis out of range for rank " << type.getRank();
  return axis;
}

/// sort[dimension is_stable num_keys] operands...: every operand permuted by
/// the order of the first num_keys (ties in input order).
EmitResult emitSort(PrimitiveEmitter &e) {
  EmitResult operands = e.operands(1, 64);
  FailureOr<int64_t> dimension = e.builder.intParam(e.eqn, "dimension");
  FailureOr<int64_t> numKeys = e.builder.intParam(e.eqn, "num_keys", 1);
  if (failed(operands) || failed(dimension) || failed(numKeys))
    return failure();
  auto type = cast<RankedTensorType>((*operands)[0].getType());
  for (Value v : *operands)
    if (cast<RankedTensorType>(v.getType()).getShape() != type.getShape())
      return e.builder.emitError(e.eqn.primitiveLoc) << "'sort' operands must have one shape";
  if (*numKeys < 1 || *numKeys > int64_t(operands->size()))
    return e.builder.emitError(e.eqn.primitiveLoc)
           << "'sort' num_keys must be between 1 and the number of operands";
  FailureOr<int64_t> axis = axisOf(e, type, *dimension);
  if (failed(axis))
    return failure();
  return e.finish(SortOp::create(e.b, e.loc, *operands, *axis, *numKeys));
}

/// top_k[k axis] operand: the k largest along `axis` (default: the last),
/// largest first, and their indices (i32).
EmitResult emitTopK(PrimitiveEmitter &e) {
  EmitResult operands = e.operands(1, 1);
  FailureOr<int64_t> k = e.builder.intParam(e.eqn, "k");
  if (failed(operands) || failed(k))
    return failure();
  auto type = cast<RankedTensorType>((*operands)[0].getType());
  FailureOr<int64_t> axisParam = e.builder.intParam(e.eqn, "axis", type.getRank() - 1);
  if (failed(axisParam))
    return failure();
  FailureOr<int64_t> axis = axisOf(e, type, *axisParam);
  if (failed(axis))
    return failure();
  if (*k < 0 || *k > type.getDimSize(*axis))
    return e.builder.emitError(e.eqn.primitiveLoc)
           << "'top_k' k = " << *k << " is not within the axis's " << type.getDimSize(*axis)
           << " elements";
  return e.finish(TopKOp::create(e.b, e.loc, (*operands)[0], *k, *axis));
}

/// approx_top_k[k reduction_dimension is_max_k aggregate_to_topk ...]
/// operand: XLA:CPU computes it exactly (it sorts), and so does Kiln: the k
/// largest as top_k, the k smallest as the first k of a stable ascending
/// sort of (operand, its indices) along the reduction axis -- the order
/// jax.jit returns where no NaN breaks its comparisons
/// (tests/python/test_sort.py). recall_target and
/// reduction_input_size_override only tune an approximation; without
/// aggregate_to_topk the result is a TPU-shaped partial one, refused.
EmitResult emitApproxTopK(PrimitiveEmitter &e) {
  EmitResult operands = e.operands(1, 1);
  FailureOr<int64_t> k = e.builder.intParam(e.eqn, "k");
  FailureOr<bool> isMax = e.builder.boolParam(e.eqn, "is_max_k", true);
  FailureOr<bool> aggregate = e.builder.boolParam(e.eqn, "aggregate_to_topk", true);
  if (failed(operands) || failed(k) || failed(isMax) || failed(aggregate))
    return failure();
  Value x = (*operands)[0];
  auto type = cast<RankedTensorType>(x.getType());
  FailureOr<int64_t> dimension = e.builder.intParam(e.eqn, "reduction_dimension", -1);
  if (failed(dimension))
    return failure();
  FailureOr<int64_t> axis = axisOf(e, type, *dimension);
  if (failed(axis))
    return failure();
  if (!*aggregate)
    return e.builder.emitError(e.eqn.primitiveLoc)
           << "'approx_top_k' with aggregate_to_topk=False (a partial result of "
              "reduction_input_size_override elements) is not supported; Kiln computes the "
              "exact top k (aggregate_to_topk=True)";
  if (*k < 0 || *k > type.getDimSize(*axis))
    return e.builder.emitError(e.eqn.primitiveLoc)
           << "'approx_top_k' k = " << *k << " is not within the axis's "
           << type.getDimSize(*axis) << " elements";
  if (*isMax)
    return e.finish(TopKOp::create(e.b, e.loc, x, *k, *axis));
  // Along any axis, NaNs last (lax.sort's total order). XLA:CPU's fallback
  // sorts with `<`, which a NaN breaks: with NaNs in a row jax.jit may
  // return values that are not the k smallest ([nan, 5, 4, 1, -1, nan]:
  // nan, -1, 1; [3, nan, 1, nan, 2, 0.5]: 0.5, 1, 3), so there the two
  // differ (docs/jax.md); without NaNs they agree.
  Value index = IotaOp::create(e.b, e.loc, type.clone(e.b.getI32Type()), *axis);
  EmitResult sorted = e.finish(SortOp::create(e.b, e.loc, ValueRange{x, index}, *axis, 1));
  if (failed(sorted))
    return failure();
  SmallVector<Value> firstK;
  SmallVector<int64_t> start(type.getRank(), 0), limit(type.getShape()), step(type.getRank(), 1);
  limit[*axis] = *k;
  for (Value v : *sorted) {
    FailureOr<Value> head =
        e.built(SliceOp::create(e.b, e.loc, e.placeholder, v, start, limit, step));
    if (failed(head))
      return failure();
    firstK.push_back(*head);
  }
  return firstK;
}

} // namespace

void kiln::jaxpr::registerSortPrimitives(PrimitiveTable &table) {
  addPrimitives(table,
                {{"sort", emitSort}, {"top_k", emitTopK}, {"approx_top_k", emitApproxTopK}});
}
