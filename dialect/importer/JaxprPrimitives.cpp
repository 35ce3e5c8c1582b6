//===- JaxprPrimitives.cpp - syntax tree to lax ops: primitives -----------===//
//
// One lax op per plain primitive (see the table in docs/importer.md), the
// helpers reading operands and parameters, and the literal constants.
//
//===----------------------------------------------------------------------===//
#include "dialect/importer/JaxprBuilder.h"

#include "dialect/LaxOps.h"

#include "llvm/ADT/StringSwitch.h"

#include <cmath>

using namespace mlir;
using namespace kiln::jaxpr;
using llvm::SmallVector;
using llvm::StringRef;

//===----------------------------------------------------------------------===//
// Operands
//===----------------------------------------------------------------------===//

FailureOr<Value> JaxprBuilder::operand(const Atom &atom, Scope &scope,
                                       RankedTensorType like) {
  if (!atom.isLiteral()) {
    if (Value v = scope.lookup(atom.name))
      return v;
    return emitError(atom.loc) << "use of undefined variable '" << atom.name << "'";
  }
  Type element;
  if (atom.type) {
    FailureOr<RankedTensorType> type = convertType(*atom.type);
    if (failed(type))
      return failure();
    if (!type->getShape().empty())
      return emitError(atom.type->loc) << "a literal must have a scalar type, got "
                                       << formatType(*type);
    element = type->getElementType();
  } else if (like) {
    element = like.getElementType();
  } else {
    element = atom.kind == Atom::Kind::BoolLiteral  ? Type(builder.getI1Type())
              : atom.kind == Atom::Kind::IntLiteral ? Type(builder.getI32Type())
                                                    : Type(builder.getF32Type());
  }
  auto type = RankedTensorType::get(like ? like.getShape() : ArrayRef<int64_t>{},
                                    element);
  Attribute scalar;
  if (auto floatType = dyn_cast<FloatType>(element))
    scalar = FloatAttr::get(floatType, atom.floatValue);
  else {
    // Wrap like a C cast: `True` is 1, `300` in an i8 context is 44; a float
    // literal truncates, saturating where a cast would be undefined.
    int64_t value = atom.intValue;
    if (atom.kind == Atom::Kind::FloatLiteral) {
      double f = atom.floatValue;
      value = std::isnan(f)      ? 0
              : f >= 0x1p63      ? INT64_MAX
              : f < -0x1p63      ? INT64_MIN
                                 : (int64_t)f;
    }
    scalar = IntegerAttr::get(element, APInt(element.getIntOrFloatBitWidth(),
                                             (uint64_t)value, /*isSigned=*/true,
                                             /*implicitTrunc=*/true));
  }
  return lax::ConstantOp::create(builder, loc(atom.loc),
                                 DenseElementsAttr::get(type, scalar))
      .getResult();
}

FailureOr<SmallVector<Value>>
JaxprBuilder::elementwiseOperands(const Equation &eqn, Scope &scope, size_t first) {
  ArrayRef<Atom> atoms = ArrayRef<Atom>(eqn.ins).drop_front(first);
  // The shape all operands take: the variable of the highest rank.
  RankedTensorType like;
  SmallVector<Value> values(atoms.size());
  for (auto [atom, value] : llvm::zip(atoms, values)) {
    if (atom.isLiteral())
      continue;
    FailureOr<Value> v = operand(atom, scope);
    if (failed(v))
      return failure();
    value = *v;
    auto type = cast<RankedTensorType>(value.getType());
    if (!like || type.getRank() > like.getRank())
      like = type;
  }
  for (auto [atom, value] : llvm::zip(atoms, values)) {
    if (atom.isLiteral()) {
      FailureOr<Value> v = operand(atom, scope, like);
      if (failed(v))
        return failure();
      value = *v;
      continue;
    }
    auto type = cast<RankedTensorType>(value.getType());
    if (type.getRank() == 0 && like.getRank() > 0)
      value = lax::BroadcastInDimOp::create(builder, loc(atom.loc), value,
                                            like.getShape(), ArrayRef<int64_t>{});
  }
  return values;
}

