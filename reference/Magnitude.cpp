//===- Magnitude.cpp - the magnitude version of a program -----------------===//
//
// magnitudes() of Comparison.h: the mag_i of the error model. A copy of the
// program computes, beside every float value v, a "shadow" S(v) >= |v|: the
// size of everything v was made of, so that v's rounding error is about
// eps * S(v) however much cancelled. The original computation stays (the
// shadows of nonlinear ops, select_n's conditions, dynamic indices, scan
// lengths need the real values); only the shadows are returned. Rules, with
// x, a, b the operands and r the result:
//
//   input, constant, iota, sign    S = |r|
//   add, sub                       S = S(a) + S(b)
//   neg, abs                       S = S(x)
//   mul                            S = S(a) * S(b)
//   div                            S = (S(a) + |r| S(b)) / |b|
//   max, min                       S = max(S(a), S(b))
//   dot_general                    the dot_general of S(a) and S(b)
//   reduce_sum, reduce_prod        the same reduction of S(x)
//   reduce_max, reduce_min         reduce_max of S(x)
//   data movement (reshape, broadcast_in_dim, transpose, rev, slice,
//   dynamic_slice, dynamic_update_slice, concatenate, squeeze,
//   expand_dims, select_n)         the same op on the S of its float operands
//   convert_element_type           float -> float: S(x) converted; else |r|
//   smooth f (first order)         S = |f'(x)| S(x) + |r|:
//     exp |r| S   log S/|x|   log1p S/|1+x|   sin, cos S   tanh (1-r^2) S
//     logistic r(1-r) S   sqrt S/(2r)   rsqrt |r/x| S/2   square 2|x| S
//     integer_pow |y x^(y-1)| S   pow |r| (|b| S(a)/|a| + |log|a|| S(b))
//   lax.scan                       a scan that also carries the shadows of
//                                  its float consts, carries and xs
//   func.call                      a call of the callee's shadowed copy
//   anything else (rem, unknown ops, ops with regions other than scan,
//   calls of external functions)   NaN: unknown
//
// For sums and products of inputs this is the interpreter run on the
// "absolute" program (|x| of every input, sub -> add, neg -> identity). NaN,
// and anything non-finite (S overflowed, a division by zero), makes the
// comparison fall back to the output's scale for that element.
//
//===----------------------------------------------------------------------===//
#include "reference/Comparison.h"
#include "reference/Interpreter.h"

#include "dialect/LaxOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;
using namespace kiln;
using namespace kiln::interp;

namespace {

bool isFloatValue(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && isa<FloatType>(t.getElementType());
}

/// Adds the shadow computations to the functions of a module (a copy).
class Shadower {
public:
  explicit Shadower(ModuleOp module) : module(module), symbols(module), b(module.getContext()) {}

  /// Turns @`entry` into a new public function that takes the same inputs
  /// and returns S of each float result (a non-float result as it is).
  FailureOr<func::FuncOp> magnitudeFunction(func::FuncOp entry);

private:
  /// A copy of `f`, named apart, taking (args, S(float args)) and returning
  /// (results, S(float results)); null when `f` cannot be shadowed.
  func::FuncOp shadowedCallee(func::FuncOp f);
  /// Adds the shadows of the ops of `block` (terminator excluded).
  void shadowBlock(Block &block) { shadowOps(opsOf(block)); }
  static SmallVector<Operation *> opsOf(Block &block) {
    SmallVector<Operation *> ops;
    for (Operation &op : block.without_terminator())
      ops.push_back(&op);
    return ops;
  }
  void shadowOps(ArrayRef<Operation *> ops) {
    for (Operation *op : ops)
      shadowOp(op);
  }
  void shadowOp(Operation *op);
  void shadowScan(lax::ScanOp scan);
  void shadowCall(func::CallOp call);
  /// The shadow of `v`: one recorded, or NaN (unknown) after its definition.
  Value shadowOf(Value v);
  /// NaN for every float result of `op`.
  void unknown(Operation *op);

