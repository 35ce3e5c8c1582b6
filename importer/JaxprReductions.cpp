//===- JaxprReductions.cpp - reduction primitives -------------------------===//
//
// reduce_sum/max/min/prod over `axes`, argmax/argmin, the logical reductions
// reduce_and/or, equinox's unvmap_any/max, the cumulative reductions
// (cumsum, cumprod, cummax, cummin, cumlogsumexp) as scans, and the generic
// reduce whose reducer is a jaxpr.
//
//===----------------------------------------------------------------------===//
#include "importer/JaxprPrimitives.h"

#include "dialect/LaxOps.h"

#include "llvm/ADT/SmallBitVector.h"

#include <cmath>

using namespace mlir;
using namespace kiln::jaxpr;
using namespace kiln::lax;
using llvm::SmallVector;

namespace {

template <typename OpTy>
EmitResult emitReduce(PrimitiveEmitter &e) {
  return emitWithAxes<OpTy>(e, "axes");
}

/// argmax/argmin[axes index_dtype]: the result drops the reduced axis and has
/// the index dtype; the verifier checks the axes.
template <typename OpTy>
EmitResult emitArgReduce(PrimitiveEmitter &e) {
  EmitResult x = e.operands(1, 1);
  FailureOr<SmallVector<int64_t>> axes = e.builder.intListParam(e.eqn, "axes");
  FailureOr<Type> indexType =
      e.builder.dtypeParam(e.eqn, "index_dtype", /*optional=*/false);
  if (failed(x) || failed(axes) || failed(indexType))
    return failure();
  auto type = cast<RankedTensorType>((*x)[0].getType());
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < type.getRank(); ++i)
    if (!llvm::is_contained(*axes, i))
      shape.push_back(type.getDimSize(i));
  auto resultType = RankedTensorType::get(shape, *indexType);
  Value operand = (*x)[0];
  // A bool array as i8 (false < true either way): the op takes numbers.
  if (type.getElementType().isInteger(1))
    operand = ConvertElementTypeOp::create(e.b, e.loc, type.clone(e.b.getI8Type()), operand);
  return e.finish(OpTy::create(e.b, e.loc, resultType, operand, *axes));
}

/// `x` (bool) reduced over `axes` by and/or: as i32, a min/max, then != 0.
FailureOr<Value> reduceBool(PrimitiveEmitter &e, Value x, ArrayRef<int64_t> axes,
                            bool isAnd) {
  auto type = cast<RankedTensorType>(x.getType());
  Value wide = ConvertElementTypeOp::create(e.b, e.loc, type.clone(e.b.getI32Type()), x);
  FailureOr<Value> reduced =
      isAnd ? e.built(ReduceMinOp::create(e.b, e.loc, e.placeholder, wide, axes))
            : e.built(ReduceMaxOp::create(e.b, e.loc, e.placeholder, wide, axes));
  if (failed(reduced))
    return failure();
  auto reducedType = cast<RankedTensorType>(reduced->getType());
  return e.built(ConvertElementTypeOp::create(e.b, e.loc, reducedType.clone(e.b.getI1Type()),
                                               *reduced));
}

/// reduce_and/reduce_or[axes]: logical on bools (bitwise on integers is not
/// supported).
template <bool isAnd>
EmitResult emitLogicalReduce(PrimitiveEmitter &e) {
  EmitResult x = e.operands(1, 1);
  FailureOr<SmallVector<int64_t>> axes = e.builder.intListParam(e.eqn, "axes");
  if (failed(x) || failed(axes))
    return failure();
  if (!cast<RankedTensorType>((*x)[0].getType()).getElementType().isInteger(1))
    return e.builder.emitError(e.eqn.primitiveLoc)
           << "'" << e.primitive() << "' of integers (bitwise) is not supported";
  FailureOr<Value> r = reduceBool(e, (*x)[0], *axes, isAnd);
  if (failed(r))
    return failure();
  return SmallVector<Value>{*r};
}