//===----------------------------------------------------------------------===//
// Parameters
//===----------------------------------------------------------------------===//

const Param *JaxprBuilder::requireParam(const Equation &eqn, StringRef name) {
  if (const Param *p = eqn.findParam(name))
    return p;
  emitError(eqn.primitiveLoc) << "'" << eqn.primitive << "' needs parameter '" << name
                              << "'";
  return nullptr;
}

static bool isNone(const ParamValue &v) {
  return v.kind == ParamValue::Kind::Name && v.text == "None";
}

FailureOr<int64_t> JaxprBuilder::intParam(const Equation &eqn, StringRef name,
                                          std::optional<int64_t> byDefault) {
  const Param *p = eqn.findParam(name);
  if (!p && byDefault)
    return *byDefault;
  if (!p && !requireParam(eqn, name))
    return failure();
  int64_t value;
  if (p->value.kind != ParamValue::Kind::Number ||
      StringRef(p->value.text).getAsInteger(10, value))
    return emitError(p->value.loc) << "parameter '" << name << "' of '" << eqn.primitive
                                   << "' must be an integer";
  return value;
}

FailureOr<bool> JaxprBuilder::boolParam(const Equation &eqn, StringRef name,
                                        bool byDefault) {
  const Param *p = eqn.findParam(name);
  if (!p)
    return byDefault;
  if (p->value.text == "True" || p->value.text == "False")
    return p->value.text == "True";
  return emitError(p->value.loc) << "parameter '" << name << "' of '" << eqn.primitive
                                 << "' must be True or False";
}

FailureOr<SmallVector<int64_t>> JaxprBuilder::intList(const ParamValue &value,
                                                      const llvm::Twine &what) {
  SmallVector<int64_t> ints;
  auto addNumber = [&](const ParamValue &v) {
    int64_t i;
    if (v.kind != ParamValue::Kind::Number || StringRef(v.text).getAsInteger(10, i))
      return false;
    ints.push_back(i);
    return true;
  };
  bool ok = value.kind == ParamValue::Kind::List
                ? llvm::all_of(value.items, addNumber)
                : addNumber(value);
  if (!ok)
    return emitError(value.loc) << what << " must be a tuple of integers";
  return ints;
}

FailureOr<SmallVector<int64_t>>
JaxprBuilder::intListParam(const Equation &eqn, StringRef name,
                           std::optional<SmallVector<int64_t>> byDefault) {
  const Param *p = eqn.findParam(name);
  if ((!p || isNone(p->value)) && byDefault)
    return *byDefault;
  if (!p && !requireParam(eqn, name))
    return failure();
  return intList(p->value, "parameter '" + name + "' of '" + eqn.primitive + "'");
}

FailureOr<Type> JaxprBuilder::dtypeParam(const Equation &eqn, StringRef name,
                                         bool optional) {
  const Param *p = eqn.findParam(name);
  if (!p && optional)
    return Type();
  if (!p && !requireParam(eqn, name))
    return failure();
  const ParamValue &v = p->value;
  if (isNone(v) && optional)
    return Type();
  // float32, or dtype('float32') as some versions print it.
  StringRef spelling = v.text;
  if (v.kind == ParamValue::Kind::Call && v.items.size() == 1)
    spelling = v.items.front().text;
  if (Type t = convertDtype(spelling))
    return t;
  return emitError(v.loc) << "unsupported dtype '" << spelling << "' in parameter '"
                          << name << "' of '" << eqn.primitive << "'";
}

