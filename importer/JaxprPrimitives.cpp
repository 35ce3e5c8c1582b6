//===- JaxprPrimitives.cpp - operands, parameters, primitive registry -----===//
//
// The helpers reading operands and parameters, the literal constants, and
// the registry mapping each primitive to its handler (JaxprPrimitives.h).
//
//===----------------------------------------------------------------------===//
#include "importer/JaxprPrimitives.h"
#include "importer/JaxprImporter.h"

#include "dialect/LaxOps.h"

#include "llvm/Support/ErrorHandling.h"

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
    // An integer literal must fit its type (`300` in an i8 context is an
    // error, not 44); a float literal truncates, saturating where a cast
    // would be undefined.
    int64_t value = atom.intValue;
    unsigned width = element.getIntOrFloatBitWidth();
    if (atom.kind == Atom::Kind::IntLiteral && width < 64) {
      bool fits = element.isInteger(1) || element.isUnsignedInteger()
                      ? value >= 0 && (uint64_t)value < (uint64_t(1) << width)
                      : value >= -(int64_t(1) << (width - 1)) &&
                            value < (int64_t(1) << (width - 1));
      if (!fits)
        return emitError(atom.loc)
               << "integer literal " << atom.name << " does not fit in "
               << StringRef(formatType(RankedTensorType::get({}, element))).drop_back(2)
               << " (range "
               << (element.isInteger(1) || element.isUnsignedInteger()
                       ? 0
                       : -(int64_t(1) << (width - 1)))
               << " to "
               << (element.isInteger(1) || element.isUnsignedInteger()
                       ? (int64_t(1) << width) - 1
                       : (int64_t(1) << (width - 1)) - 1)
               << ")";
    }
    if (atom.kind == Atom::Kind::IntLiteral && width == 64 &&
        element.isUnsignedInteger() && value < 0)
      return emitError(atom.loc) << "integer literal " << atom.name
                                 << " does not fit in an unsigned type";
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
  // The shape all operands take: that of the variables of the highest rank,
  // where size-1 dimensions stretch (current JAX prints `sub a:f32[8,32]
  // e:f32[8,1]`, numpy's broadcasting of equal ranks).
  SmallVector<int64_t> shape;
  Type likeElement;
  int64_t rank = -1;
  SmallVector<Value> values(atoms.size());
  for (auto [atom, value] : llvm::zip(atoms, values)) {
    if (atom.isLiteral())
      continue;
    FailureOr<Value> v = operand(atom, scope);
    if (failed(v))
      return failure();
    value = *v;
    auto type = cast<RankedTensorType>(value.getType());
    if (type.getRank() > rank) {
      rank = type.getRank();
      shape = llvm::to_vector(type.getShape());
      likeElement = type.getElementType();
    } else if (type.getRank() == rank) {
      for (auto [s, d] : llvm::zip(shape, type.getShape()))
        if (s == 1)
          s = d;
    }
  }
  RankedTensorType like =
      rank < 0 ? RankedTensorType() : RankedTensorType::get(shape, likeElement);
  for (auto [atom, value] : llvm::zip(atoms, values)) {
    if (atom.isLiteral()) {
      FailureOr<Value> v = operand(atom, scope, like);
      if (failed(v))
        return failure();
      value = *v;
      continue;
    }
    auto type = cast<RankedTensorType>(value.getType());
    if (type.getShape() == like.getShape())
      continue;
    // A scalar broadcasts to every position; an operand of equal rank keeps
    // its dimensions, stretching those of size 1 (the verifier reports
    // other mismatches).
    SmallVector<int64_t> dims;
    if (type.getRank() == like.getRank()) {
      if (llvm::any_of(llvm::zip(type.getShape(), like.getShape()), [](auto sizes) {
            auto [size, target] = sizes;
            return size != 1 && size != target;
          }))
        continue;
      dims = llvm::to_vector(llvm::seq<int64_t>(0, like.getRank()));
    } else if (type.getRank() != 0) {
      continue;
    }
    value = lax::BroadcastInDimOp::create(builder, loc(atom.loc), value,
                                          like.getShape(), dims);
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

/// `3`, or `np.int64(3)` as numpy scalars print.
static std::optional<int64_t> integerValue(const ParamValue &v) {
  if (v.kind == ParamValue::Kind::Call && v.items.size() == 1 &&
      StringRef(v.text).starts_with("np."))
    return integerValue(v.items.front());
  int64_t i;
  if (v.kind != ParamValue::Kind::Number || StringRef(v.text).getAsInteger(10, i))
    return std::nullopt;
  return i;
}

FailureOr<int64_t> JaxprBuilder::intParam(const Equation &eqn, StringRef name,
                                          std::optional<int64_t> byDefault) {
  const Param *p = eqn.findParam(name);
  if (!p && byDefault)
    return *byDefault;
  if (!p && !requireParam(eqn, name))
    return failure();
  std::optional<int64_t> value = integerValue(p->value);
  if (!value)
    return emitError(p->value.loc) << "parameter '" << name << "' of '" << eqn.primitive
                                   << "' must be an integer";
  return *value;
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
    std::optional<int64_t> i = integerValue(v);
    if (i)
      ints.push_back(*i);
    return i.has_value();
  };
  // Python's range(stop), range(start, stop[, step]) as printed inside
  // dimension numbers (`update_window_dims=range(0, 0)`).
  if (value.kind == ParamValue::Kind::Call && value.text == "range" &&
      !value.items.empty() && value.items.size() <= 3) {
    SmallVector<int64_t> args;
    for (const ParamValue &item : value.items)
      if (std::optional<int64_t> i = integerValue(item); i && item.key.empty())
        args.push_back(*i);
    if (args.size() == value.items.size()) {
      int64_t start = args.size() > 1 ? args[0] : 0, stop = args.size() > 1 ? args[1] : args[0];
      int64_t step = args.size() > 2 ? args[2] : 1;
      if (step != 0 && std::abs(stop - start) / std::abs(step) <= (int64_t(1) << 20)) {
        for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step)
          ints.push_back(i);
        return ints;
      }
    }
  }
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
    if (const Jaxpr *jaxpr = program.jaxprOf(p->value))
      return jaxpr;
    return emitError(p->value.loc) << "parameter '" << name << "' of '"
                                   << eqn.primitive
                                   << "' must be a jaxpr or the name of one";
  }
  return emitError(eqn.primitiveLoc) << "'" << eqn.primitive << "' needs parameter '"
                                     << names.front() << "'";
}

