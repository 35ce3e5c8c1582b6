//===- JaxprContraction.cpp - contraction primitives ----------------------===//
//
// dot_general; the linear algebra of jax.lax.linalg (cholesky, lu,
// triangular_solve).
//
//===----------------------------------------------------------------------===//
#include "importer/JaxprPrimitives.h"

#include "dialect/LaxOps.h"

using namespace mlir;
using namespace kiln::jaxpr;
using namespace kiln::lax;
using llvm::SmallVector;

namespace {

bool isPair(const ParamValue &p) {
  return p.kind == ParamValue::Kind::List && p.items.size() == 2;
}

/// dimension_numbers = ((lhs_contracting, rhs_contracting),
/// (lhs_batch, rhs_batch)), as four lists in that order.
FailureOr<SmallVector<SmallVector<int64_t>>>
dotDimensionNumbers(JaxprBuilder &builder, const ParamValue &v) {
  if (!isPair(v) || !isPair(v.items[0]) || !isPair(v.items[1]))
    return builder.emitError(v.loc) << "dimension_numbers must be ((lhs_contracting, "
                                       "rhs_contracting), (lhs_batch, rhs_batch))";
  SmallVector<SmallVector<int64_t>> dims;
  for (const ParamValue &group : v.items)
    for (const ParamValue &list : group.items) {
      FailureOr<SmallVector<int64_t>> d = builder.intList(list, "each dimension list");
      if (failed(d))
        return failure();
      dims.push_back(*d);
    }
  return dims;
}

EmitResult emitDotGeneral(PrimitiveEmitter &e) {
  EmitResult x = e.operands(2, 2);
  const Param *numbers = e.builder.requireParam(e.eqn, "dimension_numbers");
  FailureOr<Type> preferred =
      e.builder.dtypeParam(e.eqn, "preferred_element_type", true);
  if (failed(x) || !numbers || failed(preferred))
    return failure();
  FailureOr<SmallVector<SmallVector<int64_t>>> dims =
      dotDimensionNumbers(e.builder, numbers->value);
  if (failed(dims))
    return failure();
  TypeAttr preferredAttr = *preferred ? TypeAttr::get(*preferred) : TypeAttr();
  Value lhs = (*x)[0], rhs = (*x)[1];
  Type lhsElement = getElementTypeOrSelf(lhs), rhsElement = getElementTypeOrSelf(rhs);
  if (lhsElement != rhsElement) {
    // JAX takes operands of two dtypes (bf16 by f32: a bf16 model's
    // activations by an f32 solve's result); on CPU and GPU it converts both
    // to the result's dtype before the product (jax/_src/lax/lax.py,
    // _handle_dot_precision), which is what this does: the product then
    // sees the values XLA's does.
    Type target = *preferred;
    if (!target) {
      FailureOr<RankedTensorType> annotated = e.annotatedResultType();
      if (failed(annotated))
        return failure();
      target = annotated->getElementType();
    }
    for (Value *operand : {&lhs, &rhs}) {
      auto type = cast<RankedTensorType>(operand->getType());
      if (type.getElementType() == target)
        continue;
      FailureOr<Value> converted =
          e.built(ConvertElementTypeOp::create(e.b, e.loc, type.clone(target), *operand));
      if (failed(converted))
        return failure();
      *operand = *converted;
    }
  }
  auto &d = *dims;
  return e.finish(DotGeneralOp::create(e.b, e.loc, e.placeholder, lhs, rhs, d[0], d[1], d[2],
                                       d[3], preferredAttr));
}

/// cholesky x (jnp.linalg.cholesky symmetrizes before and zeroes the
/// upper triangle after, as separate equations).
EmitResult emitCholesky(PrimitiveEmitter &e) {
  EmitResult x = e.operands(1, 1);
  if (failed(x))
    return failure();
  return e.finish(CholeskyOp::create(e.b, e.loc, (*x)[0].getType(), (*x)[0]));
}

/// lu x: the factors, the pivots and the permutation.
EmitResult emitLu(PrimitiveEmitter &e) {
  EmitResult x = e.operands(1, 1);
  if (failed(x))
    return failure();
  auto type = cast<RankedTensorType>((*x)[0].getType());
  if (type.getRank() < 2)
    return e.builder.emitError(e.eqn.primitiveLoc) << "'lu' takes matrices (rank >= 2)";
  int64_t m = type.getDimSize(type.getRank() - 2), n = type.getDimSize(type.getRank() - 1);
  SmallVector<int64_t> pivots(type.getShape().drop_back(2)), permutation(pivots);
  pivots.push_back(std::min(m, n));
  permutation.push_back(m);
  Type i32 = e.b.getI32Type();
  auto op = LuOp::create(e.b, e.loc, type, RankedTensorType::get(pivots, i32),
                         RankedTensorType::get(permutation, i32), (*x)[0]);
  if (failed(e.builder.finishOp(op)))
    return failure();
  return SmallVector<Value>(op->getResults());
}

/// lu_pivots_to_permutation[permutation_size=n] pivots: the permutation
/// that applies the row swaps i <-> pivots[i] in order to 0..n-1. The k
/// swaps are unrolled, each as selects over the whole row so that batch
/// dimensions need no gather: perm[p] is read as a sum of the one element
/// where iota == p (the others are 0), then perm[i] and perm[p] trade places
/// (p == i leaves the row as it was). O(k n) work per batch element; JAX's
/// lu pivots have k = min(m, n) of a matrix's m rows.
EmitResult emitLuPivotsToPermutation(PrimitiveEmitter &e) {
  EmitResult x = e.operands(1, 1);
  FailureOr<int64_t> size = e.builder.intParam(e.eqn, "permutation_size");
  if (failed(x) || failed(size))
    return failure();
  Value pivots = (*x)[0];
  auto type = cast<RankedTensorType>(pivots.getType());
  if (type.getRank() < 1 || !type.getElementType().isSignlessInteger(32))
    return e.builder.emitError(e.eqn.primitiveLoc)
           << "'lu_pivots_to_permutation' takes i32 pivots of rank >= 1";
  int64_t k = type.getShape().back(), n = *size, rank = type.getRank();
  if (n < k)
    return e.builder.emitError(e.eqn.primitiveLoc)
           << "'lu_pivots_to_permutation': permutation_size " << n << " is smaller than the "
           << k << " pivots";
  if (k > 4096)
    return e.builder.emitError(e.eqn.primitiveLoc)
           << "'lu_pivots_to_permutation' of " << k << " pivots: at most 4096 (the swaps are "
           << "unrolled)";
  SmallVector<int64_t> batch(type.getShape().drop_back());
  SmallVector<int64_t> rowShape(batch), oneShape(batch);
  rowShape.push_back(n);
  oneShape.push_back(1);
  auto rowType = RankedTensorType::get(rowShape, type.getElementType());
  auto batchType = RankedTensorType::get(batch, type.getElementType());
  SmallVector<int64_t> batchDims;
  for (int64_t d = 0; d + 1 < rank; ++d)
    batchDims.push_back(d);
  Value iota = IotaOp::create(e.b, e.loc, rowType, rank - 1);
  Value zeros = ConstantOp::create(e.b, e.loc, rowType, 0.0);
  Value perm = iota;
  // Element `i` of the last axis of `v` ([batch..., w]) as [batch...].
  auto column = [&](Value v, int64_t i) -> FailureOr<Value> {
    auto vType = cast<RankedTensorType>(v.getType());
    SmallVector<int64_t> start(rank, 0), limit(vType.getShape()), step(rank, 1);
    start.back() = i;
    limit.back() = i + 1;
    FailureOr<Value> one = e.built(SliceOp::create(e.b, e.loc, e.placeholder, v, start, limit, step));
    if (failed(one))
      return failure();
    return e.built(ReshapeOp::create(e.b, e.loc, batchType, *one));
  };
  // A [batch...] value broadcast along the last axis, to [batch..., n].
  auto across = [&](Value v) {
    return e.built(BroadcastInDimOp::create(e.b, e.loc, v, rowShape, batchDims));
  };
  auto compare = [&](Value a, Value b) {
    return e.built(CompareOp::create(e.b, e.loc, e.placeholder, ComparisonDirection::EQ, a, b));
  };
  auto select = [&](Value pred, Value ifTrue, Value ifFalse) {
    return e.built(SelectNOp::create(e.b, e.loc, e.placeholder, pred, ValueRange{ifFalse, ifTrue}));
  };
  for (int64_t i = 0; i < k; ++i) {
    FailureOr<Value> p = column(pivots, i);
    if (failed(p))
      return failure();
    FailureOr<Value> pRow = across(*p);
    if (failed(pRow))
      return failure();
    FailureOr<Value> atP = compare(iota, *pRow);
    if (failed(atP))
      return failure();
    FailureOr<Value> picked = select(*atP, perm, zeros);
    if (failed(picked))
      return failure();
    FailureOr<Value> permP = e.built(
        ReduceSumOp::create(e.b, e.loc, e.placeholder, *picked, ArrayRef<int64_t>{rank - 1}));
    FailureOr<Value> permI = column(perm, i);
    if (failed(permP) || failed(permI))
      return failure();
    Value iConst = ConstantOp::create(e.b, e.loc, rowType, double(i));
    FailureOr<Value> atI = compare(iota, iConst);
    FailureOr<Value> permPRow = across(*permP), permIRow = across(*permI);
    if (failed(atI) || failed(permPRow) || failed(permIRow))
      return failure();
    FailureOr<Value> swapped = select(*atP, *permIRow, perm);
    if (failed(swapped))
      return failure();
    FailureOr<Value> next = select(*atI, *permPRow, *swapped);
    if (failed(next))
      return failure();
    perm = *next;
  }
  return SmallVector<Value>{perm};
}

/// triangular_solve[left_side lower transpose_a conjugate_a unit_diagonal] a b.
EmitResult emitTriangularSolve(PrimitiveEmitter &e) {
  EmitResult x = e.operands(2, 2);
  FailureOr<bool> leftSide = e.builder.boolParam(e.eqn, "left_side", false);
  FailureOr<bool> lower = e.builder.boolParam(e.eqn, "lower", false);
  FailureOr<bool> transposeA = e.builder.boolParam(e.eqn, "transpose_a", false);
  FailureOr<bool> unitDiagonal = e.builder.boolParam(e.eqn, "unit_diagonal", false);
  // conjugate_a: no effect on the real types lax has.
  FailureOr<bool> conjugateA = e.builder.boolParam(e.eqn, "conjugate_a", false);
  if (failed(x) || failed(leftSide) || failed(lower) || failed(transposeA) ||
      failed(unitDiagonal) || failed(conjugateA))
    return failure();
  return e.finish(TriangularSolveOp::create(e.b, e.loc, (*x)[1].getType(), (*x)[0], (*x)[1],
                                            *leftSide, *lower, *transposeA, *unitDiagonal));
}

} // namespace

void kiln::jaxpr::registerContractionPrimitives(PrimitiveTable &table) {
  addPrimitives(table, {
      {"dot_general", emitDotGeneral},
      {"cholesky", emitCholesky},
      {"lu", emitLu},
      {"lu_pivots_to_permutation", emitLuPivotsToPermutation},
      {"triangular_solve", emitTriangularSolve},
  });
}