FailureOr<const Jaxpr *> JaxprBuilder::jaxprParam(const Equation &eqn,
                                                  ArrayRef<StringRef> names) {
  for (StringRef name : names) {
    const Param *p = eqn.findParam(name);
    if (!p)
      continue;
    if (p->value.kind == ParamValue::Kind::Jaxpr)
      return p->value.jaxpr.get();
    if (p->value.kind == ParamValue::Kind::Name)
      if (const Jaxpr *named = program.lookupNamed(p->value.text))
        return named;
    return emitError(p->value.loc) << "parameter '" << name << "' of '"
                                   << eqn.primitive
                                   << "' must be a jaxpr or the name of one";
  }
  return emitError(eqn.primitiveLoc) << "'" << eqn.primitive << "' needs parameter '"
                                     << names.front() << "'";
}

//===----------------------------------------------------------------------===//
// Primitives
//===----------------------------------------------------------------------===//

namespace {
using UnaryFn = Operation *(*)(OpBuilder &, Location, Value);
using BinaryFn = Operation *(*)(OpBuilder &, Location, Value, Value);

template <typename OpTy>
Operation *makeUnary(OpBuilder &b, Location loc, Value x) {
  return OpTy::create(b, loc, x.getType(), x);
}
template <typename OpTy>
Operation *makeBinary(OpBuilder &b, Location loc, Value x, Value y) {
  return OpTy::create(b, loc, x.getType(), x, y);
}

UnaryFn lookupUnary(StringRef prim) {
  using namespace kiln::lax;
  return llvm::StringSwitch<UnaryFn>(prim)
      .Case("neg", makeUnary<NegOp>)
      .Case("abs", makeUnary<AbsOp>)
      .Case("sign", makeUnary<SignOp>)
      .Case("exp", makeUnary<ExpOp>)
      .Case("log", makeUnary<LogOp>)
      .Case("log1p", makeUnary<Log1pOp>)
      .Case("sin", makeUnary<SinOp>)
      .Case("cos", makeUnary<CosOp>)
      .Case("tanh", makeUnary<TanhOp>)
      .Case("logistic", makeUnary<LogisticOp>)
      .Case("sqrt", makeUnary<SqrtOp>)
      .Case("rsqrt", makeUnary<RsqrtOp>)
      .Case("square", makeUnary<SquareOp>)
      .Case("not", makeUnary<NotOp>)
      .Default(nullptr);
}

BinaryFn lookupBinary(StringRef prim) {
  using namespace kiln::lax;
  return llvm::StringSwitch<BinaryFn>(prim)
      .Case("add", makeBinary<AddOp>)
      .Case("sub", makeBinary<SubOp>)
      .Case("mul", makeBinary<MulOp>)
      .Case("div", makeBinary<DivOp>)
      .Case("rem", makeBinary<RemOp>)
      .Case("max", makeBinary<MaxOp>)
      .Case("min", makeBinary<MinOp>)
      .Case("pow", makeBinary<PowOp>)
      .Case("and", makeBinary<AndOp>)
      .Case("or", makeBinary<OrOp>)
      .Default(nullptr);
}

std::optional<kiln::lax::ComparisonDirection> lookupComparison(StringRef prim) {
  using kiln::lax::ComparisonDirection;
  return llvm::StringSwitch<std::optional<ComparisonDirection>>(prim)
      .Case("eq", ComparisonDirection::EQ)
      .Case("ne", ComparisonDirection::NE)
      .Case("lt", ComparisonDirection::LT)
      .Case("le", ComparisonDirection::LE)
      .Case("gt", ComparisonDirection::GT)
      .Case("ge", ComparisonDirection::GE)
      .Default(std::nullopt);
}

/// Reduction ops built alike: operand and axes.
template <typename OpTy>
Operation *makeReduce(OpBuilder &b, Location loc, Type placeholder, Value x,
                      ArrayRef<int64_t> axes) {
  return OpTy::create(b, loc, placeholder, x, axes);
}
using ReduceFn = Operation *(*)(OpBuilder &, Location, Type, Value, ArrayRef<int64_t>);

ReduceFn lookupReduce(StringRef prim) {
  using namespace kiln::lax;
  return llvm::StringSwitch<ReduceFn>(prim)
      .Case("reduce_sum", makeReduce<ReduceSumOp>)
      .Case("reduce_max", makeReduce<ReduceMaxOp>)
      .Case("reduce_min", makeReduce<ReduceMinOp>)
      .Case("reduce_prod", makeReduce<ReduceProdOp>)
      .Case("squeeze", makeReduce<SqueezeOp>)
      .Case("expand_dims", makeReduce<ExpandDimsOp>)
      .Case("transpose", makeReduce<TransposeOp>)
      .Default(nullptr);
}

/// The parameter holding the axes of each op built by lookupReduce.
StringRef axesParamName(StringRef prim) {
  return llvm::StringSwitch<StringRef>(prim)
      .Case("transpose", "permutation")
      .Cases({"squeeze", "expand_dims"}, "dimensions")
      .Default("axes");
}
} // namespace

