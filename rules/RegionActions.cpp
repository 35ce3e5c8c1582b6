//===- RegionActions.cpp - the rewrite actions of region rules ------------===//
//
// A region rule's rewrite (RegionRewrite), in two steps:
//
//  1. plan: every op of the rewrite is created detached (not in any block),
//     reading placeholders (arguments of a private block) where it needs the
//     new scan's block arguments or results; result types are inferred, slice
//     and stacked types computed, and every check made. Any failure destroys
//     what was created and the rule does not apply: the IR is untouched.
//  2. apply: the detached ops are inserted (before the scan, in its body, or
//     before the root), the scan is rebuilt with its new consts, carries, xs
//     and ys (transforms/ScanUtils.h: extendScan), the placeholders are
//     replaced by the real values, and the replaced nodes are replaced.
//
// The actions per loop kind: on a lax.scan add_carry, add_ys, add_xs,
// add_const, sink, hoist, remove_ys, remove_carry, remove_const, remove_xs; on a
// lax.while hoist, remove_carry, remove_const; on a lax.cond hoist (what
// every branch computes), remove_result, remove_operand. The while and cond
// ones rebuild the op directly. Here: the two steps and the add_* actions;
// hoist and sink are in RegionMotion.cpp, the remove_* ones in
// RegionRemovals.cpp (RegionRewrite.h: the state they share).
//
//===----------------------------------------------------------------------===//
#include "rules/PdlText.h"
#include "rules/RegionRewrite.h"
#include "rules/RuleRuntime.h"

#include "dialect/LaxControlFlowOps.h"
#include "dialect/LaxOps.h"
#include "transforms/ScanUtils.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Verifier.h"

using namespace kiln::rules;
using namespace kiln::rules::region;
using namespace mlir;
using kiln::availableBefore;

namespace kiln::rules::region {
/// The rewrite actions of region rules and their argument counts.
const std::map<std::string, std::pair<unsigned, unsigned>> &actions() {
  static const std::map<std::string, std::pair<unsigned, unsigned>> a = {
      {"add_carry", {3, 3}}, {"add_ys", {2, 3}}, {"add_xs", {3, 3}},   {"add_const", {2, 2}},
      {"sink", {2, 2}},      {"hoist", {1, 1}},  {"remove_ys", {2, 2}}, {"remove_carry", {2, 2}},
      {"remove_const", {2, 2}}, {"remove_xs", {2, 2}},    {"remove_result", {2, 2}},
      {"remove_operand", {2, 2}}};
  return a;
}
} // namespace kiln::rules::region

bool RegionRewrite::fail(const std::string &m) {
  if (why.empty())
    why = m;
  return false;
}
Value RegionRewrite::failV(const std::string &m) {
  fail(m);
  return {};
}

Value RegionRewrite::placeholder(Type t, PhKind k, unsigned i) {
  Value v = ph->addArgument(t, root->getLoc());
  phs[v] = {k, i};
  return v;
}

Place RegionRewrite::placeOf(Value v) {
  if (auto it = phs.find(v); it != phs.end())
    return it->second.first <= XsArg ? Place::Body : Place::After;
  if (Operation *def = v.getDefiningOp())
    if (auto it = placeOfOp.find(def); it != placeOfOp.end())
      return it->second;
  if (scan && definedInside(v, scan))
    return Place::Body;
  if (scan && !availableBefore(v, scan))
    return Place::After;
  return Place::Free;
}
/// Whether `v` can be an operand of the scan.
bool RegionRewrite::usableBeforeScan(Value v) {
  if (phs.count(v))
    return false;
  if (Operation *def = v.getDefiningOp(); def && placeOfOp.count(def))
    return beforeScan.count(def);
  return availableBefore(v, scan);
}

bool RegionRewrite::setScan(ScanOp s) {
  if (!s)
    return fail("not a lax.scan");
  if (scan && scan != s)
    return fail("a rule rewrites one scan at a time");
  scan = s;
  return true;
}

/// A value read inside the body: body values as they are, anything from
/// outside through a new const (deduplicated).
Value RegionRewrite::toBody(Value v) {
  if (placeOf(v) == Place::Body)
    return v;
  if (!usableBeforeScan(v))
    return failV("a value defined after the scan is read inside its body");
  if (auto it = constFor.find(v); it != constFor.end())
    return it->second;
  ext.consts.push_back(v);
  Value p = placeholder(v.getType(), ConstArg, ext.consts.size() - 1);
  constFor[v] = p;
  return p;
}

Operation *RegionRewrite::record(Operation *op, Place place) {
  created.emplace_back(op, place);
  placeOfOp[op] = place;
  if (place == Place::Free && scan &&
      llvm::all_of(op->getOperands(), [&](Value o) { return usableBeforeScan(o); }))
    beforeScan.insert(op);
  return op;
}

