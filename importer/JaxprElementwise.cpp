//===- JaxprElementwise.cpp - elementwise primitives ----------------------===//
//
// Unary and binary ops, integer_pow, comparisons and select_n. Operands are
// brought to one shape first (literals splat, scalars broadcast).
//
//===----------------------------------------------------------------------===//
#include "importer/JaxprPrimitives.h"

#include "dialect/LaxOps.h"
#include "dialect/LaxTotalOrder.h"

using namespace mlir;
using namespace kiln::jaxpr;
using namespace kiln::lax;
using llvm::SmallVector;
using llvm::StringRef;

namespace {

//===--- Unary and binary ---------------------------------------------------===//

/// A parameterless elementwise primitive (dialect/LaxInterfaces.h): the
/// lax op of the same name, whose result has its (first) operand's type.
EmitResult emitElementwisePrimitive(PrimitiveEmitter &e) {
  // add_any, the sum of cotangents in a jaxpr of a gradient, is add.
  StringRef name = e.primitive() == "add_any" ? StringRef("add") : e.primitive();
  const ElementwisePrimitive *primitive = findElementwisePrimitive(name);
  EmitResult x = e.elementwise(primitive->arity);
  if (failed(x))
    return failure();
  OperationState state(e.loc, primitive->opName);
  state.addOperands(*x);
  state.addTypes((*x)[0].getType());
  return e.finish(e.b.create(state));
}

/// pow x y: an integer exponent is converted to the base's float type first,
/// as JAX lowers a mixed pow.
EmitResult emitPow(PrimitiveEmitter &e) {
  EmitResult x = e.elementwise(2);
  if (failed(x))
    return failure();
  Value a = (*x)[0], y = (*x)[1];
  auto baseType = cast<RankedTensorType>(a.getType());
  auto expType = cast<RankedTensorType>(y.getType());
  if (isa<FloatType>(baseType.getElementType()) && !isa<FloatType>(expType.getElementType()))
    y = ConvertElementTypeOp::create(e.b, e.loc, expType.clone(baseType.getElementType()), y);
  return e.finish(PowOp::create(e.b, e.loc, a.getType(), a, y));
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

/// round[rounding_method]: 0 (or AWAY_FROM_ZERO) or 1 (TO_NEAREST_EVEN).
EmitResult emitRound(PrimitiveEmitter &e) {
  EmitResult x = e.elementwise(1);
  if (failed(x))
    return failure();
  int64_t method = 0;
  if (const Param *p = e.eqn.findParam("rounding_method")) {
    StringRef text = p->value.text;
    if (text.ends_with("TO_NEAREST_EVEN") || text == "1")
      method = 1;
    else if (!text.ends_with("AWAY_FROM_ZERO") && text != "0")
      return e.builder.emitError(p->value.loc)
             << "unknown rounding_method '" << p->value.spelling << "' of 'round'";
  }
  Value a = (*x)[0];
  return e.finish(RoundOp::create(e.b, e.loc, a.getType(), a, method));
}

/// reduce_precision[exponent_bits mantissa_bits].
EmitResult emitReducePrecision(PrimitiveEmitter &e) {
  EmitResult x = e.elementwise(1);
  FailureOr<int64_t> exponent = e.builder.intParam(e.eqn, "exponent_bits");
  FailureOr<int64_t> mantissa = e.builder.intParam(e.eqn, "mantissa_bits");
  if (failed(x) || failed(exponent) || failed(mantissa))
    return failure();
  Value a = (*x)[0];
  return e.finish(ReducePrecisionOp::create(e.b, e.loc, a.getType(), a,
                                            e.b.getI64IntegerAttr(*exponent),
                                            e.b.getI64IntegerAttr(*mantissa)));
}

/// is_finite: a bool of the operand's shape.
EmitResult emitIsFinite(PrimitiveEmitter &e) {
  EmitResult x = e.elementwise(1);
  if (failed(x))
    return failure();
  auto type = cast<RankedTensorType>((*x)[0].getType());
  return e.finish(IsFiniteOp::create(e.b, e.loc, type.clone(e.b.getI1Type()), (*x)[0]));
}

/// clamp lo x hi = min(max(x, lo), hi), as XLA expands it (NaN propagates
/// through both).
EmitResult emitClamp(PrimitiveEmitter &e) {
  EmitResult x = e.elementwise(3);
  if (failed(x))
    return failure();
  Value lo = (*x)[0], v = (*x)[1], hi = (*x)[2];
  Type t = v.getType();
  Operation *max = MaxOp::create(e.b, e.loc, t, v, lo);
  if (failed(e.builder.finishOp(max)))
    return failure();
  return e.finish(MinOp::create(e.b, e.loc, t, max->getResult(0), hi));
}

/// bitcast_convert_type[new_dtype]: between types of one bit width.
EmitResult emitBitcastConvertType(PrimitiveEmitter &e) {
  EmitResult x = e.operands(1, 1);
  FailureOr<Type> dtype = e.builder.dtypeParam(e.eqn, "new_dtype", /*optional=*/false);
  if (failed(x) || failed(dtype))
    return failure();
  auto type = cast<RankedTensorType>((*x)[0].getType());
  return e.finish(BitcastConvertTypeOp::create(e.b, e.loc, type.clone(*dtype), (*x)[0]));
}

/// Operations that are the identity outside vmap: equinox's
/// select_if_vmap(pred, x, y) is x (its implementation), nonbatchable(x) is
/// x.
EmitResult emitSelectIfVmap(PrimitiveEmitter &e) {
  EmitResult x = e.operands(3, 3);
  if (failed(x))
    return failure();
  return SmallVector<Value>{(*x)[1]};
}

EmitResult emitNonbatchable(PrimitiveEmitter &e) { return e.operands(1, 1); }

//===--- Comparisons and select ---------------------------------------------===//

template <ComparisonDirection direction>
EmitResult emitCompare(PrimitiveEmitter &e) {
  EmitResult x = e.elementwise(2);
  if (failed(x))
    return failure();
  return e.finish(
      CompareOp::create(e.b, e.loc, e.placeholder, direction, (*x)[0], (*x)[1]));
}

/// eq_to, lt_to, le_to: comparisons in the total order (searchsorted,
/// jnp.sort's keys): floats through lax::buildTotalOrderKey.
template <ComparisonDirection direction>
EmitResult emitCompareTotalOrder(PrimitiveEmitter &e) {
  EmitResult x = e.elementwise(2);
  if (failed(x))
    return failure();
  Value lhs = buildTotalOrderKey(e.b, e.loc, (*x)[0]);
  Value rhs = buildTotalOrderKey(e.b, e.loc, (*x)[1]);
  return e.finish(CompareOp::create(e.b, e.loc, e.placeholder, direction, lhs, rhs));
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
  // Every parameterless elementwise primitive, by the name its ODS
  // definition gives; pow converts an integer exponent first (emitPow).
  for (const ElementwisePrimitive &primitive : elementwisePrimitives())
    if (primitive.jaxName != "pow")
      addPrimitives(table, {{primitive.jaxName, emitElementwisePrimitive}});
  addPrimitives(table, {
      {"add_any", emitElementwisePrimitive},
      {"pow", emitPow},
      {"integer_pow", emitIntegerPow},
      {"round", emitRound},
      {"reduce_precision", emitReducePrecision},
      {"is_finite", emitIsFinite},
      {"clamp", emitClamp},
      {"bitcast_convert_type", emitBitcastConvertType},
      {"select_if_vmap", emitSelectIfVmap},
      {"nonbatchable", emitNonbatchable},
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
      {"eq_to", emitCompareTotalOrder<ComparisonDirection::EQ>},
      {"lt_to", emitCompareTotalOrder<ComparisonDirection::LT>},
      {"le_to", emitCompareTotalOrder<ComparisonDirection::LE>},
      {"select_n", emitSelectN},
  });
}