FailureOr<SmallVector<Value>> JaxprBuilder::emitPrimitive(const Equation &eqn,
                                                          Scope &scope, bool &handled) {
  using namespace kiln::lax;
  StringRef prim = eqn.primitive;
  Location l = loc(eqn.loc);
  OpBuilder &b = builder;
  // Result types of ops with inferred types are filled in by finishOp.
  Type placeholder = RankedTensorType::get({}, b.getF32Type());
  auto finish = [&](Operation *op) -> FailureOr<SmallVector<Value>> {
    if (failed(finishOp(op)))
      return failure();
    return SmallVector<Value>(op->getResults());
  };
  auto checkArity = [&](size_t min, size_t max) -> LogicalResult {
    size_t n = eqn.ins.size();
    if (n >= min && n <= max)
      return success();
    auto diag = emitError(eqn.primitiveLoc) << "'" << prim << "' takes ";
    if (min == max)
      diag << min;
    else if (max == SIZE_MAX)
      diag << "at least " << min;
    else
      diag << min << " to " << max;
    return diag << " operand" << (min == 1 && max == 1 ? "" : "s") << ", got " << n;
  };
  auto operands = [&](size_t min, size_t max) -> FailureOr<SmallVector<Value>> {
    if (failed(checkArity(min, max)))
      return failure();
    return allOperands(eqn, scope);
  };
  auto elementwise = [&](size_t n) -> FailureOr<SmallVector<Value>> {
    if (failed(checkArity(n, n)))
      return failure();
    return elementwiseOperands(eqn, scope);
  };

  if (UnaryFn make = lookupUnary(prim)) {
    FailureOr<SmallVector<Value>> x = elementwise(1);
    if (failed(x))
      return failure();
    return finish(make(b, l, (*x)[0]));
  }
  if (BinaryFn make = lookupBinary(prim)) {
    FailureOr<SmallVector<Value>> x = elementwise(2);
    if (failed(x))
      return failure();
    return finish(make(b, l, (*x)[0], (*x)[1]));
  }
  if (std::optional<ComparisonDirection> direction = lookupComparison(prim)) {
    FailureOr<SmallVector<Value>> x = elementwise(2);
    if (failed(x))
      return failure();
    return finish(CompareOp::create(b, l, placeholder, *direction, (*x)[0], (*x)[1]));
  }
  if (prim == "copy" || prim == "copy_p" || prim == "stop_gradient" ||
      prim == "optimization_barrier")
    return operands(prim == "optimization_barrier" ? 0 : 1, SIZE_MAX);
  if (prim == "integer_pow") {
    FailureOr<SmallVector<Value>> x = elementwise(1);
    FailureOr<int64_t> y = intParam(eqn, "y");
    if (failed(x) || failed(y))
      return failure();
    return finish(IntegerPowOp::create(b, l, (*x)[0].getType(), (*x)[0],
                                       b.getI64IntegerAttr(*y)));
  }
  if (prim == "select_n") {
    if (failed(checkArity(2, SIZE_MAX)))
      return failure();
    FailureOr<Value> which = operand(eqn.ins[0], scope);
    FailureOr<SmallVector<Value>> cases = elementwiseOperands(eqn, scope, 1);
    if (failed(which) || failed(cases))
      return failure();
    return finish(SelectNOp::create(b, l, placeholder, *which, *cases));
  }
  if (prim == "convert_element_type") {
    FailureOr<SmallVector<Value>> x = operands(1, 1);
    FailureOr<Type> dtype = dtypeParam(eqn, "new_dtype", /*optional=*/false);
    if (failed(x) || failed(dtype))
      return failure();
    auto type = cast<RankedTensorType>((*x)[0].getType());
    return finish(ConvertElementTypeOp::create(
        b, l, RankedTensorType::get(type.getShape(), *dtype), (*x)[0]));
  }
  if (ReduceFn make = lookupReduce(prim)) {
    FailureOr<SmallVector<Value>> x = operands(1, 1);
    FailureOr<SmallVector<int64_t>> axes = intListParam(eqn, axesParamName(prim));
    if (failed(x) || failed(axes))
      return failure();
    return finish(make(b, l, placeholder, (*x)[0], *axes));
  }
  if (prim == "argmax" || prim == "argmin") {
    FailureOr<SmallVector<Value>> x = operands(1, 1);
    FailureOr<SmallVector<int64_t>> axes = intListParam(eqn, "axes");
    FailureOr<Type> indexType = dtypeParam(eqn, "index_dtype", /*optional=*/false);
    if (failed(x) || failed(axes) || failed(indexType))
      return failure();
    // The result drops the reduced axis; the verifier checks the axes.
    auto type = cast<RankedTensorType>((*x)[0].getType());
    SmallVector<int64_t> shape;
    for (int64_t i = 0; i < type.getRank(); ++i)
      if (!llvm::is_contained(*axes, i))
        shape.push_back(type.getDimSize(i));
    auto resultType = RankedTensorType::get(shape, *indexType);
    if (prim == "argmax")
      return finish(ArgMaxOp::create(b, l, resultType, (*x)[0], *axes));
    return finish(ArgMinOp::create(b, l, resultType, (*x)[0], *axes));
  }
  if (prim == "dot_general") {
    FailureOr<SmallVector<Value>> x = operands(2, 2);
    const Param *numbers = requireParam(eqn, "dimension_numbers");
    FailureOr<Type> preferred = dtypeParam(eqn, "preferred_element_type", true);
    if (failed(x) || !numbers || failed(preferred))
      return failure();
    // ((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch))
    const ParamValue &v = numbers->value;
    auto isPair = [](const ParamValue &p) {
      return p.kind == ParamValue::Kind::List && p.items.size() == 2;
    };
    if (!isPair(v) || !isPair(v.items[0]) || !isPair(v.items[1]))
      return emitError(v.loc) << "dimension_numbers must be ((lhs_contracting, "
                                 "rhs_contracting), (lhs_batch, rhs_batch))";
    SmallVector<SmallVector<int64_t>> dims;
    for (const ParamValue &group : v.items)
      for (const ParamValue &list : group.items) {
        FailureOr<SmallVector<int64_t>> d = intList(list, "each dimension list");
        if (failed(d))
          return failure();
        dims.push_back(*d);
      }
    TypeAttr preferredAttr = *preferred ? TypeAttr::get(*preferred) : TypeAttr();
    return finish(DotGeneralOp::create(b, l, placeholder, (*x)[0], (*x)[1], dims[0],
                                       dims[1], dims[2], dims[3], preferredAttr));
  }
  if (prim == "broadcast_in_dim") {
    FailureOr<SmallVector<Value>> x = operands(1, 1);
    FailureOr<SmallVector<int64_t>> shape = intListParam(eqn, "shape");
    FailureOr<SmallVector<int64_t>> dims = intListParam(eqn, "broadcast_dimensions");
    if (failed(x) || failed(shape) || failed(dims))
      return failure();
    return finish(BroadcastInDimOp::create(b, l, placeholder, (*x)[0], *shape, *dims));
  }
  if (prim == "reshape") {
    FailureOr<SmallVector<Value>> x = operands(1, 1);
    FailureOr<SmallVector<int64_t>> sizes = intListParam(eqn, "new_sizes");
    FailureOr<SmallVector<int64_t>> dims =
        intListParam(eqn, "dimensions", SmallVector<int64_t>{});
    if (failed(x) || failed(sizes) || failed(dims))
      return failure();
    Value input = (*x)[0];
    // `dimensions` permutes the operand before the row-major reshape.
    if (!dims->empty()) {
      Operation *t = TransposeOp::create(b, l, placeholder, input, *dims);
      if (failed(finishOp(t)))
        return failure();
      input = t->getResult(0);
    }
    Type element = cast<RankedTensorType>(input.getType()).getElementType();
    return finish(
        ReshapeOp::create(b, l, RankedTensorType::get(*sizes, element), input));
  }
  if (prim == "rev") {
    FailureOr<SmallVector<Value>> x = operands(1, 1);
    FailureOr<SmallVector<int64_t>> dims = intListParam(eqn, "dimensions");
    if (failed(x) || failed(dims))
      return failure();
    return finish(RevOp::create(b, l, (*x)[0].getType(), (*x)[0], *dims));
  }
  if (prim == "slice") {
    FailureOr<SmallVector<Value>> x = operands(1, 1);
    FailureOr<SmallVector<int64_t>> start = intListParam(eqn, "start_indices");
    FailureOr<SmallVector<int64_t>> limit = intListParam(eqn, "limit_indices");
    if (failed(x) || failed(start) || failed(limit))
      return failure();
    FailureOr<SmallVector<int64_t>> strides =
        intListParam(eqn, "strides", SmallVector<int64_t>(start->size(), 1));
    if (failed(strides))
      return failure();
    return finish(
        SliceOp::create(b, l, placeholder, (*x)[0], *start, *limit, *strides));
  }
  if (prim == "dynamic_slice") {
    FailureOr<SmallVector<Value>> x = operands(1, SIZE_MAX);
    FailureOr<SmallVector<int64_t>> sizes = intListParam(eqn, "slice_sizes");
    if (failed(x) || failed(sizes))
      return failure();
    return finish(DynamicSliceOp::create(b, l, placeholder, (*x)[0],
                                         ValueRange(*x).drop_front(), *sizes));
  }
  if (prim == "dynamic_update_slice") {
    FailureOr<SmallVector<Value>> x = operands(2, SIZE_MAX);
    if (failed(x))
      return failure();
    return finish(DynamicUpdateSliceOp::create(b, l, placeholder, (*x)[0], (*x)[1],
                                               ValueRange(*x).drop_front(2)));
  }
  if (prim == "concatenate") {
    FailureOr<SmallVector<Value>> x = operands(1, SIZE_MAX);
    FailureOr<int64_t> dim = intParam(eqn, "dimension");
    if (failed(x) || failed(dim))
      return failure();
    return finish(ConcatenateOp::create(b, l, placeholder, *x, *dim));
  }
  if (prim == "iota") {
    FailureOr<SmallVector<Value>> x = operands(0, 0);
    FailureOr<Type> dtype = dtypeParam(eqn, "dtype", /*optional=*/false);
    FailureOr<SmallVector<int64_t>> shape = intListParam(eqn, "shape");
    FailureOr<int64_t> dim = intParam(eqn, "dimension", 0);
    if (failed(x) || failed(dtype) || failed(shape) || failed(dim))
      return failure();
    return finish(IotaOp::create(b, l, RankedTensorType::get(*shape, *dtype), *dim));
  }
  handled = false;
  return failure();
}
