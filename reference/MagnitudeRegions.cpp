//===- MagnitudeRegions.cpp - shadows through regions and calls -----------===//
//
// The magnitude version (Magnitude.cpp) of lax.scan, lax.while, lax.cond and
// func.call: the same op also carrying (passing, yielding) the shadows of
// its float operands and results, a call of the callee's shadowed copy;
// then the entry function and magnitudes() of Comparison.h.
//
//===----------------------------------------------------------------------===//
#include "reference/Comparison.h"
#include "reference/Interpreter.h"
#include "reference/MagnitudeShadower.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::interp;
using namespace kiln::interp::magnitude;

void Shadower::shadowScan(lax::ScanOp scan) {
  Block &body = scan.getBodyBlock();
  unsigned numConsts = scan.getNumConsts(), numCarry = scan.getNumCarry();
  SmallVector<Value> consts(scan.getConsts()), inits(scan.getInits()), xs(scan.getXs());
  SmallVector<BlockArgument> constArgs(scan.getConstArgs()), carryArgs(scan.getCarryArgs()),
      xArgs(scan.getXSliceArgs());
  auto floatOnes = [](ValueRange values) {
    SmallVector<unsigned> indices;
    for (auto [i, v] : llvm::enumerate(values))
      if (isFloatValue(v))
        indices.push_back(i);
    return indices;
  };
  SmallVector<unsigned> fConsts = floatOnes(consts), fCarries = floatOnes(inits),
                        fXs = floatOnes(xs);

  // Operands and the body's arguments: consts, S(consts), carries,
  // S(carries), xs, S(xs); the body yields carries, S(carries), ys slices,
  // S(ys slices); results are carries, S(carries), ys, S(ys).
  addShadowArguments(body, consts, constArgs, numConsts);
  addShadowArguments(body, inits, carryArgs, numConsts + fConsts.size() + numCarry);
  addShadowArguments(body, xs, xArgs);
  shadowBlock(body);
  Operation *yield = body.getTerminator();
  SmallVector<Value> yielded(yield->getOperands());
  ValueRange newCarries = ValueRange(yielded).take_front(numCarry);
  ValueRange ysSlices = ValueRange(yielded).drop_front(numCarry);
  SmallVector<unsigned> fYs = floatOnes(ysSlices);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(yield);
    SmallVector<Value> operands = withShadows(newCarries);
    llvm::append_range(operands, withShadows(ysSlices));
    yield->setOperands(operands);
  }

  SmallVector<Value> args = withShadows(consts);
  llvm::append_range(args, withShadows(inits));
  llvm::append_range(args, withShadows(xs));
  SmallVector<int64_t> xsAxes(scan.getXsAxes()), ysAxes(scan.getYsAxes());
  for (unsigned i : fXs)
    xsAxes.push_back(scan.getXsAxis(i));
  for (unsigned i : fYs)
    ysAxes.push_back(scan.getYsAxis(i));
  ResultRange finals = scan.getFinalCarries(), ys = scan.getYs();
  SmallVector<Type> resultTypes(finals.getTypes());
  for (unsigned i : fCarries)
    resultTypes.push_back(finals[i].getType());
  llvm::append_range(resultTypes, ys.getTypes());
  for (unsigned i : fYs)
    resultTypes.push_back(ys[i].getType());

  b.setInsertionPoint(scan);
  auto shadowed = lax::ScanOp::create(b, scan.getLoc(), resultTypes, args, scan.getLength(),
                                      numConsts + fConsts.size(), numCarry + fCarries.size(),
                                      scan.getReverse(), scan.getUnroll(), xsAxes, ysAxes);
  shadowed->setDiscardableAttrs(scan->getDiscardableAttrDictionary());
  shadowed->setAttr(kShadowAttr, b.getUnitAttr());
  shadowed.getBody().takeBody(scan.getBody());
  ResultRange results = shadowed->getResults();
  unsigned numCarries = numCarry + fCarries.size(), numYs = ys.size();
  for (auto [j, i] : llvm::enumerate(fCarries))
    shadows[results[i]] = results[numCarry + j];
  for (auto [j, i] : llvm::enumerate(fYs))
    shadows[results[numCarries + i]] = results[numCarries + numYs + j];
  for (unsigned i = 0; i < numCarry; ++i)
    finals[i].replaceAllUsesWith(results[i]);
  for (unsigned i = 0; i < numYs; ++i)
    ys[i].replaceAllUsesWith(results[numCarries + i]);
  scan.erase();
}

SmallVector<Value> Shadower::withShadows(ValueRange values) {
  SmallVector<Value> result(values);
  for (Value v : values)
    if (isFloatValue(v))
      result.push_back(shadowOf(v));
  return result;
}