/// equinox's unvmap_any / unvmap_max outside vmap: jnp.any / jnp.max of the
/// whole operand (equinox.internal._unvmap's implementation).
template <bool isAny>
EmitResult emitUnvmapReduce(PrimitiveEmitter &e) {
  EmitResult x = e.operands(1, 1);
  if (failed(x))
    return failure();
  Value v = (*x)[0];
  auto type = cast<RankedTensorType>(v.getType());
  auto all = llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
  if (all.empty())
    return SmallVector<Value>{v};
  FailureOr<Value> r =
      isAny ? reduceBool(e, v, all, /*isAnd=*/false)
            : e.built(ReduceMaxOp::create(e.b, e.loc, e.placeholder, v, all));
  if (failed(r))
    return failure();
  return SmallVector<Value>{*r};
}

//===--- Cumulative reductions ----------------------------------------------===//

enum class Cumulative { Sum, Prod, Max, Min, LogSumExp };

/// The identity of `kind` as a splat of `type`: 0, 1, the highest (min),
/// the lowest (max, logsumexp: -inf).
Value identityOf(PrimitiveEmitter &e, Cumulative kind, RankedTensorType type) {
  ReductionIdentity identity = kind == Cumulative::Sum    ? ReductionIdentity::Zero
                               : kind == Cumulative::Prod ? ReductionIdentity::One
                               : kind == Cumulative::Min  ? ReductionIdentity::Highest
                                                          : ReductionIdentity::Lowest;
  return reductionIdentity(e, identity, type);
}

/// log(exp(a) + exp(b)) = max + log1p(exp(-|a - b|)); where the max is
/// infinite (both -inf, or one +inf) the difference is NaN or irrelevant and
/// the result is the max itself, as jnp.logaddexp.
Value logAddExp(OpBuilder &b, Location loc, Value a, Value c) {
  Type t = a.getType();
  Value m = MaxOp::create(b, loc, t, a, c);
  Value d = AbsOp::create(b, loc, t, SubOp::create(b, loc, t, a, c));
  Value sum = AddOp::create(b, loc, t, m,
                            Log1pOp::create(b, loc, t,
                                            ExpOp::create(b, loc, t, NegOp::create(b, loc, t, d))));
  auto predType = cast<RankedTensorType>(t).clone(b.getI1Type());
  Value finite = IsFiniteOp::create(b, loc, predType, m);
  Value isNan = CompareOp::create(b, loc, predType, ComparisonDirection::NE, m, m);
  // select_n(p, on false, on true): the sum where m is finite or NaN.
  Value useSum = OrOp::create(b, loc, predType, finite, isNan);
  return SelectNOp::create(b, loc, t, useSum, ValueRange{m, sum});
}

