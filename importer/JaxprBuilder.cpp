//===- JaxprBuilder.cpp - syntax tree to lax ops: structure ---------------===//
//
// Functions, scopes, calls (pjit), inlined calls (custom_jvp_call, ...), and
// the checks of binder type annotations. Each equation goes to its
// primitive's handler (JaxprPrimitives.h); scan, while, cond and the registry
// entries of calls and control flow are in JaxprControlFlow.cpp.
//
// Constvars: those of the main jaxpr are the entry function's leading
// arguments. Those of nested closed jaxprs (a pjit body that closes over
// weights, a scan body) hold values only the caller knows, so they become
// arguments of the function that uses them, appended on first use; callers
// pass them along, up to the entry function.
//
//===----------------------------------------------------------------------===//
#include "importer/JaxprBuilder.h"
#include "importer/JaxprPrimitives.h"

#include "dialect/LaxControlFlowOps.h"
#include "dialect/LaxOps.h"

#include "mlir/IR/Verifier.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace kiln::jaxpr;
using llvm::SMLoc;
using llvm::StringRef;

JaxprBuilder::JaxprBuilder(llvm::SourceMgr &sourceMgr, MLIRContext *context,
                           const Program &program, const JaxprImportOptions &options)
    : sourceMgr(sourceMgr), context(context), program(program), options(options),
      builder(context) {}

//===----------------------------------------------------------------------===//
// Locations, diagnostics, types
//===----------------------------------------------------------------------===//

Location JaxprBuilder::loc(SMLoc where) {
  if (const SourcePosition *position = program.positionOf(where))
    return FileLineColLoc::get(context, position->file, position->line, position->column);
  unsigned buffer = sourceMgr.FindBufferContainingLoc(where);
  if (!buffer)
    return UnknownLoc::get(context);
  auto [line, column] = sourceMgr.getLineAndColumn(where, buffer);
  return FileLineColLoc::get(
      context, sourceMgr.getMemoryBuffer(buffer)->getBufferIdentifier(), line, column);
}

InFlightDiagnostic JaxprBuilder::emitError(SMLoc where) {
  return mlir::emitError(loc(where));
}

Type JaxprBuilder::convertDtype(StringRef dtype) {
  Builder b(context);
  return llvm::StringSwitch<Type>(dtype)
      .Cases({"f16", "float16"}, b.getF16Type())
      .Cases({"bf16", "bfloat16"}, b.getBF16Type())
      .Cases({"f32", "float32"}, b.getF32Type())
      .Cases({"f64", "float64"}, b.getF64Type())
      .Cases({"bool", "bool_"}, b.getI1Type())
      .Cases({"i8", "int8"}, b.getI8Type())
      .Cases({"i16", "int16"}, b.getI16Type())
      .Cases({"i32", "int32"}, b.getI32Type())
      .Cases({"i64", "int64"}, b.getI64Type())
      .Cases({"u8", "uint8"}, IntegerType::get(context, 8, IntegerType::Unsigned))
      .Cases({"u16", "uint16"}, IntegerType::get(context, 16, IntegerType::Unsigned))
      .Cases({"u32", "uint32"}, IntegerType::get(context, 32, IntegerType::Unsigned))
      .Cases({"u64", "uint64"}, IntegerType::get(context, 64, IntegerType::Unsigned))
      .Default(Type());
}

FailureOr<RankedTensorType> JaxprBuilder::convertType(const TypeAnnotation &type) {
  // A threefry key array key<fry>[dims] is its data, ui32[dims, 2] (what
  // random_unwrap returns); JaxprRandom.cpp.
  if (type.dtype == kThreefryKeyDtype) {
    SmallVector<int64_t> shape(type.shape);
    shape.push_back(2);
    return RankedTensorType::get(shape, IntegerType::get(context, 32, IntegerType::Unsigned));
  }
  Type element = convertDtype(type.dtype);
  if (!element)
    return emitError(type.loc) << "unsupported dtype '" << type.dtype
                               << "' (supported: f16 bf16 f32 f64 bool i8 i16 i32 i64 u8 u16 u32 u64)";
  return RankedTensorType::get(type.shape, element);
}

