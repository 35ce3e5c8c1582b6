//===- RegionRules.cpp - rules that see inside scan, while and cond -------===//
//
// A rule with a `loop` section is a region rule (docs/rules.md, "Rules that
// see inside loops"). PDL has no regions, so such a rule runs as a C++
// pattern, defined here with the load-time checks of such rules: Kiln's
// matcher (matchRule: the match DAG, the `loop` bindings, `where`), then
// the rewrite, planned in full before the IR is touched and then applied.
//
// The other files of region rules, sharing rules/RegionRulesImpl.h:
// RegionMatch.cpp, the role functions and predicates of `loop` and `where`
// (ordinary native functions: they work in any rule's `where`);
// RegionActions.cpp, the rewrite actions (scan, while, cond);
// RegionDependence.cpp, what a loop body's values depend on (only_consts,
// depends_on_carries, only_xs).
//
//===----------------------------------------------------------------------===//
#include "rules/Evaluator.h"
#include "rules/NativeRegistry.h"
#include "rules/PdlText.h"
#include "rules/PluginLoader.h"
#include "rules/RegionRulesImpl.h"
#include "rules/RuleParser.h"
#include "rules/RuleRuntime.h"

#include "dialect/LaxControlFlowOps.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

#include <set>

using namespace kiln::rules;
using namespace kiln::rules::region;
using namespace mlir;

//===----------------------------------------------------------------------===//
// Load-time checks
//===----------------------------------------------------------------------===//

namespace {
struct Checker {
  MLIRContext *ctx;
  const CompiledRule &compiled;
  const Rule &rule;
  const NativeScope &natives;
  bool failed = false;
  std::set<std::string> bound; ///< "$x" captures, node and binding names

  void error(const SrcLoc &l, const std::string &m) {
    if (!failed)
      emitError(toLocation(ctx, l)) << "rule '" << rule.name << "': " << m;
    failed = true;
  }

  /// Names and calls in an expression; `inRewrite` allows ops and actions.
  void check(const ExprP &e, bool inRewrite) {
    walkExpr(e, [&](const ExprP &x) {
      if (failed)
        return;
      switch (x->kind) {
      case Expr::Capture:
        if (!bound.count("$" + x->name))
          error(x->loc, "'$" + x->name + "' is used but never bound (in match or loop)");
        return;
      case Expr::Ref:
        if (!bound.count(x->name) && parseLiteral(ctx, x->name).kind == Val::None)
          error(x->loc, "unknown name '" + x->name + "' (not a match node, a loop binding, a "
                        "rewrite node, a type, or an attribute)");
        return;
      case Expr::Literal:
        if (parseLiteral(ctx, x->name).kind == Val::None)
          error(x->loc, "`" + x->name + "` is not a valid MLIR attribute or type");
        return;
      case Expr::Wildcard:
        error(x->loc, "'_' cannot appear here");
        return;
      case Expr::Op: {
        if (!inRewrite) {
          error(x->loc, "an op cannot appear inside an expression");
          return;
        }
        auto reg = checkOp(ctx, *x, [&](const SrcLoc &l, const std::string &m) { error(l, m); });
        if (!failed && reg && !x->type && !reg->hasInterface<InferTypeOpInterface>())
          error(x->loc, "cannot infer the result types of '" + x->name +
                            "'; give them with `-> $t` or `-> type_of($x)`");
        return;
      }
      case Expr::Call: {
        auto act = actions().find(x->name);
        if (act != actions().end()) {
          if (!inRewrite) {
            error(x->loc, "'" + x->name + "' is a rewrite action; it can only appear in 'rewrite'");
            return;
          }
          if (x->args.size() < act->second.first || x->args.size() > act->second.second)
            error(x->loc, "'" + x->name + "' takes " + std::to_string(act->second.first) +
                              (act->second.first == act->second.second
                                   ? ""
                                   : " or " + std::to_string(act->second.second)) +
                              " argument(s), got " + std::to_string(x->args.size()));
          return;
        }
        const NativeFunction *f = natives.lookup(x->name);
        if (!f) {
          error(x->loc, unknownNativeMessage(x->name));
          return;
        }
        x->native = f; // as PdlGen does: no lookup by name per evaluation
        if (f->role == NativeFunction::Rewrite) {
          error(x->loc, "'" + x->name + "' is a native rewrite; a region rule rewrites with "
                        "its own actions (add_carry, add_ys, sink, hoist, ...)");
          return;
        }
        size_t want = f->args.size();
        if (f->variadic ? x->args.size() + 1 < want : x->args.size() != want)
          error(x->loc, "'" + x->name + "' takes " + (f->variadic ? "at least " : "") +
                            std::to_string(f->variadic ? want - 1 : want) + " argument(s), got " +
                            std::to_string(x->args.size()));
        return;
      }
      default:
        return;
      }
    });
  }