  // Builders at the current insertion point.
  Value abs(Value v) { return lax::AbsOp::create(b, loc, v.getType(), v); }
  Value add(Value x, Value y) { return lax::AddOp::create(b, loc, x.getType(), x, y); }
  Value mul(Value x, Value y) { return lax::MulOp::create(b, loc, x.getType(), x, y); }
  Value div(Value x, Value y) { return lax::DivOp::create(b, loc, x.getType(), x, y); }
  Value max(Value x, Value y) { return lax::MaxOp::create(b, loc, x.getType(), x, y); }
  Value splat(Type type, double value) {
    return lax::ConstantOp::create(b, loc, cast<RankedTensorType>(type), value);
  }
  /// The first-order rule S = |derivative| * S(x) + |r|.
  Value smooth(Value derivative, Value sx, Value r) {
    return add(mul(abs(derivative), sx), abs(r));
  }

  ModuleOp module;
  SymbolTable symbols;
  OpBuilder b;
  Location loc = b.getUnknownLoc();
  DenseMap<Value, Value> shadows;
  DenseMap<Operation *, func::FuncOp> shadowedCallees;
};

Value Shadower::shadowOf(Value v) {
  assert(isFloatValue(v) && "only float values have shadows");
  if (Value s = shadows.lookup(v))
    return s;
  OpBuilder::InsertionGuard guard(b);
  if (Operation *def = v.getDefiningOp())
    b.setInsertionPointAfter(def);
  else
    b.setInsertionPointToStart(cast<BlockArgument>(v).getOwner());
  Value s = splat(v.getType(), NAN);
  shadows[v] = s;
  return s;
}

void Shadower::unknown(Operation *op) {
  for (Value r : op->getResults())
    if (isFloatValue(r))
      shadows[r] = splat(r.getType(), NAN);
}

void Shadower::shadowOp(Operation *op) {
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointAfter(op);
  loc = op->getLoc();
  if (auto scan = dyn_cast<lax::ScanOp>(op))
    return shadowScan(scan);
  if (auto call = dyn_cast<func::CallOp>(op))
    return shadowCall(call);
  if (llvm::none_of(op->getResults(), isFloatValue))
    return;
  if (op->getNumRegions() > 0 || op->getNumResults() != 1)
    return unknown(op);

  Value r = op->getResult(0);
  Type type = r.getType();
  auto s = [&](unsigned i) { return shadowOf(op->getOperand(i)); };
  auto operand = [&](unsigned i) { return op->getOperand(i); };
  // The same op on the shadows of its float operands (other operands, such
  // as indices and select_n's condition, keep their values).
  auto onShadows = [&]() -> Value {
    IRMapping mapping;
    for (Value v : op->getOperands())
      if (isFloatValue(v))
        mapping.map(v, shadowOf(v));
    return b.clone(*op, mapping)->getResult(0);
  };
  auto allFloatOperands = [&] { return llvm::all_of(op->getOperands(), isFloatValue); };

  Value shadow =
      llvm::TypeSwitch<Operation *, Value>(op)
          .Case<lax::ConstantOp, arith::ConstantOp, lax::IotaOp, lax::SignOp>(
              [&](auto) { return abs(r); })
          .Case<lax::AddOp, lax::SubOp>([&](auto) { return add(s(0), s(1)); })
          .Case<lax::NegOp, lax::AbsOp>([&](auto) { return s(0); })
          .Case<lax::MulOp>([&](auto) { return mul(s(0), s(1)); })
          .Case<lax::DivOp>([&](auto) {
            return div(add(s(0), mul(abs(r), s(1))), abs(operand(1)));
          })
          .Case<lax::MaxOp, lax::MinOp>([&](auto) { return max(s(0), s(1)); })
          .Case<lax::ExpOp>([&](auto) { return smooth(r, s(0), r); })
          .Case<lax::LogOp>([&](auto) { return add(div(s(0), abs(operand(0))), abs(r)); })
          .Case<lax::Log1pOp>([&](auto) {
            return add(div(s(0), abs(add(splat(type, 1), operand(0)))), abs(r));
          })
          .Case<lax::SinOp, lax::CosOp>([&](auto) { return add(s(0), abs(r)); })
          .Case<lax::TanhOp>([&](auto) {
            return smooth(lax::SubOp::create(b, loc, type, splat(type, 1), mul(r, r)), s(0), r);
          })
          .Case<lax::LogisticOp>([&](auto) {
            return smooth(mul(r, lax::SubOp::create(b, loc, type, splat(type, 1), r)), s(0), r);
          })
          .Case<lax::SqrtOp>([&](auto) {
            return add(div(s(0), mul(splat(type, 2), abs(r))), abs(r));
          })
          .Case<lax::RsqrtOp>([&](auto) {
            return smooth(mul(splat(type, 0.5), div(r, operand(0))), s(0), r);
          })
          .Case<lax::SquareOp>([&](auto) {
            return smooth(mul(splat(type, 2), operand(0)), s(0), r);
          })
          .Case<lax::IntegerPowOp>([&](lax::IntegerPowOp pow) -> Value {
            int64_t y = pow.getY();
            if (y == 0)
              return abs(r);
            Value power = lax::IntegerPowOp::create(b, loc, type, pow.getOperand(),
                                                    b.getI64IntegerAttr(y - 1));
            return smooth(mul(splat(type, double(y)), power), s(0), r);
          })
          .Case<lax::PowOp>([&](auto) {
            Value a = abs(operand(0));
            Value viaBase = div(mul(abs(operand(1)), s(0)), a);
            Value viaExponent = mul(abs(lax::LogOp::create(b, loc, type, a)), s(1));
            return add(mul(abs(r), add(viaBase, viaExponent)), abs(r));
          })
          .Case<lax::ConvertElementTypeOp>([&](auto) -> Value {
            if (!isFloatValue(operand(0)))
              return abs(r);
            return lax::ConvertElementTypeOp::create(b, loc, type, s(0));
          })
          .Case<lax::ReduceMaxOp, lax::ReduceMinOp>([&](auto reduce) -> Value {
            // Either picks one element: its error is at most the largest S.
            return lax::ReduceMaxOp::create(b, loc, type, s(0), reduce.getAxesAttr());
          })
          .Case<lax::DotGeneralOp>([&](auto) -> Value {
            return allFloatOperands() ? onShadows() : abs(r);
          })
          .Case<lax::ReduceSumOp, lax::ReduceProdOp, lax::BroadcastInDimOp, lax::ReshapeOp,
                lax::TransposeOp, lax::RevOp, lax::SliceOp, lax::DynamicSliceOp,
                lax::DynamicUpdateSliceOp, lax::ConcatenateOp, lax::SqueezeOp,
                lax::ExpandDimsOp, lax::SelectNOp>([&](auto) { return onShadows(); })
          .Default([&](Operation *) { return splat(type, NAN); });
  shadows[r] = shadow;
}

void Shadower::shadowScan(lax::ScanOp scan) {
  Block &body = scan.getBodyBlock();
  unsigned numConsts = scan.getNumConsts(), numCarry = scan.getNumCarry();
  SmallVector<Value> consts(scan.getConsts()), inits(scan.getInits()), xs(scan.getXs());
  SmallVector<BlockArgument> constArgs(scan.getConstArgs()), carryArgs(scan.getCarryArgs()),
      xArgs(scan.getXSliceArgs());
  auto floatOnes = [](ArrayRef<Value> values) {
    SmallVector<unsigned> indices;
    for (auto [i, v] : llvm::enumerate(values))
      if (isFloatValue(v))
        indices.push_back(i);
    return indices;
  };
  SmallVector<unsigned> fConsts = floatOnes(consts), fCarries = floatOnes(inits),
                        fXs = floatOnes(xs);

  // The body's arguments become: consts, S(consts), carries, S(carries),
  // xs slices, S(xs slices).
  unsigned at = numConsts;
  for (unsigned i : fConsts)
    shadows[constArgs[i]] = body.insertArgument(at++, constArgs[i].getType(), scan.getLoc());
  at += numCarry;
  for (unsigned i : fCarries)
    shadows[carryArgs[i]] = body.insertArgument(at++, carryArgs[i].getType(), scan.getLoc());
  for (unsigned i : fXs)
    shadows[xArgs[i]] = body.addArgument(xArgs[i].getType(), scan.getLoc());
  shadowBlock(body);

  // It yields: carries, S(carries), ys slices, S(ys slices).
  Operation *yield = body.getTerminator();
  SmallVector<Value> yielded(yield->getOperands());
  ArrayRef<Value> newCarries = ArrayRef<Value>(yielded).take_front(numCarry);
  ArrayRef<Value> ysSlices = ArrayRef<Value>(yielded).drop_front(numCarry);
  SmallVector<unsigned> fYs = floatOnes(ysSlices);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(yield);
    SmallVector<Value> operands(newCarries);
    for (unsigned i : fCarries)
      operands.push_back(shadowOf(newCarries[i]));
    llvm::append_range(operands, ysSlices);
    for (unsigned i : fYs)
      operands.push_back(shadowOf(ysSlices[i]));
    yield->setOperands(operands);
  }

