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
// add_const, sink, hoist, remove_ys, remove_carry, remove_const; on a
// lax.while hoist, remove_carry, remove_const; on a lax.cond hoist (what
// every branch computes), remove_result, remove_operand. The while and cond
// ones rebuild the op directly; the remove_* ones are in RegionRemovals.cpp.
//
//===----------------------------------------------------------------------===//
#include "rules/PdlText.h"
#include "rules/RegionRulesImpl.h"
#include "rules/RuleRuntime.h"

#include "dialect/LaxControlFlowOps.h"
#include "dialect/LaxOps.h"
#include "transforms/ScanUtils.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

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
      {"remove_const", {2, 2}}, {"remove_result", {2, 2}}, {"remove_operand", {2, 2}}};
  return a;
}
} // namespace kiln::rules::region

namespace {
/// Whether `v` is defined inside `scan`'s body (at any depth).
bool definedInside(Value v, ScanOp scan) {
  Region *r = v.getParentRegion();
  return r && scan.getBody().isAncestor(r);
}

WhileOp parentWhileOf(Operation *op) {
  return op && op->getBlock() ? dyn_cast_or_null<WhileOp>(op->getParentOp()) : WhileOp();
}
enum class Place { Free, Body, After };

struct RegionRewrite : RegionRewritePlan {
  RewriterBase &rewriter;
  const Rule &rule;
  Operation *root;
  Env env;

  ScanOp scan;
  kiln::ScanExtension ext;
  /// Body values yielded for the new carries and ys (may be placeholders).
  SmallVector<Value> carryNext, ysSlice;
  /// Placeholders: arguments of a private block, replaced in apply.
  Block *ph = new Block();
  enum PhKind { ConstArg, CarryArg, XsArg, CarryResult, YsResult };
  llvm::DenseMap<Value, std::pair<PhKind, unsigned>> phs;
  /// Ops created detached, in creation order, and where they go.
  std::vector<std::pair<Operation *, Place>> created;
  llvm::DenseMap<Operation *, Place> placeOfOp;
  llvm::DenseSet<Operation *> beforeScan;
  /// Body ops replaced by hoisting (erased by the replacement of the root).
  llvm::DenseMap<Value, Value> constFor; ///< outside value -> its const placeholder
  std::vector<std::pair<Operation *, SmallVector<Value>>> replacements;
  /// remove_ys / remove_carry / remove_const (scan, while), remove_result /
  /// remove_operand (cond): RegionRemovals.cpp.
  LoopRemoval removal;

  RegionRewrite(RewriterBase &rw, const Rule &rule, Operation *root, Env env)
      : rewriter(rw), rule(rule), root(root), env(std::move(env)) {}
  ~RegionRewrite() {
    // Detached ops left after a failed plan: drop, then destroy.
    for (auto &[op, p] : created)
      if (!op->getBlock())
        op->dropAllReferences();
    for (auto &[op, p] : llvm::reverse(created))
      if (!op->getBlock())
        op->destroy();
    for (BlockArgument a : ph->getArguments())
      a.dropAllUses();
    delete ph;
  }

  bool fail(const std::string &m) {
    if (why.empty())
      why = m;
    return false;
  }
  Value failV(const std::string &m) {
    fail(m);
    return {};
  }

  Value placeholder(Type t, PhKind k, unsigned i) {
    Value v = ph->addArgument(t, root->getLoc());
    phs[v] = {k, i};
    return v;
  }

