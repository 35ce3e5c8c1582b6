//===- JaxprReductions.cpp - reduction primitives -------------------------===//
//
// reduce_sum/max/min/prod over `axes`, and argmax/argmin.
//
//===----------------------------------------------------------------------===//
#include "importer/JaxprPrimitives.h"

#include "dialect/LaxOps.h"

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
  return e.finish(OpTy::create(e.b, e.loc, resultType, (*x)[0], *axes));
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
  });
}