std::string JaxprBuilder::formatType(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return "?";
  Type e = tensor.getElementType();
  std::string s;
  if (e.isF16()) s = "f16";
  else if (e.isBF16()) s = "bf16";
  else if (e.isF32()) s = "f32";
  else if (e.isF64()) s = "f64";
  else if (e.isInteger(1)) s = "bool";
  else if (e.isUnsignedInteger()) s = "u" + std::to_string(e.getIntOrFloatBitWidth());
  else if (e.isInteger()) s = "i" + std::to_string(e.getIntOrFloatBitWidth());
  else {
    llvm::raw_string_ostream os(s);
    os << e;
  }
  s += "[";
  llvm::interleave(
      tensor.getShape(), [&](int64_t d) { s += std::to_string(d); }, [&] { s += ","; });
  return s + "]";
}

//===----------------------------------------------------------------------===//
// Module and functions
//===----------------------------------------------------------------------===//

OwningOpRef<ModuleOp> JaxprBuilder::build(ArrayRef<TypeAnnotation> inputTypes) {
  const Jaxpr &main = *program.main;
  OwningOpRef<ModuleOp> owned = ModuleOp::create(loc(main.loc));
  module = *owned;
  builder.setInsertionPointToEnd(module.getBody());

  // Types of the main binders: annotations, or --jaxpr-input-types.
  SmallVector<Binder> binders(main.constvars);
  llvm::append_range(binders, main.invars);
  if (!inputTypes.empty() && inputTypes.size() != binders.size()) {
    emitError(inputTypes.front().loc)
        << inputTypes.size() << " input types given but the jaxpr has "
        << binders.size() << " inputs (constvars and invars)";
    return nullptr;
  }
  SmallVector<Type> argTypes;
  for (auto [i, binder] : llvm::enumerate(binders)) {
    const TypeAnnotation *annotation =
        inputTypes.empty() ? (binder.type ? &*binder.type : nullptr) : &inputTypes[i];
    if (!annotation) {
      emitError(binder.loc) << "the type of input '" << binder.name
                            << "' is unknown: untyped jaxprs need --jaxpr-input-types";
      return nullptr;
    }
    FailureOr<RankedTensorType> type = convertType(*annotation);
    if (failed(type))
      return nullptr;
    argTypes.push_back(*type);
  }

  usedSymbols.insert(options.entryName);
  auto func = func::FuncOp::create(builder, loc(main.loc), options.entryName,
                                   builder.getFunctionType(argTypes, {}));
  Block *entry = func.addEntryBlock();
  FunctionState state;
  state.func = func;
  function = &state;
  builder.setInsertionPointToStart(entry);
  SmallVector<Value> args(entry->getArguments());
  setArgumentLocations(args, binders);
  SmallVector<Value> results;
  if (failed(importBody(main, ArrayRef<Value>(args).take_front(main.constvars.size()),
                        ArrayRef<Value>(args).drop_front(main.constvars.size()),
                        results)))
    return nullptr;
  func::ReturnOp::create(builder, loc(main.outsLoc), results);
  func.setType(builder.getFunctionType(entry->getArgumentTypes(),
                                       ValueRange(results).getTypes()));
  function = nullptr;
  if (failed(mlir::verify(module)))
    return nullptr;
  return owned;
}

void JaxprBuilder::setArgumentLocations(ArrayRef<Value> args,
                                        ArrayRef<Binder> binders) {
  for (auto [arg, binder] : llvm::zip(args, binders))
    cast<BlockArgument>(arg).setLoc(loc(binder.loc));
}

FailureOr<RankedTensorType> JaxprBuilder::constvarType(const Binder &constvar) {
  if (!constvar.type)
    return emitError(constvar.loc) << "the type of constvar '" << constvar.name
                                   << "' is unknown: constvars of nested jaxprs "
                                      "need a type annotation";
  return convertType(*constvar.type);
}

FailureOr<Value> JaxprBuilder::constValue(const Binder &constvar) {
  if (Value v = function->constValues.lookup(&constvar))
    return v;
  FailureOr<RankedTensorType> type = constvarType(constvar);
  if (failed(type))
    return failure();
  Value arg = function->func.getBody().front().addArgument(*type, loc(constvar.loc));
  function->constValues[&constvar] = arg;
  function->hoisted.push_back(&constvar);
  return arg;
}