/// cumsum[axis reverse] x and friends: a scan along `axis` whose carry is the
/// running reduction (starting from the identity) and whose ys are the
/// carries. XLA computes each prefix as its own window reduction; the
/// results differ only by the rounding of a different summation order.
template <Cumulative kind>
EmitResult emitCumulative(PrimitiveEmitter &e) {
  EmitResult x = e.operands(1, 1);
  FailureOr<int64_t> axis = e.builder.intParam(e.eqn, "axis");
  FailureOr<bool> reverse = e.builder.boolParam(e.eqn, "reverse", false);
  if (failed(x) || failed(axis) || failed(reverse))
    return failure();
  Value v = (*x)[0];
  auto type = cast<RankedTensorType>(v.getType());
  if (*axis < 0 || *axis >= type.getRank())
    return e.builder.emitError(e.eqn.primitiveLoc)
           << "axis " << *axis << " of '" << e.primitive() << "' is out of range for "
           << JaxprBuilder::formatType(type);
  if (kind == Cumulative::LogSumExp && !isa<FloatType>(type.getElementType()))
    return e.builder.emitError(e.eqn.primitiveLoc) << "'cumlogsumexp' needs floats";
  Value init = identityOf(e, kind, dropDim(type, *axis));
  auto body = [&](OpBuilder &b, Location loc, ValueRange, ValueRange carries,
                  ValueRange slices) -> SmallVector<Value> {
    Value c = carries[0], s = slices[0];
    Type t = c.getType();
    Value next;
    switch (kind) {
    case Cumulative::Sum: next = AddOp::create(b, loc, t, c, s); break;
    case Cumulative::Prod: next = MulOp::create(b, loc, t, c, s); break;
    case Cumulative::Max: next = MaxOp::create(b, loc, t, c, s); break;
    case Cumulative::Min: next = MinOp::create(b, loc, t, c, s); break;
    case Cumulative::LogSumExp: next = logAddExp(b, loc, c, s); break;
    }
    return {next, next};
  };
  int64_t length = type.getDimSize(*axis);
  auto scan = ScanOp::create(e.b, e.loc, ValueRange{}, ValueRange{init}, ValueRange{v},
                             length, body, *reverse, {*axis}, {*axis});
  if (failed(e.builder.finishOp(scan)))
    return failure();
  return SmallVector<Value>{scan.getResult(1)};
}