std::optional<Val> RegionRewrite::eval(const ExprP &e) {
  std::string err;
  auto v = evaluate(*e, env, rewriter, &err);
  if (!v)
    fail(err);
  return v;
}

Value RegionRewrite::valueOf(const Val &v, int resultIndex) {
  if (v.kind == Val::Op) {
    if (resultIndex >= (int)v.op->getNumResults())
      return failV("no result #" + std::to_string(resultIndex));
    return v.op->getResult(resultIndex);
  }
  if (Value x = v.asValue())
    return x;
  return failV("not a value: " + v.str_());
}

/// Builds (detached) the value of a rewrite expression.
Value RegionRewrite::build(const ExprP &e, const std::string &nodeName) {
  if (!why.empty())
    return {};
  switch (e->kind) {
  case Expr::Capture:
  case Expr::Ref: {
    auto it = env.find(e->kind == Expr::Capture ? "$" + e->name : e->name);
    if (it == env.end())
      return failV("unbound '" + e->name + "'");
    return valueOf(it->second, e->kind == Expr::Ref ? e->resultIndex : 0);
  }
  case Expr::Op:
    return buildOp(*e);
  case Expr::Call:
    if (actions().count(e->name))
      return action(*e, nodeName);
    [[fallthrough]];
  default: {
    auto v = eval(e);
    return v ? valueOf(*v) : Value();
  }
  }
}

Value RegionRewrite::buildOp(const Expr &e) {
  SmallVector<Value> operands;
  for (const ExprP &a : e.args) {
    if (a->kind == Expr::Capture && a->variadic) {
      auto it = env.find("$" + a->name);
      if (it == env.end())
        return failV("unbound '$" + a->name + "'");
      llvm::append_range(operands, it->second.values);
      continue;
    }
    Value v = build(a);
    if (!v)
      return {};
    operands.push_back(v);
  }
  Place place = Place::Free;
  for (Value v : operands) {
    Place p = placeOf(v);
    if ((p == Place::Body && place == Place::After) || (p == Place::After && place == Place::Body))
      return failV("'" + e.name + "' reads both the loop body and the scan's results");
    if (p != Place::Free)
      place = p;
  }
  if (place == Place::Body)
    for (Value &v : operands)
      if (!(v = toBody(v)))
        return {};
  NamedAttrList attrs;
  for (auto &[n, x] : e.attrs) {
    // copy_attr(node, "name") of an attribute the node lacks: none.
    if (x->kind == Expr::Call && x->name == "copy_attr" && x->args.size() == 2) {
      auto node = eval(x->args[0]);
      auto name = node ? eval(x->args[1]) : std::nullopt;
      if (!name)
        return {};
      if (node->asOp() && name->kind == Val::Str && !node->asOp()->getAttr(name->str))
        continue;
    }
    auto v = eval(x);
    if (!v)
      return {};
    Attribute a = v->toAttribute(rewriter.getContext());
    if (!a)
      return failV("attribute '" + n + "' is not an attribute: " + v->str_());
    attrs.append(n, a);
  }
  SmallVector<Type> types;
  auto inferred = inferResultTypes(rewriter.getContext(), e.name, operands,
                                   attrs.getDictionary(rewriter.getContext()));
  if (e.type) {
    auto t = eval(e.type);
    if (!t || !t->asType())
      return failV("the result type of '" + e.name + "' cannot be computed");
    types.push_back(t->asType());
    if (inferred && !llvm::equal(*inferred, types)) {
      ruleError = true;
      return failV("the result type given to '" + e.name + "' (" +
                   Val::ofType(types[0]).str_() + ") differs from the inferred one (" +
                   Val::ofType((*inferred)[0]).str_() + ")");
    }
  } else if (inferred) {
    types = *inferred;
  } else {
    return failV("the result types of '" + e.name + "' cannot be inferred");
  }
  OperationState state(root->getLoc(), e.name);
  state.addOperands(operands);
  state.addAttributes(attrs);
  state.addTypes(types);
  Operation *op = Operation::create(state);
  record(op, place);
  ScopedDiagnosticHandler silence(rewriter.getContext(), [](Diagnostic &) { return success(); });
  if (failed(mlir::verify(op, /*verifyRecursively=*/false)))
    return failV("'" + e.name + "' would not verify");
  if (op->getNumResults() == 0)
    return failV("'" + e.name + "' has no result");
  return op->getResult(0);
}