void Shadower::addShadowArguments(Block &block, ArrayRef<Value> values,
                                  ArrayRef<BlockArgument> args, std::optional<unsigned> at) {
  for (auto [v, arg] : llvm::zip(values, args))
    if (isFloatValue(v))
      shadows[arg] = at ? block.insertArgument((*at)++, arg.getType(), arg.getLoc())
                        : block.addArgument(arg.getType(), arg.getLoc());
}

void Shadower::yieldShadows(Operation *terminator) {
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(terminator);
  terminator->setOperands(withShadows(terminator->getOperands()));
}

void Shadower::shadowWhile(lax::WhileOp loop) {
  // Operands: cond consts, body consts, S(float body consts), carries,
  // S(float carries). The cond region only computes the predicate: it gets
  // the carries' shadows as arguments and no shadows of its own.
  SmallVector<Value> bodyConsts(loop.getBodyConsts()), inits(loop.getInits());
  SmallVector<BlockArgument> condCarries(loop.getCondCarryArgs()),
      bodyConstArgs(loop.getBodyConstArgs()), bodyCarries(loop.getBodyCarryArgs());
  Block &condBlock = loop.getCondBlock(), &bodyBlock = loop.getBodyBlock();
  for (auto [v, arg] : llvm::zip(inits, condCarries))
    if (isFloatValue(v))
      condBlock.addArgument(arg.getType(), arg.getLoc());
  unsigned numBodyConsts = loop.getNumBodyConsts();
  addShadowArguments(bodyBlock, bodyConsts, bodyConstArgs, numBodyConsts);
  addShadowArguments(bodyBlock, inits, bodyCarries);
  shadowBlock(bodyBlock);
  yieldShadows(bodyBlock.getTerminator());

  SmallVector<Value> newBodyConsts = withShadows(bodyConsts);
  b.setInsertionPoint(loop);
  auto shadowed = lax::WhileOp::create(b, loop.getLoc(), loop.getCondConsts(), newBodyConsts,
                                       withShadows(inits));
  shadowed->setDiscardableAttrs(loop->getDiscardableAttrDictionary());
  shadowed->setAttr(kShadowAttr, b.getUnitAttr());
  shadowed.getCond().takeBody(loop.getCond());
  shadowed.getBody().takeBody(loop.getBody());
  ResultRange results = shadowed->getResults();
  unsigned next = inits.size();
  for (auto [i, r] : llvm::enumerate(loop.getResults())) {
    r.replaceAllUsesWith(results[i]);
    if (isFloatValue(r))
      shadows[results[i]] = results[next++];
  }
  loop.erase();
}

void Shadower::shadowCond(lax::CondOp cond) {
  SmallVector<Value> operands(cond.getBranchOperands());
  for (Region &branch : cond.getBranches()) {
    Block &block = branch.front();
    SmallVector<BlockArgument> args(block.getArguments());
    addShadowArguments(block, operands, args);
    shadowBlock(block);
    yieldShadows(block.getTerminator());
  }
  SmallVector<Type> resultTypes(cond.getResultTypes());
  for (Value r : cond.getResults())
    if (isFloatValue(r))
      resultTypes.push_back(r.getType());
  b.setInsertionPoint(cond);
  auto shadowed = lax::CondOp::create(b, cond.getLoc(), resultTypes, cond.getIndex(),
                                      withShadows(operands), cond.getNumBranches());
  shadowed->setDiscardableAttrs(cond->getDiscardableAttrDictionary());
  shadowed->setAttr(kShadowAttr, b.getUnitAttr());
  for (auto [to, from] : llvm::zip(shadowed.getBranches(), cond.getBranches()))
    to.takeBody(from);
  ResultRange results = shadowed->getResults();
  unsigned next = cond.getNumResults();
  for (auto [i, r] : llvm::enumerate(cond.getResults())) {
    r.replaceAllUsesWith(results[i]);
    if (isFloatValue(r))
      shadows[results[i]] = results[next++];
  }
  cond.erase();
}

func::FuncOp Shadower::shadowedCallee(func::FuncOp f) {
  if (f.isExternal() || !f.getBody().hasOneBlock())
    return nullptr;
  auto it = shadowedCallees.find(f);
  if (it != shadowedCallees.end())
    return it->second;
  func::FuncOp g = f.clone();
  g.setName((f.getSymName() + "__shadowed").str());
  g.setPrivate();
  symbols.insert(g); // renames it if the name is taken
  shadowedCallees[f] = g;

  Block &body = g.getBody().front();
  SmallVector<BlockArgument> args(body.getArguments());
  addShadowArguments(body, SmallVector<Value>(args.begin(), args.end()), args);
  shadowBlock(body);
  Operation *ret = body.getTerminator();
  yieldShadows(ret);
  g.setType(FunctionType::get(g.getContext(), body.getArgumentTypes(), ret->getOperandTypes()));
  return g;
}

