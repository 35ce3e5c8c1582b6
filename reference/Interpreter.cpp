//===- Interpreter.cpp - the reference interpreter of lax -----------------===//
#include "reference/Evaluator.h"

#include "dialect/LaxDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/ScopeExit.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::interp;

const Tensor &Evaluator::lookup(Value v) const {
  for (const auto &scope : llvm::reverse(scopes)) {
    auto it = scope.find(v);
    if (it != scope.end())
      return it->second;
  }
  llvm::report_fatal_error("interpreter: value used before it was computed");
}

FailureOr<SmallVector<Tensor>> Evaluator::runBlock(Block &block, SmallVector<Tensor> args,
                                                   unsigned firstArg) {
  pushScope();
  llvm::scope_exit leave([&] { popScope(); });
  for (auto [arg, value] : llvm::zip(block.getArguments().drop_front(firstArg), args))
    bind(arg, std::move(value));
  for (Operation &op : block.without_terminator())
    if (failed(evalOp(&op)))
      return failure();
  SmallVector<Tensor> results;
  for (Value v : block.getTerminator()->getOperands())
    results.push_back(lookup(v));
  return results;
}

FailureOr<SmallVector<Tensor>> Evaluator::call(Operation *callee, ArrayRef<Tensor> args) {
  auto func = dyn_cast<func::FuncOp>(callee);
  if (!func || func.isExternal())
    return callee->emitError("the interpreter can only call func.func with a body");
  if (func.getNumArguments() != args.size())
    return func.emitError("expected ") << func.getNumArguments() << " inputs, got "
                                       << args.size();
  for (auto [i, pair] : llvm::enumerate(llvm::zip(func.getArgumentTypes(), args))) {
    auto [type, value] = pair;
    if (type != value.getType())
      return func.emitError("input #") << i << " has type " << value.getType()
                                       << ", expected " << type;
  }
  // Inputs computed at another precision are re-rounded for this run (the
  // arguments of an inner call were computed by this run, at the precision
  // their ops chose: see InterpreterOptions::unroundedAttr).
  SmallVector<Tensor> bound;
  for (const Tensor &t : args) {
    if (callDepth > 0 || t.roundsFloats() == !options.f64Reference) {
      bound.push_back(t);
      continue;
    }
    Tensor copy = make(t.getType());
    for (int64_t i = 0; i < t.size(); ++i)
      t.isFloat() ? copy.setFloat(i, t.getFloat(i)) : copy.setInt(i, t.getInt(i));
    bound.push_back(std::move(copy));
  }
  constexpr unsigned kMaxCallDepth = 256;
  if (callDepth >= kMaxCallDepth)
    return func.emitError("calls nest deeper than ")
           << kMaxCallDepth << " (recursion is not supported)";
  ++callDepth;
  llvm::scope_exit leave([&] { --callDepth; });
  return runBlock(func.getBody().front(), std::move(bound));
}

LogicalResult Evaluator::evalOp(Operation *op) {
  bool outer = unrounded;
  unrounded = !options.unroundedAttr.empty() && op->hasAttr(options.unroundedAttr);
  llvm::scope_exit restore([&] { unrounded = outer; });
  if (auto scan = dyn_cast<lax::ScanOp>(op)) {
    FailureOr<SmallVector<Tensor>> results = evalScan(scan);
    if (failed(results))
      return failure();
    for (auto [r, t] : llvm::zip(op->getResults(), *results))
      bind(r, std::move(t));
    return success();
  }
  if (std::optional<FailureOr<SmallVector<Tensor>>> results = evalControlFlow(op)) {
    if (failed(*results))
      return failure();
    for (auto [r, t] : llvm::zip(op->getResults(), **results))
      bind(r, std::move(t));
    return success();
  }
  for (auto family : {&Evaluator::evalDecomposition, &Evaluator::evalSort}) {
    std::optional<SmallVector<Tensor>> results = (this->*family)(op);
    if (!results)
      continue;
    for (auto [r, t] : llvm::zip(op->getResults(), *results))
      bind(r, std::move(t));
    return success();
  }
  if (auto callOp = dyn_cast<func::CallOp>(op)) {
    Operation *callee = SymbolTable::lookupNearestSymbolFrom(op, callOp.getCalleeAttr());
    if (!callee)
      return op->emitError("unknown callee ") << callOp.getCalleeAttr();
    SmallVector<Tensor> args;
    for (Value v : op->getOperands())
      args.push_back(lookup(v));
    FailureOr<SmallVector<Tensor>> results = call(callee, args);
    if (failed(results))
      return failure();
    for (auto [r, t] : llvm::zip(op->getResults(), *results))
      bind(r, std::move(t));
    return success();
  }
  if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
    auto elements = dyn_cast<DenseElementsAttr>(constant.getValue());
    if (!elements)
      return op->emitError("the interpreter evaluates dense tensor constants only");
    bind(op->getResult(0), Tensor::fromAttr(elements, roundsFloats()));
    return success();
  }
  for (auto family : {&Evaluator::evalElementwise, &Evaluator::evalStructure,
                      &Evaluator::evalContraction, &Evaluator::evalIndexing}) {
    std::optional<FailureOr<Tensor>> result = (this->*family)(op);
    if (!result)
      continue;
    if (failed(*result))
      return failure();
    bind(op->getResult(0), std::move(**result));
    return success();
  }
  if (auto callback = dyn_cast<lax::HostCallbackOp>(op))
    return op->emitError("the interpreter cannot run host callback ")
           << callback.getIndex() << " ('" << callback.getName()
           << "'): callbacks call back into the Python program that kiln.jit compiled, "
              "and the interpreter has none";
  return op->emitError("the interpreter cannot evaluate '")
         << op->getName() << "'";
}

FailureOr<SmallVector<Tensor>> kiln::interp::interpret(ModuleOp module, StringRef entry,
                                                       ArrayRef<Tensor> inputs,
                                                       const InterpreterOptions &options) {
  Operation *func = SymbolTable::lookupSymbolIn(module, entry);
  if (!func)
    return module.emitError("no function named '") << entry << "' to interpret";
  Evaluator evaluator(module, options);
  return evaluator.call(func, inputs);
}

FailureOr<SmallVector<Tensor>> kiln::interp::randomInputs(ModuleOp module, StringRef entry,
                                                          uint64_t seed, bool positive) {
  auto func = dyn_cast_or_null<func::FuncOp>(SymbolTable::lookupSymbolIn(module, entry));
  if (!func)
    return module.emitError("no function named '") << entry << "'";
  SmallVector<Tensor> inputs;
  for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !lax::tensorSizeFits(tensor))
      return func.emitError("argument #")
             << i << " is not a statically shaped tensor of at most 2^62 bytes";
    inputs.push_back(Tensor::random(tensor, seed * 1000003 + i, positive));
  }
  return inputs;
}