std::optional<int64_t> RegionRewrite::evalInt(const ExprP &e) {
  auto v = eval(e);
  auto i = v ? v->asInt() : std::nullopt;
  if (v && !i)
    fail("not an integer: " + v->str_());
  return i;
}
ScanOp RegionRewrite::evalScan(const ExprP &e) {
  auto v = eval(e);
  if (!v)
    return {};
  auto s = dyn_cast_or_null<ScanOp>(v->asOp());
  if (!setScan(s))
    return {};
  return s;
}
RankedTensorType RegionRewrite::ranked(Value v) {
  return dyn_cast<RankedTensorType>(v.getType());
}

Value RegionRewrite::action(const Expr &e, const std::string &nodeName) {
  const std::string &n = e.name;
  if (n == "hoist")
    return hoist(e);
  if (n == "sink")
    return sink(e);
  if (n.rfind("remove_", 0) == 0) {
    auto v = eval(e.args[0]);
    Operation *target = v ? v->asOp() : nullptr;
    if (auto s = dyn_cast_or_null<ScanOp>(target); s && !setScan(s))
      return {};
    if (!isa_and_nonnull<ScanOp, WhileOp, CondOp>(target))
      return failV(n + " takes a lax.scan, lax.while or lax.cond");
    auto i = evalInt(e.args[1]);
    if (!i)
      return {};
    removal.action = n;
    removal.index = *i;
    removal.from = target;
    // The value stands for "done" (plan returns before replacing).
    return target->getNumResults()  ? target->getResult(0)
           : target->getNumOperands() ? target->getOperand(0)
                                      : failV(n + ": nothing to remove");
  }
  if (!evalScan(e.args[0]))
    return {};
  if (n == "add_const") {
    Value v = build(e.args[1]);
    if (!v)
      return {};
    if (placeOf(v) == Place::Body)
      return failV("add_const takes a value from outside the scan");
    return toBody(v);
  }
  if (n == "add_xs") {
    Value v = build(e.args[1]);
    auto axis = v ? evalInt(e.args[2]) : std::nullopt;
    if (!axis)
      return {};
    RankedTensorType t = ranked(v);
    if (!t || *axis < 0 || *axis >= t.getRank() || t.getDimSize(*axis) != scan.getLength())
      return failV("add_xs: the value has no axis " + std::to_string(*axis) + " of length " +
                   std::to_string(scan.getLength()));
    if (!usableBeforeScan(v))
      return failV("add_xs: the value is not available before the scan");
    ext.xs.push_back(v);
    ext.xsAxes.push_back(*axis);
    return placeholder(kiln::lax::dropDim(t, *axis), XsArg, ext.xs.size() - 1);
  }
  if (n == "add_carry") {
    Value init = build(e.args[1]);
    if (!init)
      return {};
    if (!usableBeforeScan(init))
      return failV("add_carry: the initial value is not available before the scan");
    ext.inits.push_back(init);
    unsigned k = ext.inits.size() - 1;
    Value arg = placeholder(init.getType(), CarryArg, k);
    env[nodeName] = Val::ofValue(arg);
    Value next = build(e.args[2]);
    if (!next || !(next = toBody(next)))
      return {};
    if (next.getType() != init.getType())
      return failV("add_carry: the update's type differs from the initial value's");
    carryNext.push_back(next);
    return placeholder(init.getType(), CarryResult, k);
  }
  if (n == "add_ys") {
    Value slice = build(e.args[1]);
    if (!slice || !(slice = toBody(slice)))
      return {};
    RankedTensorType t = ranked(slice);
    std::optional<int64_t> axis = 0;
    if (e.args.size() > 2 && !(axis = evalInt(e.args[2])))
      return {};
    if (!t || *axis < 0 || *axis > t.getRank())
      return failV("add_ys: axis out of range");
    ysSlice.push_back(slice);
    ext.ysAxes.push_back(*axis);
    return placeholder(kiln::lax::insertDim(t, *axis, scan.getLength()), YsResult,
                       ext.ysAxes.size() - 1);
  }
  return failV("unknown action '" + n + "'");
}

bool RegionRewrite::plan() {
  return planRewrite() && (removal.action.empty() || removal.plan(scan, why));
}