//===----------------------------------------------------------------------===//
// The primitive registry
//===----------------------------------------------------------------------===//

PrimitiveEmitter::PrimitiveEmitter(JaxprBuilder &builder, const Equation &eqn,
                                   Scope &scope)
    : builder(builder), eqn(eqn), scope(scope), b(builder.opBuilder()),
      loc(builder.loc(eqn.loc)),
      placeholder(RankedTensorType::get({}, b.getF32Type())) {}

LogicalResult PrimitiveEmitter::checkArity(size_t min, size_t max) {
  size_t n = eqn.ins.size();
  if (n >= min && n <= max)
    return success();
  auto diag = builder.emitError(eqn.primitiveLoc) << "'" << primitive() << "' takes ";
  if (min == max)
    diag << min;
  else if (max == SIZE_MAX)
    diag << "at least " << min;
  else
    diag << min << " to " << max;
  return diag << " operand" << (min == 1 && max == 1 ? "" : "s") << ", got " << n;
}

EmitResult PrimitiveEmitter::operands(size_t min, size_t max) {
  if (failed(checkArity(min, max)))
    return failure();
  return builder.allOperands(eqn, scope);
}

EmitResult PrimitiveEmitter::elementwise(size_t n) {
  if (failed(checkArity(n, n)))
    return failure();
  return builder.elementwiseOperands(eqn, scope);
}

FailureOr<RankedTensorType> PrimitiveEmitter::annotatedResultType(unsigned i) {
  if (i < eqn.outs.size() && eqn.outs[i].type)
    return builder.convertType(*eqn.outs[i].type);
  return builder.emitError(eqn.primitiveLoc)
         << "'" << primitive() << "' without its parameters needs the type of result #"
         << i << " written in the jaxpr";
}

EmitResult PrimitiveEmitter::finish(Operation *op) {
  if (failed(builder.finishOp(op)))
    return failure();
  return SmallVector<Value>(op->getResults());
}

FailureOr<Value> PrimitiveEmitter::built(Operation *op) {
  if (failed(builder.finishOp(op)))
    return failure();
  return op->getResult(0);
}

// The lists of a `<callee>(key=(...), ...)` dimension_numbers parameter:
// `required` keys must be present, `optional` ones default to ().
FailureOr<llvm::StringMap<SmallVector<int64_t>>>
kiln::jaxpr::dimensionNumbers(PrimitiveEmitter &e, StringRef callee,
                               ArrayRef<StringRef> required, ArrayRef<StringRef> optional) {
  const Param *p = e.builder.requireParam(e.eqn, "dimension_numbers");
  if (!p)
    return failure();
  const ParamValue &v = p->value;
  if (v.kind != ParamValue::Kind::Call || v.text != callee)
    return e.builder.emitError(v.loc) << "dimension_numbers of '" << e.primitive()
                                      << "' must be " << callee << "(...)";
  llvm::StringMap<SmallVector<int64_t>> lists;
  for (const ParamValue &item : v.items) {
    if (!llvm::is_contained(required, item.key) && !llvm::is_contained(optional, item.key))
      return e.builder.emitError(item.loc)
             << "unknown field '" << item.key << "' of " << callee;
    FailureOr<SmallVector<int64_t>> list = e.builder.intList(item, item.key);
    if (failed(list))
      return failure();
    lists[item.key] = *list;
  }
  for (StringRef key : required)
    if (!lists.count(key))
      return e.builder.emitError(v.loc) << callee << " needs '" << key << "'";
  for (StringRef key : optional)
    lists.try_emplace(key);
  return lists;
}