  SmallVector<Value> args(consts);
  for (unsigned i : fConsts)
    args.push_back(shadowOf(consts[i]));
  llvm::append_range(args, inits);
  for (unsigned i : fCarries)
    args.push_back(shadowOf(inits[i]));
  llvm::append_range(args, xs);
  for (unsigned i : fXs)
    args.push_back(shadowOf(xs[i]));
  SmallVector<int64_t> xsAxes(scan.getXsAxes()), ysAxes(scan.getYsAxes());
  for (unsigned i : fXs)
    xsAxes.push_back(scan.getXsAxis(i));
  for (unsigned i : fYs)
    ysAxes.push_back(scan.getYsAxis(i));
  SmallVector<Type> resultTypes;
  ResultRange finals = scan.getFinalCarries(), ys = scan.getYs();
  llvm::append_range(resultTypes, finals.getTypes());
  for (unsigned i : fCarries)
    resultTypes.push_back(finals[i].getType());
  llvm::append_range(resultTypes, ys.getTypes());
  for (unsigned i : fYs)
    resultTypes.push_back(ys[i].getType());

  b.setInsertionPoint(scan);
  auto shadowed = lax::ScanOp::create(
      b, scan.getLoc(), resultTypes, args, scan.getLength(), numConsts + fConsts.size(),
      numCarry + fCarries.size(), scan.getReverse(), scan.getUnroll(), xsAxes, ysAxes);
  shadowed->setDiscardableAttrs(scan->getDiscardableAttrDictionary());
  shadowed.getBody().takeBody(scan.getBody());
  // Results: carries, S(carries), ys, S(ys).
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
  for (BlockArgument arg : args)
    if (isFloatValue(arg)) {
      (void)g.insertArgument(g.getNumArguments(), arg.getType(), DictionaryAttr(), arg.getLoc());
      shadows[arg] = body.getArguments().back();
    }
  shadowBlock(body);
  Operation *ret = body.getTerminator();
  SmallVector<Value> operands(ret->getOperands());
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ret);
    for (Value v : ret->getOperands())
      if (isFloatValue(v))
        operands.push_back(shadowOf(v));
  }
  ret->setOperands(operands);
  g.setType(FunctionType::get(g.getContext(), g.getArgumentTypes(), ValueRange(operands).getTypes()));
  return g;
}

void Shadower::shadowCall(func::CallOp call) {
  auto callee = dyn_cast_or_null<func::FuncOp>(
      SymbolTable::lookupNearestSymbolFrom(call, call.getCalleeAttr()));
  func::FuncOp g = callee ? shadowedCallee(callee) : nullptr;
  if (!g)
    return unknown(call);
  SmallVector<Value> args(call.getOperands());
  for (Value v : call.getOperands())
    if (isFloatValue(v))
      args.push_back(shadowOf(v));
  b.setInsertionPoint(call);
  auto shadowed = func::CallOp::create(b, call.getLoc(), g, args);
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
      shadows[arg] = abs(arg);
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

} // namespace

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
  InterpreterOptions options;
  options.f64Reference = true;
  FailureOr<SmallVector<Tensor>> result = interpret(*copy, function, inputs, options);
  if (failed(result)) {
    error = "the interpreter cannot run the magnitude version of @" + entry.str() + ": " +
            messages;
    return failure();
  }
  return result;
}