FailureOr<SmallVector<Value>> JaxprBuilder::constValues(ArrayRef<Binder> constvars) {
  SmallVector<Value> values;
  for (const Binder &c : constvars) {
    FailureOr<Value> v = constValue(c);
    if (failed(v))
      return failure();
    values.push_back(*v);
  }
  return values;
}

std::string JaxprBuilder::uniqueSymbolName(StringRef base) {
  std::string name = base.str();
  for (int suffix = 1; usedSymbols.contains(name); ++suffix)
    name = (base + "_" + llvm::Twine(suffix)).str();
  usedSymbols.insert(name);
  return name;
}

/// A symbol name from a pjit `name`, which may be `<lambda>` or `vmap(f)`:
/// runs of other characters become one '_' (`vmap_f`, `lambda`).
static std::string sanitizeSymbolName(StringRef name) {
  std::string s;
  for (char c : name) {
    if (llvm::isAlnum(c) || c == '_' || c == '.')
      s += c;
    else if (!s.empty() && s.back() != '_')
      s += '_';
  }
  while (!s.empty() && s.back() == '_')
    s.pop_back();
  return s.empty() ? std::string("jaxpr") : s;
}

FailureOr<JaxprBuilder::FunctionRecord>
JaxprBuilder::getOrBuildFunction(const Jaxpr &jaxpr, StringRef name,
                                 ArrayRef<Type> argTypes) {
  for (const FunctionRecord &record : functionsOf.lookup(&jaxpr))
    if (ArrayRef<Type>(record.argTypes) == argTypes)
      return record;

  // Build the candidate just before the function that calls it.
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(function->func);
  static constexpr StringRef placeholder = "__kiln_candidate";
  SmallVector<Type> allArgTypes;
  SmallVector<const Binder *> ownConsts;
  for (const Binder &c : jaxpr.constvars) {
    FailureOr<RankedTensorType> type = constvarType(c);
    if (failed(type))
      return failure();
    allArgTypes.push_back(*type);
    ownConsts.push_back(&c);
  }
  llvm::append_range(allArgTypes, argTypes);
  auto func = func::FuncOp::create(builder, loc(jaxpr.loc), placeholder,
                                   builder.getFunctionType(allArgTypes, {}));
  func.setPrivate();
  Block *entry = func.addEntryBlock();
  FunctionState state;
  state.func = func;
  FunctionState *caller = function;
  function = &state;
  builder.setInsertionPointToStart(entry);
  SmallVector<Value> results;
  SmallVector<Value> args(entry->getArguments());
  setArgumentLocations(ArrayRef<Value>(args).take_front(ownConsts.size()),
                       jaxpr.constvars);
  setArgumentLocations(ArrayRef<Value>(args).drop_front(ownConsts.size()),
                       jaxpr.invars);
  LogicalResult imported =
      importBody(jaxpr, ArrayRef<Value>(args).take_front(ownConsts.size()),
                 ArrayRef<Value>(args).drop_front(ownConsts.size()), results);
  function = caller;
  if (failed(imported)) {
    func.erase();
    return failure();
  }
  func::ReturnOp::create(builder, loc(jaxpr.outsLoc), results);
  func.setType(builder.getFunctionType(entry->getArgumentTypes(),
                                       ValueRange(results).getTypes()));

  // Share the function with an identical body of the same name, if any.
  std::string body;
  llvm::raw_string_ostream os(body);
  func->print(os, OpPrintingFlags().useLocalScope());
  std::string base = sanitizeSymbolName(name);
  auto &bodies = bodiesByName[base];
  FunctionRecord record{func, SmallVector<Type>(argTypes), ownConsts, state.hoisted};
  auto same = llvm::find_if(bodies, [&](auto &entry) { return entry.first == body; });
  if (same != bodies.end()) {
    func.erase();
    record.func = same->second;
  } else {
    func.setSymName(uniqueSymbolName(base));
    bodies.emplace_back(std::move(body), func);
  }
  functionsOf[&jaxpr].push_back(record);
  return record;
}

//===----------------------------------------------------------------------===//
// Jaxpr bodies and equations
//===----------------------------------------------------------------------===//

