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
  auto &d = *dims;
  return e.finish(DotGeneralOp::create(e.b, e.loc, e.placeholder, (*x)[0], (*x)[1],
                                       d[0], d[1], d[2], d[3], preferredAttr));
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
      {"triangular_solve", emitTriangularSolve},
  });
}