FailureOr<ReducerOperands> kiln::jaxpr::reducerOperands(PrimitiveEmitter &e) {
  size_t n = e.eqn.ins.size() / 2;
  if (e.eqn.ins.empty() || e.eqn.ins.size() % 2)
    return e.builder.emitError(e.eqn.primitiveLoc)
           << "'" << e.primitive() << "' takes operands and as many init values, got "
           << e.eqn.ins.size() << " inputs";
  EmitResult x = e.operands(2 * n, 2 * n);
  if (failed(x))
    return failure();
  ReducerOperands out{SmallVector<Value>(ArrayRef<Value>(*x).take_front(n)),
                      SmallVector<Value>(ArrayRef<Value>(*x).drop_front(n))};
  auto type = cast<RankedTensorType>(out.operands.front().getType());
  for (size_t i = 0; i < n; ++i) {
    auto operandType = cast<RankedTensorType>(out.operands[i].getType());
    auto initType = cast<RankedTensorType>(out.inits[i].getType());
    if (operandType.getShape() != type.getShape() || initType.getRank() != 0 ||
        initType.getElementType() != operandType.getElementType())
      return e.builder.emitError(e.eqn.ins[i].loc)
             << "'" << e.primitive() << "': operand #" << i << " ("
             << JaxprBuilder::formatType(operandType) << ") and its init value ("
             << JaxprBuilder::formatType(initType)
             << ") must be an array of the first operand's shape and a scalar of its dtype";
  }
  return out;
}

Value kiln::jaxpr::reductionIdentity(PrimitiveEmitter &e, ReductionIdentity identity,
                                     RankedTensorType type) {
  Type elem = type.getElementType();
  Attribute scalar;
  if (auto f = dyn_cast<FloatType>(elem)) {
    double v = identity == ReductionIdentity::Zero    ? 0.0
               : identity == ReductionIdentity::One   ? 1.0
               : identity == ReductionIdentity::Lowest ? -INFINITY
                                                      : INFINITY;
    scalar = FloatAttr::get(f, v);
  } else {
    unsigned w = elem.getIntOrFloatBitWidth();
    // Bools order false < true, as unsigned numbers.
    bool uns = elem.isUnsignedInteger() || w == 1;
    APInt v = identity == ReductionIdentity::Zero    ? APInt(w, 0)
              : identity == ReductionIdentity::One   ? APInt(w, 1)
              : identity == ReductionIdentity::Highest
                  ? (uns ? APInt::getMaxValue(w) : APInt::getSignedMaxValue(w))
                  : (uns ? APInt::getMinValue(w) : APInt::getSignedMinValue(w));
    scalar = IntegerAttr::get(elem, v);
  }
  return lax::ConstantOp::create(e.b, e.loc, DenseElementsAttr::get(type, scalar));
}

void kiln::jaxpr::addPrimitives(PrimitiveTable &table,
                                std::initializer_list<PrimitiveEntry> entries) {
  for (const PrimitiveEntry &entry : entries)
    if (!table.try_emplace(entry.name, entry.handler).second)
      llvm::reportFatalInternalError("jaxpr primitive '" + entry.name +
                                     "' registered twice");
}

static PrimitiveTable buildPrimitiveTable() {
  PrimitiveTable table;
  registerElementwisePrimitives(table);
  registerComparisonPrimitives(table);
  registerReductionPrimitives(table);
  registerShapePrimitives(table);
  registerConvolutionPrimitives(table);
  registerWindowPrimitives(table);
  registerSortPrimitives(table);
  registerContractionPrimitives(table);
  registerDecompositionPrimitives(table);
  registerControlFlowPrimitives(table);
  registerIndexingPrimitives(table);
  registerRandomPrimitives(table);
  registerSpecialFunctionPrimitives(table);
  return table;
}

static const PrimitiveTable &primitiveTable() {
  static const PrimitiveTable table = buildPrimitiveTable();
  return table;
}

PrimitiveHandler kiln::jaxpr::lookupPrimitive(StringRef name) {
  return primitiveTable().lookup(name);
}

std::vector<std::string> kiln::importablePrimitives() {
  std::vector<std::string> names;
  for (const auto &entry : primitiveTable())
    names.push_back(entry.getKey().str());
  llvm::sort(names);
  return names;
}