  LogicalResult run() {
    if (rule.rewriteCall) {
      error(rule.rewriteCall->loc, "a region rule (one with 'loop') rewrites with a mapping of "
                                   "node names, not a native call");
      return failure();
    }
    std::set<std::string> matchNodes;
    for (const Node &n : rule.match) {
      matchNodes.insert(n.name);
      bound.insert(n.name);
      walkExpr(n.expr, [&](const ExprP &x) {
        if (x->kind == Expr::Capture)
          bound.insert("$" + x->name);
      });
    }
    for (const Node &n : rule.loop) {
      if (bound.count(n.name))
        error(n.loc, "loop binding '" + n.name + "' is already bound");
      check(n.expr, false);
      bound.insert(n.name);
    }
    for (const ExprP &w : rule.where)
      check(w, false);
    bool rootReplaced = false;
    for (const Node &n : rule.rewrite) {
      bool isMatch = matchNodes.count(n.name);
      if (!isMatch && bound.count(n.name))
        error(n.loc, "rewrite node '" + n.name + "' is already bound");
      std::vector<ExprP> exprs = n.values.empty() ? std::vector<ExprP>{n.expr} : n.values;
      for (const ExprP &e : exprs) {
        // add_carry's update sees the new carry by the node's name.
        if (e->kind == Expr::Call && e->name == "add_carry") {
          if (isMatch || !n.values.empty())
            error(e->loc, "add_carry must define a new rewrite node (its name is the carry)");
          if (e->args.size() == 3) {
            check(e->args[0], true);
            check(e->args[1], true);
            bound.insert(n.name);
            check(e->args[2], true);
          }
          continue;
        }
        if (e->name.rfind("remove_", 0) == 0 && e->kind == Expr::Call &&
            (!isMatch || rule.rewrite.size() != 1))
          error(e->loc, "'" + e->name + "' must be the only rewrite, of the match node that is "
                        "the scan, while or cond (`s: " + e->name + "(s, i)`)");
        check(e, true);
      }
      bound.insert(n.name);
      rootReplaced |= n.name == compiled.rootNode;
    }
    if (!failed && !rootReplaced)
      error(rule.loc, "the rewrite must replace the root '" + compiled.rootNode + "'");
    return failure(failed);
  }
};
} // namespace

LogicalResult kiln::rules::checkRegionRule(MLIRContext *ctx, const CompiledRule &rule,
                                           const NativeScope &natives) {
  Checker c{ctx, rule, rule.rule, natives};
  return c.run();
}

//===----------------------------------------------------------------------===//
// The pattern
//===----------------------------------------------------------------------===//

namespace {
/// A cheap necessary condition for a rule whose first `loop` binding is a
/// role function of the root (`parent_scan(root)`, `parent_while(root)`,
/// `parent_cond(root)`, `ys_operand(root)`): when it does not hold, that binding fails, so the
/// rule cannot match. Rules rooted at any op (`_`) are tried on every op;
/// this keeps them as cheap as a rule rooted at one op name.
enum class Prefilter { None, InScan, InWhile, InCond, ReadsScan };
Prefilter prefilterOf(const CompiledRule &rule) {
  if (rule.rule.loop.empty())
    return Prefilter::None;
  const Expr &e = *rule.rule.loop.front().expr;
  if (e.kind != Expr::Call || e.args.size() != 1 || e.args[0]->kind != Expr::Ref ||
      e.args[0]->name != rule.rootNode || e.args[0]->resultIndex != 0)
    return Prefilter::None;
  if (e.name == "parent_scan")
    return Prefilter::InScan;
  if (e.name == "parent_while")
    return Prefilter::InWhile;
  if (e.name == "parent_cond")
    return Prefilter::InCond;
  if (e.name == "ys_operand")
    return Prefilter::ReadsScan;
  return Prefilter::None;
}

struct RegionRulePattern : public RewritePattern {
  RegionRulePattern(const CompiledRule &rule, RuleRuntime &runtime, MLIRContext *ctx)
      : RewritePattern(rule.rootOpName, rule.rule.benefit, ctx), rule(rule), runtime(runtime),
        prefilter(prefilterOf(rule)) {}
  struct AnyOp {};
  RegionRulePattern(const CompiledRule &rule, RuleRuntime &runtime, MLIRContext *ctx, AnyOp)
      : RewritePattern(MatchAnyOpTypeTag(), rule.rule.benefit, ctx), rule(rule),
        runtime(runtime), prefilter(prefilterOf(rule)) {}

  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    switch (prefilter) {
    case Prefilter::None:
      break;
    case Prefilter::InScan:
      if (!isa_and_nonnull<ScanOp>(op->getParentOp()))
        return failure();
      break;
    case Prefilter::InWhile:
      if (!isa_and_nonnull<WhileOp>(op->getParentOp()))
        return failure();
      break;
    case Prefilter::InCond:
      if (!isa_and_nonnull<CondOp>(op->getParentOp()))
        return failure();
      break;
    case Prefilter::ReadsScan:
      if (llvm::none_of(op->getOperands(), [](Value v) { return bool(v.getDefiningOp<ScanOp>()); }))
        return failure();
      break;
    }
    if (!runtime.mayMatch())
      return failure();
    Env env;
    if (!matchRule(rule, op, rewriter, env))
      return failure();
    std::unique_ptr<RegionRewritePlan> rw =
        makeRegionRewrite(rewriter, rule.rule, op, std::move(env));
    if (!rw->plan()) {
      // A rewrite that cannot be typed as written is a mistake in the rule:
      // say so once, naming it (the IR is untouched).
      if (rw->ruleError && runtime.warned.insert(rule.rule.name).second)
        emitWarning(op->getLoc()) << "rule '" << rule.rule.name << "' is not applied: " << rw->why;
      return rewriter.notifyMatchFailure(op, "rule '" + rule.rule.name + "': " + rw->why);
    }
    runtime.begin(rule, op);
    rw->apply();
    return runtime.end(rule);
  }
  const CompiledRule &rule;
  RuleRuntime &runtime;
  Prefilter prefilter;
};
} // namespace

std::unique_ptr<RewritePattern> kiln::rules::makeRegionRulePattern(const CompiledRule &rule,
                                                                   RuleRuntime &runtime,
                                                                   MLIRContext *ctx) {
  if (rule.rootOpName == "_" || rule.rootOpName.empty())
    return std::make_unique<RegionRulePattern>(rule, runtime, ctx, RegionRulePattern::AnyOp());
  return std::make_unique<RegionRulePattern>(rule, runtime, ctx);
}