  Place placeOf(Value v) {
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
  bool usableBeforeScan(Value v) {
    if (phs.count(v))
      return false;
    if (Operation *def = v.getDefiningOp(); def && placeOfOp.count(def))
      return beforeScan.count(def);
    return availableBefore(v, scan);
  }

  bool setScan(ScanOp s) {
    if (!s)
      return fail("not a lax.scan");
    if (scan && scan != s)
      return fail("a rule rewrites one scan at a time");
    scan = s;
    return true;
  }

  /// A value read inside the body: body values as they are, anything from
  /// outside through a new const (deduplicated).
  Value toBody(Value v) {
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

  Operation *record(Operation *op, Place place) {
    created.emplace_back(op, place);
    placeOfOp[op] = place;
    if (place == Place::Free && scan &&
        llvm::all_of(op->getOperands(), [&](Value o) { return usableBeforeScan(o); }))
      beforeScan.insert(op);
    return op;
  }

  std::optional<Val> eval(const ExprP &e) {
    std::string err;
    auto v = evaluate(*e, env, rewriter, &err);
    if (!v)
      fail(err);
    return v;
  }

  Value valueOf(const Val &v, int resultIndex = 0) {
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
  Value build(const ExprP &e, const std::string &nodeName = "") {
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

  Value buildOp(const Expr &e) {
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

  std::optional<int64_t> evalInt(const ExprP &e) {
    auto v = eval(e);
    auto i = v ? v->asInt() : std::nullopt;
    if (v && !i)
      fail("not an integer: " + v->str_());
    return i;
  }
  ScanOp evalScan(const ExprP &e) {
    auto v = eval(e);
    if (!v)
      return {};
    auto s = dyn_cast_or_null<ScanOp>(v->asOp());
    if (!setScan(s))
      return {};
    return s;
  }
  RankedTensorType ranked(Value v) { return dyn_cast<RankedTensorType>(v.getType()); }

  Value action(const Expr &e, const std::string &nodeName) {
    const std::string &n = e.name;
    if (n == "hoist") {
      auto v = eval(e.args[0]);
      Operation *op = v ? v->asOp() : nullptr;
      if (!op)
        return failV("hoist takes an op");
      if (WhileOp w = parentWhileOf(op))
        return hoistFromWhile(op, w);
      if (CondOp c = parentCondOf(op))
        return hoistFromCond(op, c);
      if (!setScan(parentScanOf(op)))
        return {};
      if (op->getNumResults() != 1 || op->getNumRegions() || !isPure(op))
        return failV("only a pure single-result op without regions can be hoisted");
      // Sound: a pure op whose operands are the same at every iteration
      // computes the same value at every iteration; computing it once before
      // the loop and passing it in as a const changes no value.
      IRMapping map;
      for (Value o : op->getOperands()) {
        if (auto arg = dyn_cast<BlockArgument>(o); arg && arg.getOwner() == &scan.getBodyBlock()) {
          if (arg.getArgNumber() >= scan.getNumConsts())
            return failV("an operand is a carry or an xs slice");
          map.map(o, scan.getConsts()[arg.getArgNumber()]);
        } else if (definedInside(o, scan)) {
          return failV("an operand is computed in the body");
        }
      }
      Operation *clone = op->clone(map);
      record(clone, Place::Free);
      if (!beforeScan.count(clone))
        return failV("the hoisted op's operands are not available before the scan");
      return toBody(clone->getResult(0));
    }
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

  /// Ops to insert right before another op (the while a hoisted op leaves).
  llvm::DenseMap<Operation *, Operation *> anchorOf;

  /// hoist(op) for an op in a region of a lax.while. Sound as for scan: a
  /// pure op whose operands are the region's consts or values from outside
  /// computes the same value at every iteration; lax ops do not trap, so
  /// computing it when the loop runs zero times changes nothing. The body
  /// then reads it directly (while regions may use values from above).
  Value hoistFromWhile(Operation *op, WhileOp w) {
    if (op->getNumResults() != 1 || op->getNumRegions() || !isPure(op))
      return failV("only a pure single-result op without regions can be hoisted");
    Block *block = op->getBlock();
    bool inBody = block == &w.getBodyBlock();
    unsigned numConsts = inBody ? w.getNumBodyConsts() : w.getNumCondConsts();
    ValueRange consts = inBody ? ValueRange(w.getBodyConsts()) : ValueRange(w.getCondConsts());
    IRMapping map;
    for (Value o : op->getOperands()) {
      if (auto arg = dyn_cast<BlockArgument>(o); arg && arg.getOwner() == block) {
        if (arg.getArgNumber() >= numConsts)
          return failV("an operand is a carry");
        map.map(o, consts[arg.getArgNumber()]);
      } else if (w->isAncestor(o.getParentBlock()->getParentOp())) {
        return failV("an operand is computed in the loop");
      }
    }
    Operation *clone = op->clone(map);
    created.emplace_back(clone, Place::Free);
    placeOfOp[clone] = Place::Free;
    anchorOf[clone] = w;
    return clone->getResult(0);
  }

  /// hoist(op) for an op in a branch of a lax.cond that every other branch
  /// computes too (sameInOtherBranches). Sound: exactly one branch runs,
  /// and whichever runs computes this value from the same inputs (a branch
  /// argument is the same cond operand in every branch); lax ops are pure and
  /// do not trap, so computing it once before the cond gives the same value,
  /// and no branch computes anything it did not compute before. The branches
  /// then read it directly (their regions may use values from above).
  Value hoistFromCond(Operation *op, CondOp cond) {
    if (op->getNumResults() != 1 || op->getNumRegions() || !isPure(op))
      return failV("only a pure single-result op without regions can be hoisted");
    auto twins = sameInOtherBranches(op, cond);
    if (!twins)
      return failV("not computed the same way in every branch");
    IRMapping map;
    for (Value o : op->getOperands())
      if (auto arg = dyn_cast<BlockArgument>(o); arg && arg.getOwner() == op->getBlock())
        map.map(o, cond.getBranchOperands()[arg.getArgNumber()]);
    Operation *clone = op->clone(map);
    created.emplace_back(clone, Place::Free);
    placeOfOp[clone] = Place::Free;
    anchorOf[clone] = cond;
    for (Operation *twin : *twins)
      replacements.emplace_back(twin, SmallVector<Value>{clone->getResult(0)});
    return clone->getResult(0);
  }

  /// An elementwise op reading ys of `scan` is computed per slice in the body.
  /// Sound: f(ys, z)[i] = f(ys[i], z[i]) for elementwise f, so computing f
  /// on slices and stacking gives the same tensor.
  Value sink(const Expr &e) {
    auto v = eval(e.args[0]);
    Operation *op = v ? v->asOp() : nullptr;
    if (!op || !evalScan(e.args[1]))
      return failV("sink takes an op and a scan");
    if (!op->hasTrait<OpTrait::Elementwise>() || op->getNumResults() != 1 || op->getNumRegions())
      return failV("sink: only single-result elementwise ops are sunk");
    int64_t axis = -1;
    RankedTensorType stacked;
    for (Value o : op->getOperands())
      if (scanOfResult(o) == scan && cast<OpResult>(o).getResultNumber() >= scan.getNumCarry()) {
        axis = scan.getYsAxis(cast<OpResult>(o).getResultNumber() - scan.getNumCarry());
        stacked = ranked(o);
        break;
      }
    if (axis < 0)
      return failV("sink: the op reads no ys of the scan");
    IRMapping map;
    for (Value o : op->getOperands()) {
      if (map.contains(o))
        continue;
      RankedTensorType t = ranked(o);
      if (!t)
        return failV("sink: an unranked operand");
      if (scanOfResult(o) == scan && cast<OpResult>(o).getResultNumber() >= scan.getNumCarry()) {
        unsigned j = cast<OpResult>(o).getResultNumber() - scan.getNumCarry();
        if (scan.getYsAxis(j) != axis)
          return failV("sink: reads ys stacked along different axes");
        if (llvm::any_of(o.getUsers(), [&](Operation *u) { return u != op; }))
          return failV("sink: the ys has other users (sinking would stack a second output)");
        map.map(o, yieldedValue(scan, scan.getNumCarry() + j));
        continue;
      }
      if (t.getRank() == 0 && t.getShape() != stacked.getShape()) {
        Value c = toBody(o);
        if (!c)
          return {};
        map.map(o, c);
        continue;
      }
      if (t.getShape() != stacked.getShape())
        return failV("sink: operand shapes differ from the ys shape");
      RankedTensorType sliceType = kiln::lax::dropDim(t, axis);
      if (auto c = o.getDefiningOp<kiln::lax::ConstantOp>();
          c && isa<SplatElementsAttr>(c.getValue())) {
        OperationState st(op->getLoc(), kiln::lax::ConstantOp::getOperationName());
        st.addAttribute("value", SplatElementsAttr::get(
                                     sliceType, cast<SplatElementsAttr>(c.getValue())
                                                    .getSplatValue<Attribute>()));
        st.addTypes(sliceType);
        map.map(o, record(Operation::create(st), Place::Body)->getResult(0));
        continue;
      }
      if (auto b = o.getDefiningOp<kiln::lax::BroadcastInDimOp>();
          b && !llvm::is_contained(b.getBroadcastDimensions(), axis) &&
          usableBeforeScan(b.getOperand())) {
        Value c = toBody(b.getOperand());
        if (!c)
          return {};
        SmallVector<int64_t> dims;
        for (int64_t d : b.getBroadcastDimensions())
          dims.push_back(d < axis ? d : d - 1);
        OpBuilder detached(rewriter.getContext());
        auto nb = kiln::lax::BroadcastInDimOp::create(detached, op->getLoc(), c,
                                                      sliceType.getShape(), dims);
        map.map(o, record(nb, Place::Body)->getResult(0));
        continue;
      }
      if (!usableBeforeScan(o))
        return failV("sink: an operand is defined after the scan");
      ext.xs.push_back(o);
      ext.xsAxes.push_back(axis);
      map.map(o, placeholder(sliceType, XsArg, ext.xs.size() - 1));
    }
    Operation *clone = op->clone(map);
    clone->getResult(0).setType(kiln::lax::dropDim(ranked(op->getResult(0)), axis));
    record(clone, Place::Body);
    ysSlice.push_back(clone->getResult(0));
    ext.ysAxes.push_back(axis);
    return placeholder(ranked(op->getResult(0)), YsResult, ext.ysAxes.size() - 1);
  }

  bool plan() override {
    return planRewrite() && (removal.action.empty() || removal.plan(scan, why));
  }

  bool planRewrite() {
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

  Value real(Value v, kiln::ExtendedScan *ex, ValueRange consts, ValueRange carries,
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

  void apply() override {
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
};
} // namespace

std::unique_ptr<RegionRewritePlan> kiln::rules::region::makeRegionRewrite(RewriterBase &rw,
                                                                          const Rule &rule,
                                                                          Operation *root,
                                                                          Env env) {
  return std::make_unique<RegionRewrite>(rw, rule, root, std::move(env));
}