/// reduce[computation jaxpr dimensions] operands... init_values...: the
/// generic form, whose reducer is a jaxpr on scalars (the accumulators, then
/// the elements); JAX gives add/mul/max/min reducers with their identity
/// their own primitives, so what comes here is a selection (argmax-like,
/// over several operands) or another custom reducer. The reduced dimensions
/// are moved last and flattened in row-major order, then halved pairwise:
/// neighbours 2k and 2k+1 are combined by the reducer (an odd last element
/// carried over), so every value stands for a contiguous run of elements,
/// left before right, and a reducer that keeps its left operand on ties
/// picks what a left-to-right evaluation picks, in log2(n) steps. The init
/// values are combined last, on the left. (XLA leaves the order of a
/// reduction unspecified.)
EmitResult emitGenericReduce(PrimitiveEmitter &e) {
  FailureOr<ReducerOperands> x = reducerOperands(e);
  FailureOr<const Jaxpr *> body = e.builder.jaxprParam(e.eqn, {"jaxpr"});
  FailureOr<SmallVector<int64_t>> dims = e.builder.intListParam(e.eqn, "dimensions");
  if (failed(x) || failed(body) || failed(dims))
    return failure();
  size_t n = x->operands.size();
  SmallVector<Value> operands = x->operands;
  ArrayRef<Value> inits = x->inits;
  auto type = cast<RankedTensorType>(operands.front().getType());
  int64_t rank = type.getRank();
  llvm::SmallBitVector reduced(rank);
  for (int64_t d : *dims) {
    if (d < 0 || d >= rank || reduced.test(d))
      return e.builder.emitError(e.eqn.primitiveLoc)
             << "'reduce': dimensions must be distinct axes of the rank-" << rank
             << " operand, got " << d;
    reduced.set(d);
  }
  // [kept..., reduced...] -> [kept..., count].
  SmallVector<int64_t> perm, kept;
  int64_t count = 1;
  for (int64_t d = 0; d < rank; ++d)
    if (!reduced.test(d)) {
      perm.push_back(d);
      kept.push_back(type.getDimSize(d));
    }
  for (int64_t d = 0; d < rank; ++d)
    if (reduced.test(d)) {
      perm.push_back(d);
      count *= type.getDimSize(d);
    }
  SmallVector<Value> acc;
  for (Value init : inits)
    acc.push_back(BroadcastInDimOp::create(e.b, e.loc, init, kept, ArrayRef<int64_t>{}));
  if (count == 0)
    return acc;
  SmallVector<int64_t> flat(kept);
  flat.push_back(count);
  int64_t last = int64_t(kept.size());
  for (Value &v : operands) {
    if (!llvm::equal(perm, llvm::seq<int64_t>(0, rank))) {
      FailureOr<Value> t = e.built(TransposeOp::create(e.b, e.loc, e.placeholder, v, perm));
      if (failed(t))
        return failure();
      v = *t;
    }
    FailureOr<Value> r = e.built(ReshapeOp::create(
        e.b, e.loc, RankedTensorType::get(flat, getElementTypeOrSelf(v.getType())), v));
    if (failed(r))
      return failure();
    v = *r;
  }
  auto sliceLast = [&](Value v, int64_t start, int64_t limit, int64_t step) {
    SmallVector<int64_t> starts(last + 1, 0), limits(flat), steps(last + 1, 1);
    starts[last] = start;
    limits[last] = limit;
    steps[last] = step;
    return e.built(SliceOp::create(e.b, e.loc, e.placeholder, v, starts, limits, steps));
  };
  auto apply = [&](ArrayRef<Value> left, ArrayRef<Value> right) -> FailureOr<SmallVector<Value>> {
    SmallVector<Value> args(left);
    llvm::append_range(args, right);
    FailureOr<SmallVector<Value>> out = e.builder.applyElementwise(**body, args);
    if (succeeded(out) && out->size() != n)
      return e.builder.emitError((*body)->outsLoc)
             << "the reducer of 'reduce' returns " << out->size() << " values for " << n
             << " operands";
    return out;
  };
  for (int64_t length = count; length > 1; length = length / 2 + length % 2) {
    SmallVector<Value> left, right, odd;
    for (Value v : operands) {
      FailureOr<Value> l = sliceLast(v, 0, length - length % 2, 2);
      FailureOr<Value> r = sliceLast(v, 1, length, 2);
      if (failed(l) || failed(r))
        return failure();
      left.push_back(*l);
      right.push_back(*r);
      if (length % 2) {
        FailureOr<Value> o = sliceLast(v, length - 1, length, 1);
        if (failed(o))
          return failure();
        odd.push_back(*o);
      }
    }
    FailureOr<SmallVector<Value>> pairs = apply(left, right);
    if (failed(pairs))
      return failure();
    operands = *pairs;
    for (auto [v, o] : llvm::zip(operands, odd)) {
      FailureOr<Value> c = e.built(
          ConcatenateOp::create(e.b, e.loc, e.placeholder, ValueRange{v, o}, last));
      if (failed(c))
        return failure();
      v = *c;
    }
  }
  for (Value &v : operands) {
    FailureOr<Value> r = e.built(ReshapeOp::create(
        e.b, e.loc, RankedTensorType::get(kept, getElementTypeOrSelf(v.getType())), v));
    if (failed(r))
      return failure();
    v = *r;
  }
  return apply(acc, operands);
}

} // namespace

void kiln::jaxpr::registerReductionPrimitives(PrimitiveTable &table) {
  addPrimitives(table, {
      {"reduce_sum", emitReduce<ReduceSumOp>},
      {"reduce_max", emitReduce<ReduceMaxOp>},
      {"reduce_min", emitReduce<ReduceMinOp>},
      {"reduce_prod", emitReduce<ReduceProdOp>},
      {"argmax", emitArgReduce<ArgMaxOp>},
      {"argmin", emitArgReduce<ArgMinOp>},
      {"reduce_and", emitLogicalReduce<true>},
      {"reduce_or", emitLogicalReduce<false>},
      {"unvmap_any", emitUnvmapReduce<true>},
      {"unvmap_max", emitUnvmapReduce<false>},
      {"cumsum", emitCumulative<Cumulative::Sum>},
      {"cumprod", emitCumulative<Cumulative::Prod>},
      {"cummax", emitCumulative<Cumulative::Max>},
      {"cummin", emitCumulative<Cumulative::Min>},
      {"cumlogsumexp", emitCumulative<Cumulative::LogSumExp>},
      {"reduce", emitGenericReduce},
  });
}
