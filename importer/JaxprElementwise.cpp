//===- JaxprElementwise.cpp - elementwise primitives ----------------------===//
//
// Unary and binary ops, integer_pow, comparisons and select_n. Operands are
// brought to one shape first (literals splat, scalars broadcast).
//
//===----------------------------------------------------------------------===//
#include "importer/JaxprPrimitives.h"

#include "dialect/LaxOps.h"

using namespace mlir;
using namespace kiln::jaxpr;
using namespace kiln::lax;
using llvm::SmallVector;

namespace {

//===--- Unary and binary ---------------------------------------------------===//

/// An op whose result has its operand's type.
template <typename OpTy>
EmitResult emitUnary(PrimitiveEmitter &e) {
  EmitResult x = e.elementwise(1);
  if (failed(x))
    return failure();
  Value a = (*x)[0];
  return e.finish(OpTy::create(e.b, e.loc, a.getType(), a));
}

/// An op whose result has its first operand's type.
template <typename OpTy>
EmitResult emitBinary(PrimitiveEmitter &e) {
  EmitResult x = e.elementwise(2);
  if (failed(x))
    return failure();
  Value a = (*x)[0], b = (*x)[1];
  return e.finish(OpTy::create(e.b, e.loc, a.getType(), a, b));
}

EmitResult emitIntegerPow(PrimitiveEmitter &e) {
  EmitResult x = e.elementwise(1);
  FailureOr<int64_t> y = e.builder.intParam(e.eqn, "y");
  if (failed(x) || failed(y))
    return failure();
  Value a = (*x)[0];
  return e.finish(
      IntegerPowOp::create(e.b, e.loc, a.getType(), a, e.b.getI64IntegerAttr(*y)));
}

//===--- Comparisons and select ---------------------------------------------===//

template <ComparisonDirection direction>
EmitResult emitCompare(PrimitiveEmitter &e) {
  EmitResult x = e.elementwise(2);
  if (failed(x))
    return failure();
  return e.finish(
      CompareOp::create(e.b, e.loc, e.placeholder, direction, (*x)[0], (*x)[1]));
}

/// `select_n which case0 case1 ...`: the cases take one shape, `which` not.
EmitResult emitSelectN(PrimitiveEmitter &e) {
  if (failed(e.checkArity(2, SIZE_MAX)))
    return failure();
  FailureOr<Value> which = e.builder.operand(e.eqn.ins[0], e.scope);
  EmitResult cases = e.builder.elementwiseOperands(e.eqn, e.scope, 1);
  if (failed(which) || failed(cases))
    return failure();
  return e.finish(SelectNOp::create(e.b, e.loc, e.placeholder, *which, *cases));
}

} // namespace

void kiln::jaxpr::registerElementwisePrimitives(PrimitiveTable &table) {
  addPrimitives(table, {
      {"neg", emitUnary<NegOp>},
      {"abs", emitUnary<AbsOp>},
      {"sign", emitUnary<SignOp>},
      {"exp", emitUnary<ExpOp>},
      {"log", emitUnary<LogOp>},
      {"log1p", emitUnary<Log1pOp>},
      {"sin", emitUnary<SinOp>},
      {"cos", emitUnary<CosOp>},
      {"tanh", emitUnary<TanhOp>},
      {"logistic", emitUnary<LogisticOp>},
      {"sqrt", emitUnary<SqrtOp>},
      {"rsqrt", emitUnary<RsqrtOp>},
      {"square", emitUnary<SquareOp>},
      {"not", emitUnary<NotOp>},
      {"add", emitBinary<AddOp>},
      {"sub", emitBinary<SubOp>},
      {"mul", emitBinary<MulOp>},
      {"div", emitBinary<DivOp>},
      {"rem", emitBinary<RemOp>},
      {"max", emitBinary<MaxOp>},
      {"min", emitBinary<MinOp>},
      {"pow", emitBinary<PowOp>},
      {"and", emitBinary<AndOp>},
      {"or", emitBinary<OrOp>},
      {"integer_pow", emitIntegerPow},
  });
}

void kiln::jaxpr::registerComparisonPrimitives(PrimitiveTable &table) {
  addPrimitives(table, {
      {"eq", emitCompare<ComparisonDirection::EQ>},
      {"ne", emitCompare<ComparisonDirection::NE>},
      {"lt", emitCompare<ComparisonDirection::LT>},
      {"le", emitCompare<ComparisonDirection::LE>},
      {"gt", emitCompare<ComparisonDirection::GT>},
      {"ge", emitCompare<ComparisonDirection::GE>},
      {"select_n", emitSelectN},
  });
}
