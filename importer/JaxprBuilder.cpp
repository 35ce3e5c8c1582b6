//===- JaxprBuilder.cpp - syntax tree to lax ops: structure ---------------===//
//
// Functions, scopes, calls (pjit), inlined calls (custom_jvp_call, ...),
// scan, while, cond, and the checks of binder type annotations. Each
// equation goes to its primitive's handler (JaxprPrimitives.h); this file
// registers the calls and control flow.
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
#include "llvm/ADT/StringExtras.h"
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
      .Cases({"i32", "int32"}, b.getI32Type())
      .Cases({"i64", "int64"}, b.getI64Type())
      .Cases({"u32", "uint32"}, IntegerType::get(context, 32, IntegerType::Unsigned))
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
                               << "' (supported: f16 bf16 f32 f64 bool i8 i32 i64 u32)";
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
      if (*annotated != value.getType())
        return emitError(binder.type->loc)
               << "type annotation " << formatType(*annotated) << " of '"
               << binder.name << "' does not match " << formatType(value.getType())
               << ", the type " << producer;
    }
    if (!binder.isDropped())
      scope[binder.name] = value;
  }
  return success();
}

LogicalResult JaxprBuilder::importBody(const Jaxpr &jaxpr, ArrayRef<Value> consts,
                                       ArrayRef<Value> args,
                                       SmallVectorImpl<Value> &results) {
  Scope scope;
  if (args.size() != jaxpr.invars.size())
    return emitError(jaxpr.loc) << "jaxpr takes " << jaxpr.invars.size()
                                << " inputs but is given " << args.size();
  if (failed(bindBinders(jaxpr.constvars, consts, scope, "of the constant")) ||
      failed(bindBinders(jaxpr.invars, args, scope, "of the value passed in")))
    return failure();
  for (const Equation &eqn : jaxpr.equations)
    if (failed(emitEquation(eqn, scope)))
      return failure();
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
  if (!handler)
    return emitError(eqn.primitiveLoc) << "unsupported jaxpr primitive '" << prim << "'";
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

FailureOr<SmallVector<Value>> JaxprBuilder::emitScan(const Equation &eqn, Scope &scope) {
  FailureOr<int64_t> numConsts = intParam(eqn, "num_consts");
  FailureOr<int64_t> numCarry = intParam(eqn, "num_carry");
  FailureOr<int64_t> length = intParam(eqn, "length");
  FailureOr<bool> reverse = boolParam(eqn, "reverse", false);
  FailureOr<const Jaxpr *> body = jaxprParam(eqn, {"jaxpr"});
  if (failed(numConsts) || failed(numCarry) || failed(length) || failed(reverse) ||
      failed(body))
    return failure();
  // unroll is an int, or a bool (True: unroll fully).
  int64_t unroll = 1;
  if (const Param *p = eqn.findParam("unroll")) {
    if (p->value.text == "True")
      unroll = std::max<int64_t>(*length, 1);
    else if (p->value.text != "False") {
      FailureOr<int64_t> u = intParam(eqn, "unroll");
      if (failed(u))
        return failure();
      unroll = *u;
    }
  }
  FailureOr<SmallVector<Value>> operands = allOperands(eqn, scope);
  if (failed(operands))
    return failure();
  if (*numConsts < 0 || *numCarry < 0 ||
      (int64_t)operands->size() < *numConsts + *numCarry)
    return emitError(eqn.primitiveLoc)
           << "scan has " << operands->size() << " operands, fewer than num_consts ("
           << *numConsts << ") + num_carry (" << *numCarry << ")";
  ArrayRef<Value> all(*operands);
  ArrayRef<Value> consts = all.take_front(*numConsts);
  ArrayRef<Value> inits = all.slice(*numConsts, *numCarry);
  ArrayRef<Value> xs = all.drop_front(*numConsts + *numCarry);
  for (auto [i, x] : llvm::enumerate(xs)) {
    auto type = cast<RankedTensorType>(x.getType());
    if (type.getRank() == 0 || type.getDimSize(0) != *length)
      return emitError(eqn.ins[*numConsts + *numCarry + i].loc)
             << "scanned operand has type " << formatType(type)
             << " but scan needs a leading dimension of length " << *length;
  }
  FailureOr<SmallVector<Value>> bodyConsts = constValues((*body)->constvars);
  if (failed(bodyConsts))
    return failure();

  bool bodyImported = true;
  auto buildBody = [&](OpBuilder &, Location, ValueRange constArgs, ValueRange carries,
                       ValueRange slices) -> SmallVector<Value> {
    SmallVector<Value> args(constArgs);
    llvm::append_range(args, carries);
    llvm::append_range(args, slices);
    setArgumentLocations(args, (*body)->invars);
    SmallVector<Value> outs;
    bodyImported = succeeded(importBody(**body, *bodyConsts, args, outs));
    if (bodyImported && (int64_t)outs.size() < *numCarry) {
      emitError((*body)->outsLoc) << "scan body returns " << outs.size()
                                  << " values, fewer than num_carry (" << *numCarry << ")";
      bodyImported = false;
    }
    for (int64_t i = 0; bodyImported && i < *numCarry; ++i) {
      if (outs[i].getType() == carries[i].getType())
        continue;
      emitError((*body)->outs[i].loc)
          << "scan body returns carry #" << i << " as " << formatType(outs[i].getType())
          << " but the carry is " << formatType(carries[i].getType());
      bodyImported = false;
    }
    // On failure yield just the carries so the scan stays well formed until erased.
    return bodyImported ? outs : SmallVector<Value>(carries);
  };
  auto scan = lax::ScanOp::create(builder, loc(eqn.loc), consts, inits, xs, *length,
                                  buildBody, *reverse);
  if (!bodyImported) {
    scan.erase();
    return failure();
  }
  scan.setUnroll(unroll);
  if (failed(finishOp(scan)))
    return failure();
  return SmallVector<Value>(scan.getResults());
}

LogicalResult JaxprBuilder::importRegion(
    const Jaxpr &jaxpr, Region &region, TypeRange argTypes, Location argLoc,
    SmallVectorImpl<Value> &outs,
    llvm::function_ref<LogicalResult(ValueRange, SmallVectorImpl<Value> &)> extend) {
  FailureOr<SmallVector<Value>> consts = constValues(jaxpr.constvars);
  if (failed(consts))
    return failure();
  OpBuilder::InsertionGuard guard(builder);
  SmallVector<Location> locs(argTypes.size(), argLoc);
  Block *block = builder.createBlock(&region, region.end(), argTypes, locs);
  // The jaxpr's invars are the trailing block arguments (a batched while's
  // body has the cond consts in front).
  ValueRange blockArgs = block->getArguments();
  SmallVector<Value> args(blockArgs.drop_front(
      std::max<int64_t>(0, (int64_t)blockArgs.size() - (int64_t)jaxpr.invars.size())));
  setArgumentLocations(args, jaxpr.invars);
  if (failed(importBody(jaxpr, *consts, args, outs)))
    return failure();
  if (extend && failed(extend(blockArgs, outs)))
    return failure();
  lax::YieldOp::create(builder, loc(jaxpr.outsLoc), outs);
  return success();
}

/// Whether any element of the bool tensor `pred` is true, as a bool scalar:
/// max over all axes of pred as int32, compared with 0.
static Value anyTrue(OpBuilder &b, Location loc, Value pred) {
  auto type = cast<RankedTensorType>(pred.getType());
  auto i32 = b.getI32Type();
  Value ints = kiln::lax::ConvertElementTypeOp::create(
      b, loc, RankedTensorType::get(type.getShape(), i32), pred);
  Value max = kiln::lax::ReduceMaxOp::create(
      b, loc, ints, llvm::to_vector(llvm::seq<int64_t>(0, type.getRank())));
  Value zero = kiln::lax::ConstantOp::create(b, loc, RankedTensorType::get({}, i32), 0.0);
  return kiln::lax::CompareOp::create(b, loc, kiln::lax::ComparisonDirection::GT, max, zero);
}

FailureOr<SmallVector<Value>> JaxprBuilder::emitWhile(const Equation &eqn, Scope &scope) {
  FailureOr<int64_t> numCondConsts = intParam(eqn, "cond_nconsts");
  FailureOr<int64_t> numBodyConsts = intParam(eqn, "body_nconsts");
  FailureOr<const Jaxpr *> cond = jaxprParam(eqn, {"cond_jaxpr"});
  FailureOr<const Jaxpr *> body = jaxprParam(eqn, {"body_jaxpr"});
  if (failed(numCondConsts) || failed(numBodyConsts) || failed(cond) || failed(body))
    return failure();
  FailureOr<SmallVector<Value>> operands = allOperands(eqn, scope);
  if (failed(operands))
    return failure();
  int64_t nc = *numCondConsts, nb = *numBodyConsts;
  if (nc < 0 || nb < 0 || (int64_t)operands->size() < nc + nb)
    return emitError(eqn.primitiveLoc)
           << "while has " << operands->size() << " operands, fewer than cond_nconsts ("
           << nc << ") + body_nconsts (" << nb << ")";
  ArrayRef<Value> all(*operands);
  ArrayRef<Value> condConsts = all.take_front(nc);
  ArrayRef<Value> bodyConsts = all.slice(nc, nb);
  ArrayRef<Value> inits = all.drop_front(nc + nb);
  SmallVector<Type> carryTypes(ValueRange(inits).getTypes());
  Location opLoc = loc(eqn.loc);
  for (auto [name, jaxpr, numConsts] :
       {std::make_tuple("cond_jaxpr", *cond, nc), std::make_tuple("body_jaxpr", *body, nb)})
    if ((int64_t)jaxpr->invars.size() != numConsts + (int64_t)inits.size())
      return emitError(jaxpr->loc)
             << "while " << name << " takes " << jaxpr->invars.size() << " inputs but "
             << (StringRef(name) == "cond_jaxpr" ? "cond_nconsts (" : "body_nconsts (")
             << numConsts << ") + " << inits.size() << " carries give "
             << numConsts + (int64_t)inits.size();

  auto op = lax::WhileOp::create(builder, opLoc, condConsts, bodyConsts, inits);
  auto fail = [&]() -> FailureOr<SmallVector<Value>> {
    op.erase();
    return failure();
  };

  // The cond region. Under vmap the predicate may be a bool array whose
  // shape prefixes every carry's (JAX batches the loop instead of splitting
  // it): the loop then runs while any element holds.
  RankedTensorType predType;
  auto checkPredicate = [&](ValueRange, SmallVectorImpl<Value> &outs) -> LogicalResult {
    const Jaxpr &j = **cond;
    if (outs.size() != 1)
      return emitError(j.outsLoc) << "while cond_jaxpr returns " << outs.size()
                                  << " values; expected one bool";
    predType = cast<RankedTensorType>(outs[0].getType());
    if (!predType.getElementType().isInteger(1))
      return emitError(j.outs[0].loc)
             << "while cond_jaxpr returns " << formatType(predType)
             << "; expected a bool scalar (or, under vmap, a bool array)";
    if (predType.getRank() == 0)
      return success();
    for (auto [k, type] : llvm::enumerate(carryTypes)) {
      auto carry = cast<RankedTensorType>(type);
      if (carry.getRank() < predType.getRank() ||
          carry.getShape().take_front(predType.getRank()) != predType.getShape())
        return emitError(j.outs[0].loc)
               << "while cond_jaxpr returns the batched predicate " << formatType(predType)
               << " but carry #" << k << " is " << formatType(carry)
               << ": the predicate's shape must prefix every carry's shape";
    }
    outs[0] = anyTrue(builder, loc(j.outs[0].loc), outs[0]);
    return success();
  };
  SmallVector<Type> condArgTypes(ValueRange(condConsts).getTypes());
  llvm::append_range(condArgTypes, carryTypes);
  SmallVector<Value> condOuts;
  if (failed(importRegion(**cond, op.getCond(), condArgTypes, opLoc, condOuts,
                          checkPredicate)))
    return fail();

  // A batched predicate also guards the body: each carry element keeps its
  // value once its predicate element is false. The body recomputes the
  // predicate on the carries it receives, so it also takes the cond consts
  // (in front of its own).
  bool batched = predType.getRank() > 0;
  if (batched) {
    op->insertOperands(nc, ValueRange(condConsts));
    op.setNumBodyConsts(nb + nc);
  }
  auto checkCarries = [&](ValueRange args, SmallVectorImpl<Value> &outs) -> LogicalResult {
    const Jaxpr &j = **body;
    if (outs.size() != carryTypes.size())
      return emitError(j.outsLoc) << "while body_jaxpr returns " << outs.size()
                                  << " values but the loop has " << carryTypes.size()
                                  << " carries";
    for (auto [i, pair] : llvm::enumerate(llvm::zip(outs, carryTypes))) {
      auto [out, type] = pair;
      if (out.getType() != type)
        return emitError(j.outs[i].loc)
               << "while body_jaxpr returns carry #" << i << " as "
               << formatType(out.getType()) << " but the carry is " << formatType(type);
    }
    if (!batched)
      return success();
    ValueRange carries = args.take_back(carryTypes.size());
    SmallVector<Value> condArgs(args.take_front(nc));
    llvm::append_range(condArgs, carries);
    FailureOr<SmallVector<Value>> consts = constValues((*cond)->constvars);
    SmallVector<Value> predOuts;
    if (failed(consts) || failed(importBody(**cond, *consts, condArgs, predOuts)))
      return failure();
    Location predLoc = loc((*cond)->outs[0].loc);
    auto dims = llvm::to_vector(llvm::seq<int64_t>(0, predType.getRank()));
    for (auto [k, carry] : llvm::enumerate(carries)) {
      auto carryType = cast<RankedTensorType>(carry.getType());
      Value which = lax::BroadcastInDimOp::create(
          builder, predLoc, RankedTensorType::get(carryType.getShape(), builder.getI1Type()),
          predOuts[0], carryType.getShape(), dims);
      outs[k] = lax::SelectNOp::create(builder, predLoc, which, ValueRange{carry, outs[k]});
    }
    return success();
  };
  SmallVector<Type> bodyArgTypes(op.getBodyConsts().getTypes());
  llvm::append_range(bodyArgTypes, carryTypes);
  SmallVector<Value> bodyOuts;
  if (failed(importRegion(**body, op.getBody(), bodyArgTypes, opLoc, bodyOuts, checkCarries)))
    return fail();
  if (failed(finishOp(op)))
    return failure();
  return SmallVector<Value>(op.getResults());
}

FailureOr<SmallVector<Value>> JaxprBuilder::emitCond(const Equation &eqn, Scope &scope) {
  const Param *param = requireParam(eqn, "branches");
  if (!param)
    return failure();
  if (param->value.kind != ParamValue::Kind::List)
    return emitError(param->value.loc)
           << "parameter 'branches' of 'cond' must be a tuple of jaxprs";
  SmallVector<const Jaxpr *> branches;
  for (auto [i, item] : llvm::enumerate(param->value.items)) {
    const Jaxpr *jaxpr = nullptr;
    if (item.kind == ParamValue::Kind::Jaxpr)
      jaxpr = item.jaxpr.get();
    else if (item.kind == ParamValue::Kind::Name)
      jaxpr = program.lookupNamed(item.text);
    if (!jaxpr)
      return emitError(item.loc) << "branch " << i
                                 << " of 'cond' must be a jaxpr or the name of one, got '"
                                 << (item.spelling.empty() ? StringRef(item.text) : item.spelling)
                                 << "'";
    branches.push_back(jaxpr);
  }
  if (branches.empty())
    return emitError(param->value.loc) << "'cond' has no branches";
  if (eqn.ins.empty())
    return emitError(eqn.primitiveLoc) << "'cond' needs an index operand";
  FailureOr<SmallVector<Value>> operands = allOperands(eqn, scope);
  if (failed(operands))
    return failure();
  Value index = operands->front();
  auto indexType = cast<RankedTensorType>(index.getType());
  Type element = indexType.getElementType();
  bool isBool = element.isInteger(1);
  if (indexType.getRank() != 0 || !(isBool || (element.isSignlessInteger(32))))
    return emitError(eqn.ins[0].loc) << "the index of 'cond' must be an i32 (or bool) "
                                        "scalar, got "
                                     << formatType(indexType);
  if (isBool && branches.size() != 2)
    return emitError(eqn.ins[0].loc) << "a bool index selects between 2 branches, but "
                                        "'cond' has "
                                     << branches.size();
  ValueRange branchOperands = ValueRange(*operands).drop_front();

  // Result types come from branch 0; the others must agree.
  size_t numResults = eqn.outs.size();
  SmallVector<Type> placeholders(numResults, RankedTensorType::get({}, builder.getF32Type()));
  auto op = lax::CondOp::create(builder, loc(eqn.loc), placeholders, index, branchOperands,
                                branches.size());
  for (auto [k, branch] : llvm::enumerate(branches)) {
    auto checkOutputs = [&, k = k, branch = branch](ValueRange,
                                                    SmallVectorImpl<Value> &outs) -> LogicalResult {
      if (outs.size() != numResults)
        return emitError(branch->outsLoc) << "cond branch " << k << " returns " << outs.size()
                                          << " values but the equation binds " << numResults;
      for (auto [i, out] : llvm::enumerate(outs)) {
        if (k == 0) {
          op->getResult(i).setType(out.getType());
          continue;
        }
        if (out.getType() != op->getResult(i).getType())
          return emitError(branch->outs[i].loc)
                 << "cond branch " << k << " returns " << formatType(out.getType())
                 << " as output #" << i << " but branch 0 returns "
                 << formatType(op->getResult(i).getType());
      }
      return success();
    };
    SmallVector<Value> outs;
    if (failed(importRegion(*branch, op.getBranches()[k], branchOperands.getTypes(),
                            loc(eqn.loc), outs, checkOutputs))) {
      op.erase();
      return failure();
    }
  }
  if (failed(finishOp(op)))
    return failure();
  return SmallVector<Value>(op.getResults());
}

//===----------------------------------------------------------------------===//
// Registry entries of calls and control flow
//===----------------------------------------------------------------------===//

namespace {
EmitResult emitCallPrimitive(PrimitiveEmitter &e) {
  return e.builder.emitCall(e.eqn, e.scope);
}

EmitResult emitInlinedPrimitive(PrimitiveEmitter &e) {
  return e.builder.emitInlined(e.eqn, e.scope);
}

EmitResult emitScanPrimitive(PrimitiveEmitter &e) {
  return e.builder.emitScan(e.eqn, e.scope);
}

EmitResult emitWhilePrimitive(PrimitiveEmitter &e) {
  return e.builder.emitWhile(e.eqn, e.scope);
}

EmitResult emitCondPrimitive(PrimitiveEmitter &e) {
  return e.builder.emitCond(e.eqn, e.scope);
}

/// copy, stop_gradient: the operands flow on unchanged.
EmitResult emitForward(PrimitiveEmitter &e) { return e.operands(1, SIZE_MAX); }

/// platform_index[platforms=(('mosaic',), None)]: the index of the entry
/// naming the CPU, else of the `None` entry (any other platform), as an i32
/// constant; `cond` then selects the branch Kiln runs.
EmitResult emitPlatformIndex(PrimitiveEmitter &e) {
  const Param *platforms = e.builder.requireParam(e.eqn, "platforms");
  if (failed(e.checkArity(0, 0)) || !platforms)
    return failure();
  std::optional<int64_t> index;
  for (auto [i, entry] : llvm::enumerate(platforms->value.items)) {
    bool isDefault = entry.kind == ParamValue::Kind::Name && entry.text == "None";
    bool namesCpu = llvm::any_of(entry.items, [](const ParamValue &p) {
      return p.kind == ParamValue::Kind::String && (p.text == "cpu" || p.text == "host");
    });
    if (namesCpu) {
      index = i;
      break;
    }
    if (isDefault && !index)
      index = i;
  }
  if (!index)
    return e.builder.emitError(platforms->value.loc)
           << "'platform_index' has no entry for the CPU and no default (None)";
  auto type = RankedTensorType::get({}, e.b.getI32Type());
  return e.finish(kiln::lax::ConstantOp::create(
      e.b, e.loc, DenseElementsAttr::get(type, e.b.getI32IntegerAttr(*index))));
}

/// optimization_barrier, which may also take no operand.
EmitResult emitOptimizationBarrier(PrimitiveEmitter &e) {
  return e.operands(0, SIZE_MAX);
}
} // namespace

void kiln::jaxpr::registerControlFlowPrimitives(PrimitiveTable &table) {
  addPrimitives(table, {
      {"pjit", emitCallPrimitive},
      {"jit", emitCallPrimitive},
      {"xla_call", emitCallPrimitive},
      {"closed_call", emitCallPrimitive},
      {"core_call", emitCallPrimitive},
      {"custom_jvp_call", emitInlinedPrimitive},
      {"custom_vjp_call", emitInlinedPrimitive},
      {"custom_jvp_call_jaxpr", emitInlinedPrimitive},
      {"custom_vjp_call_jaxpr", emitInlinedPrimitive},
      {"checkpoint", emitInlinedPrimitive},
      {"remat", emitInlinedPrimitive},
      {"remat2", emitInlinedPrimitive},
      {"scan", emitScanPrimitive},
      {"while", emitWhilePrimitive},
      {"cond", emitCondPrimitive},
      {"copy", emitForward},
      {"copy_p", emitForward},
      {"stop_gradient", emitForward},
      {"optimization_barrier", emitOptimizationBarrier},
      {"platform_index", emitPlatformIndex},
  });
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
