//===- JaxprControlFlow.cpp - scan, while, cond, calls in the registry ----===//
//
// The loop and branch primitives (scan, while, cond: lax region ops whose
// bodies are imported jaxprs) and the registry entries of every call and
// control-flow primitive. Functions, scopes and calls themselves are in
// JaxprBuilder.cpp.
//
//===----------------------------------------------------------------------===//
#include "importer/JaxprBuilder.h"
#include "importer/JaxprPrimitives.h"

#include "dialect/LaxControlFlowOps.h"
#include "dialect/LaxOps.h"

using namespace mlir;
using namespace kiln::jaxpr;
using llvm::SMLoc;
using llvm::StringRef;

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
    const Jaxpr *jaxpr = program.jaxprOf(item);
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

EmitResult emitLinearSolvePrimitive(PrimitiveEmitter &e) {
  return e.builder.emitLinearSolve(e.eqn, e.scope);
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

/// optimization_barrier, which may also take no operand, and device_put
/// (jax.device_put inside a traced function): each result is its operand.
/// device_put's `devices` and `srcs` name where the arrays live and
/// `copy_semantics` whether XLA may alias them; a Kiln function's values
/// all live in host memory and are never mutated, so a copy and the
/// original are indistinguishable.
EmitResult emitForwardAll(PrimitiveEmitter &e) {
  return e.operands(0, SIZE_MAX);
}

/// kiln_host_callback[index name] xs: the callback `index` of the program's
/// caller (python/kiln/_callbacks.py turns each pure_callback, io_callback
/// and debug_callback of a traced function into one, numbered). The
/// results are typed by their binders: a callback's result types are
/// whatever its equation declares.
EmitResult emitHostCallback(PrimitiveEmitter &e) {
  EmitResult x = e.operands(0, SIZE_MAX);
  FailureOr<int64_t> index = e.builder.intParam(e.eqn, "index");
  if (failed(x) || failed(index))
    return failure();
  std::string name = "callback";
  if (const Param *p = e.eqn.findParam("name"))
    name = p->value.text;
  SmallVector<Type> types;
  for (unsigned i = 0; i < e.eqn.outs.size(); ++i) {
    if (e.resultIsKey(i))
      return e.builder.emitError(e.eqn.primitiveLoc)
             << "a host callback's results cannot be PRNG key arrays";
    FailureOr<RankedTensorType> t = e.annotatedResultType(i);
    if (failed(t))
      return failure();
    types.push_back(*t);
  }
  return e.finish(kiln::lax::HostCallbackOp::create(e.b, e.loc, types, *x, *index, name));
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
      {"custom_linear_solve", emitLinearSolvePrimitive},
      {"copy", emitForward},
      {"copy_p", emitForward},
      {"stop_gradient", emitForward},
      // equinox: an identity whose cotangent is an error (forward only here).
      {"nondifferentiable_backward", emitForward},
      // equinox: an identity that fails under a transformation (JAX has
      // applied every transformation before Kiln sees the jaxpr).
      {"nontraceable", emitForward},
      {"optimization_barrier", emitForwardAll},
      {"device_put", emitForwardAll},
      {"platform_index", emitPlatformIndex},
      {"kiln_host_callback", emitHostCallback},
  });
}