bool RegionRewrite::planRewrite() {
  // The scan first: ops built before the first action still need to know
  // whether they belong in its body.
  for (const Node &n : rule.rewrite)
    for (const ExprP &e : n.values.empty() ? std::vector<ExprP>{n.expr} : n.values)
      walkExpr(e, [&](const ExprP &x) {
        if (scan || x->kind != Expr::Call || !actions().count(x->name) || x->args.empty())
          return;
        std::string err;
        auto v = evaluate(*x->args[x->name == "sink" ? 1 : 0], env, rewriter, &err);
        if (!v)
          return;
        if (x->name == "hoist")
          scan = parentScanOf(v->asOp());
        else
          scan = dyn_cast_or_null<ScanOp>(v->asOp());
      });
  std::map<std::string, bool> isMatchNode;
  for (const Node &n : rule.match)
    isMatchNode[n.name] = true;
  for (const Node &n : rule.rewrite) {
    SmallVector<Value> values;
    for (const ExprP &e : n.values.empty() ? std::vector<ExprP>{n.expr} : n.values) {
      Value v = build(e, n.name);
      if (!v)
        return fail(why.empty() ? "cannot build '" + n.name + "'" : why);
      values.push_back(v);
    }
    if (!removal.action.empty())
      return true;
    if (isMatchNode.count(n.name)) {
      Operation *target = env[n.name].asOp();
      if (!target || target->getNumResults() != values.size())
        return fail("'" + n.name + "' has " +
                    std::to_string(target ? target->getNumResults() : 0) +
                    " result(s), the rewrite gives " + std::to_string(values.size()));
      for (auto [r, v] : llvm::zip(target->getResults(), values))
        if (r.getType() != v.getType() && (ruleError = true))
          return fail("the replacement of '" + n.name + "' has type " +
                      Val::ofType(v.getType()).str_() + ", not " +
                      Val::ofType(r.getType()).str_());
      replacements.emplace_back(target, values);
    } else {
      env[n.name] = values.size() == 1 ? Val::ofValue(values[0]) : Val();
    }
  }
  // Every new op placed after the scan must come after it; every op that
  // feeds the scan must be before it.
  for (auto &[op, place] : created)
    if (place == Place::After && scan && (parentScanOf(root) == scan || root == scan))
      return fail("an op reading the scan's results cannot go before the root");
  return true;
}

Value RegionRewrite::real(Value v, kiln::ExtendedScan *ex, ValueRange consts, ValueRange carries,
           ValueRange xs) {
  auto it = phs.find(v);
  if (it == phs.end())
    return v;
  auto [k, i] = it->second;
  if (!ex && k > XsArg)
    return v; // results: replaced once the scan exists
  switch (k) {
  case ConstArg: return consts[i];
  case CarryArg: return carries[i];
  case XsArg: return xs[i];
  case CarryResult: return ex->scan.getResult(ex->firstNewCarry + i);
  case YsResult: return ex->scan.getResult(ex->firstNewYs + i);
  }
  return v;
}

void RegionRewrite::apply() {
  if (!removal.action.empty())
    return removal.apply(rewriter, scan);
  bool extends = !ext.consts.empty() || !ext.inits.empty() || !ext.xs.empty() ||
                 !ext.ysAxes.empty();
  if (scan && extends) {
    rewriter.setInsertionPoint(scan);
    for (auto &[op, place] : created)
      if (beforeScan.count(op))
        rewriter.insert(op);
    SmallVector<Value> bodyArgs[3];
    kiln::ExtendedScan ex = kiln::extendScan(
        rewriter, scan, ext,
        [&](OpBuilder &b, const kiln::ScanBodyView &view) -> kiln::ScanBodyYields {
          for (auto &[v, role] : phs)
            if (role.first <= XsArg)
              v.replaceAllUsesWith(real(v, nullptr, view.consts, view.carries, view.xSlices));
          for (auto &[op, place] : created)
            if (place == Place::Body)
              b.insert(op);
          kiln::ScanBodyYields y;
          for (Value v : carryNext)
            y.carries.push_back(real(v, nullptr, view.consts, view.carries, view.xSlices));
          for (Value v : ysSlice)
            y.ys.push_back(real(v, nullptr, view.consts, view.carries, view.xSlices));
          // Replacements of body ops (hoist) read the new block arguments.
          for (auto &[target, values] : replacements)
            for (Value &v : values)
              v = real(v, nullptr, view.consts, view.carries, view.xSlices);
          return y;
        });
    (void)bodyArgs;
    for (auto &[v, role] : phs)
      if (role.first > XsArg) {
        Value r = real(v, &ex, {}, {}, {});
        v.replaceAllUsesWith(r);
        for (auto &[target, values] : replacements)
          for (Value &x : values)
            if (x == v)
              x = r;
      }
  }
  for (auto &[op, place] : created)
    if (auto it = anchorOf.find(op); it != anchorOf.end() && !op->getBlock()) {
      rewriter.setInsertionPoint(it->second);
      rewriter.insert(op);
    }
  rewriter.setInsertionPoint(root);
  for (auto &[op, place] : created)
    if (!op->getBlock())
      rewriter.insert(op);
  for (auto &[target, values] : replacements)
    rewriter.replaceOp(target, values);
}

std::unique_ptr<RegionRewritePlan> kiln::rules::region::makeRegionRewrite(RewriterBase &rw,
                                                                          const Rule &rule,
                                                                          Operation *root,
                                                                          Env env) {
  return std::make_unique<RegionRewrite>(rw, rule, root, std::move(env));
}