LogicalResult JaxprBuilder::bindBinders(ArrayRef<Binder> binders, ArrayRef<Value> values,
                                        Scope &scope, StringRef producer) {
  for (auto [binder, value] : llvm::zip(binders, values)) {
    if (binder.type) {
      FailureOr<RankedTensorType> annotated = convertType(*binder.type);
      if (failed(annotated))
        return failure();
      // A dropped result whose callee printed its output as `_` too may
      // come from a different `_` there (optimistix): unused, so unchecked.
      if (binder.isDropped() && *annotated != value.getType())
        continue;
      if (*annotated != value.getType() && !appliedElementwise(*annotated, value.getType())) {
        InFlightDiagnostic diag = emitError(binder.type->loc)
                                  << "type annotation " << formatType(*annotated) << " of '"
                                  << binder.name << "' does not match "
                                  << formatType(value.getType()) << ", the type " << producer;
        if (elementwiseShape)
          diag << " (in the reducer of a reduce or reduce_window, which Kiln applies to whole "
                  "arrays: only elementwise primitives may appear there)";
        return diag;
      }
    }
    // A dropped binder `_` is unused, except where JAX prints a jaxpr's
    // output as `_` too (`in (_,)`, seen in jraph's programs): the latest
    // `_` is what that output reads.
    if (binder.isDropped()) {
      scope.insert_or_assign(binder.name, value);
      continue;
    }
    if (!scope.try_emplace(binder.name, value).second)
      return emitError(binder.loc) << "'" << binder.name
                                   << "' is defined twice in one jaxpr";
  }
  return success();
}

bool JaxprBuilder::appliedElementwise(RankedTensorType annotated, Type type) const {
  return elementwiseShape && annotated.getRank() == 0 &&
         type == RankedTensorType::get(*elementwiseShape, annotated.getElementType());
}

FailureOr<SmallVector<Value>> JaxprBuilder::applyElementwise(const Jaxpr &body,
                                                             ArrayRef<Value> args) {
  FailureOr<SmallVector<Value>> consts = constValues(body.constvars);
  if (failed(consts))
    return failure();
  SmallVector<int64_t> shape;
  if (!args.empty())
    llvm::append_range(shape, cast<RankedTensorType>(args.front().getType()).getShape());
  std::optional<SmallVector<int64_t>> outer = elementwiseShape;
  elementwiseShape = shape;
  llvm::scope_exit restore([&] { elementwiseShape = outer; });
  SmallVector<Value> results;
  if (failed(importBody(body, *consts, args, results)))
    return failure();
  // An output that does not depend on the arguments (a literal, a const) is
  // still rank 0.
  for (Value &result : results) {
    auto type = cast<RankedTensorType>(result.getType());
    if (type.getRank() == 0 && !shape.empty())
      result = lax::BroadcastInDimOp::create(builder, result.getLoc(), result, shape,
                                             ArrayRef<int64_t>{});
  }
  return results;
}