void Shadower::shadowCall(func::CallOp call) {
  auto callee = dyn_cast_or_null<func::FuncOp>(
      SymbolTable::lookupNearestSymbolFrom(call, call.getCalleeAttr()));
  func::FuncOp g = callee ? shadowedCallee(callee) : nullptr;
  if (!g)
    return unknown(call);
  b.setInsertionPoint(call);
  auto shadowed = func::CallOp::create(b, call.getLoc(), g, withShadows(call.getOperands()));
  unsigned next = call.getNumResults();
  for (auto [i, r] : llvm::enumerate(call.getResults())) {
    r.replaceAllUsesWith(shadowed.getResult(i));
    if (isFloatValue(r))
      shadows[shadowed.getResult(i)] = shadowed.getResult(next++);
  }
  call.erase();
}

FailureOr<func::FuncOp> Shadower::magnitudeFunction(func::FuncOp entry) {
  if (entry.isExternal() || !entry.getBody().hasOneBlock())
    return failure();
  func::FuncOp g = entry.clone();
  g.setName((entry.getSymName() + "__magnitudes").str());
  g.setPublic();
  symbols.insert(g);
  Block &body = g.getBody().front();
  SmallVector<Operation *> ops = opsOf(body);
  b.setInsertionPointToStart(&body);
  loc = g.getLoc();
  for (BlockArgument arg : body.getArguments())
    if (isFloatValue(arg))
      shadows[arg] = exact(arg);
  shadowOps(ops);
  Operation *ret = body.getTerminator();
  SmallVector<Value> operands;
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ret);
    for (Value v : ret->getOperands())
      operands.push_back(isFloatValue(v) ? shadowOf(v) : v);
  }
  ret->setOperands(operands);
  // What only the original results needed goes (when nothing else uses it).
  SmallVector<Operation *> all = opsOf(body);
  for (Operation *op : llvm::reverse(all))
    if (isOpTriviallyDead(op))
      op->erase();
  return g;
}

OwningOpRef<ModuleOp> kiln::interp::magnitudeModule(ModuleOp module, StringRef entry,
                                                    std::string &function, std::string &error) {
  OwningOpRef<ModuleOp> copy(module.clone());
  auto func = dyn_cast_or_null<func::FuncOp>(SymbolTable::lookupSymbolIn(*copy, entry));
  if (!func) {
    error = ("no function named '" + entry + "'").str();
    return nullptr;
  }
  Shadower shadower(*copy);
  FailureOr<func::FuncOp> g = shadower.magnitudeFunction(func);
  if (failed(g)) {
    error = ("@" + entry + " has no single-block body").str();
    return nullptr;
  }
  std::string messages;
  {
    ScopedDiagnosticHandler handler(copy->getContext(), [&](Diagnostic &d) {
      messages += d.str() + "\n";
      return success();
    });
    if (failed(verify(*copy))) {
      error = "the magnitude version of @" + entry.str() + " does not verify: " + messages;
      return nullptr;
    }
  }
  function = g->getSymName().str();
  return copy;
}

FailureOr<SmallVector<Tensor>> kiln::interp::magnitudes(ModuleOp module, StringRef entry,
                                                        ArrayRef<Tensor> inputs,
                                                        std::string &error) {
  std::string function;
  OwningOpRef<ModuleOp> copy = magnitudeModule(module, entry, function, error);
  if (!copy)
    return failure();
  std::string messages;
  ScopedDiagnosticHandler handler(copy->getContext(), [&](Diagnostic &d) {
    messages += d.str() + "\n";
    return success();
  });
  // The original computation runs as the reference runs it, rounded to its
  // types, so that the shadows' derivatives and |r| are taken at the values
  // the comparison measures against; the shadows run in double. (With the
  // whole run in double, an ill-conditioned rounding moved the point: a
  // program converting 2147483646 to f32, 2^31, then taking
  // pow(FLT_MAX, cos(x)): 1.46e9 in f32, 1.4e-38 at the double 2147483646,
  // so S = 2.7e-27 < |ref| and a JIT 5 ulps off in cos, amplified 21-fold
  // by pow as the first-order rule allows, failed;
  // tests/differential/regressions/magnitude-rounded-point.mlir and
  // ComparisonTest.MagnitudesAtTheReferencesRoundedValues.)
  InterpreterOptions options;
  options.unroundedAttr = kShadowAttr;
  FailureOr<SmallVector<Tensor>> result = interpret(*copy, function, inputs, options);
  if (failed(result)) {
    error = "the interpreter cannot run the magnitude version of @" + entry.str() + ": " + messages;
    return failure();
  }
  return result;
}