LogicalResult JaxprBuilder::importBody(const Jaxpr &jaxpr, ArrayRef<Value> consts,
                                       ArrayRef<Value> args,
                                       SmallVectorImpl<Value> &results) {
  SMLoc where = activeEquation ? activeEquation->loc : jaxpr.loc;
  if (llvm::is_contained(activeJaxprs, &jaxpr))
    return emitError(where) << "recursive jaxpr: this equation calls a jaxpr "
                               "that is already being imported (recursion is "
                               "not supported)";
  if (activeJaxprs.size() >= kMaxJaxprImportDepth)
    return emitError(where) << "nesting deeper than " << kMaxJaxprImportDepth
                            << " jaxprs (calls, inlined bodies and control-flow "
                               "regions, one inside the other)";
  activeJaxprs.push_back(&jaxpr);
  const Equation *outerEquation = activeEquation;
  llvm::scope_exit leave([&] {
    activeJaxprs.pop_back();
    activeEquation = outerEquation;
  });
  Scope scope;
  if (args.size() != jaxpr.invars.size())
    return emitError(jaxpr.loc) << "jaxpr takes " << jaxpr.invars.size()
                                << " inputs but is given " << args.size();
  if (failed(bindBinders(jaxpr.constvars, consts, scope, "of the constant")) ||
      failed(bindBinders(jaxpr.invars, args, scope, "of the value passed in")))
    return failure();
  // The names the jaxpr reads (each is bound once). JAX keeps equations
  // whose results nothing reads (a flax RNN's unused random_seed); one
  // whose primitive Kiln lacks is skipped rather than refused -- unless it
  // is a callback, run for its effect.
  llvm::StringSet<> read;
  for (const Equation &eqn : jaxpr.equations)
    for (const Atom &in : eqn.ins)
      if (!in.isLiteral())
        read.insert(in.name);
  for (const Atom &out : jaxpr.outs)
    if (!out.isLiteral())
      read.insert(out.name);
  auto isDead = [&](const Equation &eqn) {
    return !eqn.outs.empty() && !StringRef(eqn.primitive).contains("callback") &&
           llvm::none_of(eqn.outs, [&](const Binder &b) { return read.contains(b.name); });
  };
  for (const Equation &eqn : jaxpr.equations) {
    if (!lookupPrimitive(eqn.primitive) && isDead(eqn))
      continue;
    if (failed(emitEquation(eqn, scope)))
      return failure();
  }
  for (const Atom &out : jaxpr.outs) {
    FailureOr<Value> v = operand(out, scope);
    if (failed(v))
      return failure();
    results.push_back(*v);
  }
  return success();
}

LogicalResult JaxprBuilder::emitEquation(const Equation &eqn, Scope &scope) {
  StringRef prim = eqn.primitive;
  PrimitiveHandler handler = lookupPrimitive(prim);
  if (!handler) {
    InFlightDiagnostic diag = emitError(eqn.primitiveLoc)
                              << "unsupported jaxpr primitive '" << prim << "'";
    // Callbacks run Python: kiln.jit numbers them (kiln_host_callback) and
    // runs them; a jaxpr read from a file has no Python to call.
    // equinox's runtime checks (eqx.error_if, used by diffrax and lineax)
    // emit them in their default "raise" mode.
    if (prim == "pure_callback" || prim == "io_callback" || prim == "debug_callback")
      diag << " (a call back into Python: kiln.jit and kiln.rewrite run it, a jaxpr read "
              "from text cannot; equinox's runtime checks emit it unless traced with "
              "EQX_ON_ERROR=nan)";
    return diag;
  }
  activeEquation = &eqn;
  PrimitiveEmitter emitter(*this, eqn, scope);
  FailureOr<SmallVector<Value>> results = handler(emitter);
  if (failed(results))
    return failure();
  if (results->size() != eqn.outs.size())
    return emitError(eqn.loc) << "'" << prim << "' produces " << results->size()
                              << " values but the equation binds " << eqn.outs.size();
  return bindBinders(eqn.outs, *results, scope, ("'" + prim + "' produces").str());
}

FailureOr<SmallVector<Value>> JaxprBuilder::allOperands(const Equation &eqn,
                                                        Scope &scope) {
  SmallVector<Value> values;
  for (const Atom &atom : eqn.ins) {
    FailureOr<Value> v = operand(atom, scope);
    if (failed(v))
      return failure();
    values.push_back(*v);
  }
  return values;
}

FailureOr<SmallVector<Value>> JaxprBuilder::emitCall(const Equation &eqn, Scope &scope) {
  FailureOr<const Jaxpr *> callee = jaxprParam(eqn, {"jaxpr", "call_jaxpr"});
  FailureOr<SmallVector<Value>> operands = allOperands(eqn, scope);
  if (failed(callee) || failed(operands))
    return failure();
  std::string name = eqn.primitive;
  if (const Param *p = eqn.findParam("name"))
    name = p->value.spelling.str();
  SmallVector<Type> argTypes(ValueRange(*operands).getTypes());
  FailureOr<FunctionRecord> record =
      getOrBuildFunction(**callee, name, argTypes);
  if (failed(record))
    return failure();
  // Arguments: the callee's constvars, the operands, then what it captured.
  SmallVector<Value> args;
  auto appendConstValues = [&](ArrayRef<const Binder *> constvars) {
    for (const Binder *c : constvars) {
      FailureOr<Value> v = constValue(*c);
      if (failed(v))
        return failure();
      args.push_back(*v);
    }
    return success();
  };
  if (failed(appendConstValues(record->constvars)))
    return failure();
  llvm::append_range(args, *operands);
  if (failed(appendConstValues(record->hoisted)))
    return failure();
  auto call = func::CallOp::create(builder, loc(eqn.loc), record->func, args);
  return SmallVector<Value>(call.getResults());
}

FailureOr<SmallVector<Value>> JaxprBuilder::emitInlined(const Equation &eqn,
                                                        Scope &scope) {
  // The primal only: jvp/bwd rules and remat policies do not change values.
  FailureOr<const Jaxpr *> body =
      jaxprParam(eqn, {"call_jaxpr", "fun_jaxpr", "jaxpr"});
  FailureOr<SmallVector<Value>> operands = allOperands(eqn, scope);
  if (failed(body) || failed(operands))
    return failure();
  FailureOr<SmallVector<Value>> consts = constValues((*body)->constvars);
  if (failed(consts))
    return failure();
  SmallVector<Value> results;
  if (failed(importBody(**body, *consts, *operands, results)))
    return failure();
  return results;
}

FailureOr<SmallVector<Value>> JaxprBuilder::emitLinearSolve(const Equation &eqn, Scope &scope) {
  // const_lengths=_LinearSolveTuple(matvec=1, vecmat=1, solve=2,
  // transpose_solve=2) jaxprs=_LinearSolveTuple(matvec=..., solve=..., ...):
  // the operands are the four const groups in that order, then b.
  const Param *lengths = requireParam(eqn, "const_lengths");
  const Param *jaxprs = requireParam(eqn, "jaxprs");
  FailureOr<SmallVector<Value>> operands = allOperands(eqn, scope);
  if (!lengths || !jaxprs || failed(operands))
    return failure();
  auto item = [](const ParamValue &tuple, StringRef key) -> const ParamValue * {
    for (const ParamValue &v : tuple.items)
      if (v.key == key)
        return &v;
    return nullptr;
  };
  int64_t before = 0, count = 0, total = 0;
  for (StringRef key : {"matvec", "vecmat", "solve", "transpose_solve"}) {
    const ParamValue *v = item(lengths->value, key);
    if (!v || v->kind != ParamValue::Kind::Number)
      return emitError(lengths->value.loc)
             << "const_lengths of 'custom_linear_solve' must give " << key << "=<count>";
    FailureOr<SmallVector<int64_t>> n = intList(*v, "a const_lengths entry");
    if (failed(n) || n->size() != 1 || n->front() < 0)
      return failure();
    if (key == "solve") {
      before = total;
      count = n->front();
    }
    total += n->front();
  }
  const ParamValue *solveValue = item(jaxprs->value, "solve");
  const Jaxpr *solve = solveValue ? program.jaxprOf(*solveValue) : nullptr;
  if (!solve)
    return emitError(jaxprs->value.loc)
           << "jaxprs of 'custom_linear_solve' must give solve=<jaxpr>";
  if (total > int64_t(operands->size()))
    return emitError(eqn.primitiveLoc) << "'custom_linear_solve' has " << operands->size()
                                       << " operands, fewer than its " << total << " consts";
  SmallVector<Value> args(operands->begin() + before, operands->begin() + before + count);
  args.append(operands->begin() + total, operands->end());
  FailureOr<SmallVector<Value>> consts = constValues(solve->constvars);
  if (failed(consts))
    return failure();
  SmallVector<Value> results;
  if (failed(importBody(*solve, *consts, args, results)))
    return failure();
  return results;
}

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

LogicalResult JaxprBuilder::finishOp(Operation *op) {
  if (auto infer = dyn_cast<InferTypeOpInterface>(op)) {
    SmallVector<Type> types;
    if (failed(infer.inferReturnTypes(context, op->getLoc(), op->getOperands(),
                                      op->getRawDictionaryAttrs(),
                                      op->getPropertiesStorage(), op->getRegions(),
                                      types))) {
      op->erase();
      return failure();
    }
    for (auto [result, type] : llvm::zip(op->getResults(), types))
      result.setType(type);
  }
  if (failed(mlir::verify(op))) {
    op->erase();
    return failure();
  }
  return success();
}
