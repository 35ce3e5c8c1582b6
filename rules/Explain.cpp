//===- Explain.cpp - why a rule does not match (--rule-explain) -----------===//
//
// Interprets a rule's match DAG directly against the IR (the PDL bytecode
// cannot say which check failed) and reports the first failing part: an op
// name, an operand count, a missing or different attribute, a capture bound
// to two different values, or a `where` condition.
//
//===----------------------------------------------------------------------===//
#include "rules/RuleRuntime.h"

#include "rules/Evaluator.h"
#include "rules/ExprParser.h"

#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/StringExtras.h"

using namespace kiln::rules;
using namespace mlir;

namespace {
struct Explainer {
  const Rule &rule;
  const std::map<std::string, ExprP> *nodes = nullptr;
  RewriterBase &rewriter;
  Env env;
  std::string why;
  /// Whether failure messages are wanted (--rule-explain), or only the
  /// answer (patterns: the expression text is not rendered).
  bool wantWhy = true;

  bool fail(const std::string &msg) {
    why = msg;
    return false;
  }

  bool bindValue(const std::string &key, const Val &v) {
    auto it = env.find(key);
    if (it == env.end()) {
      env[key] = v;
      return true;
    }
    if (valEquals(it->second, v))
      return true;
    return fail("capture '" + key + "' would be bound to two different things (" +
                it->second.str_() + " and " + v.str_() + ")");
  }

  // Messages are built only on failure (this matcher also runs region and
  // native-call rules on every candidate op).
  bool matchOperandDef(const Expr &a, Value v, llvm::function_ref<std::string()> desc) {
    Operation *def = v.getDefiningOp();
    auto want = [&] { return a.kind == Expr::Ref ? "node '" + a.name + "'" : "'" + a.name + "'"; };
    if (!def)
      return fail(desc() + " is a block argument, not " + want());
    if (a.kind == Expr::Ref) {
      if (cast<OpResult>(v).getResultNumber() != unsigned(a.resultIndex))
        return fail(desc() + " is not result #" + std::to_string(a.resultIndex) + " of " + want());
      auto it = env.find(a.name);
      if (it != env.end())
        return it->second.op == def ? true : fail(desc() + " is not the op bound to " + want());
      return matchOp(*nodes->at(a.name), def, a.name);
    }
    return matchOp(a, def, "", desc);
  }

  /// `what` names a nested (unnamed) op by where it is: "operand #0 of node
  /// 'root'".
  bool matchOp(const Expr &e, Operation *op, const std::string &name,
               llvm::function_ref<std::string()> what = nullptr) {
    auto self = [&]() -> std::string {
      return !name.empty() ? "node '" + name + "'" : what ? what() : "'" + e.name + "'";
    };
    if (e.name != "_" && op->getName().getStringRef() != e.name)
      return fail(self() + " expects '" + e.name + "' but found '" +
                  op->getName().getStringRef().str() + "'");
    bool variadic = llvm::any_of(e.args, [](const ExprP &a) { return a->variadic; });
    if (!variadic && op->getNumOperands() != e.args.size())
      return fail(self() + " expects " + std::to_string(e.args.size()) + " operand(s), found " +
                  std::to_string(op->getNumOperands()));
    for (size_t i = 0; i < e.args.size() && i < op->getNumOperands(); ++i) {
      const Expr &a = *e.args[i];
      Value v = op->getOperand(i);
      auto desc = [&] { return "operand #" + std::to_string(i) + " of " + self(); };
      if (a.kind == Expr::Capture) {
        if (a.variadic) {
          // `$xs...` takes the remaining operands.
          Val rest;
          rest.kind = Val::ValueList;
          for (Value x : op->getOperands().drop_front(i))
            rest.values.push_back(x);
          if (!bindValue("$" + a.name, rest))
            return false;
          break;
        }
        if (!bindValue("$" + a.name, Val::ofValue(v)))
          return false;
      } else if (a.kind == Expr::Ref || a.kind == Expr::Op) {
        if (!matchOperandDef(a, v, desc))
          return false;
      }
    }
    for (auto &[attrName, v] : e.attrs) {
      Attribute attr = op->getAttr(attrName);
      if (!attr)
        return fail(self() + " has no attribute '" + attrName + "'");
      if (v->kind == Expr::Capture) {
        if (!bindValue("$" + v->name, Val::ofAttr(attr)))
          return false;
      } else if (v->kind != Expr::Wildcard) {
        std::string err;
        auto want = evaluate(*v, env, rewriter, &err);
        if (!want)
          return fail("attribute '" + attrName + "' of " + self() + ": " + err);
        if (!valEquals(Val::ofAttr(attr), *want))
          return fail("attribute '" + attrName + "' of " + self() + " is " +
                      Val::ofAttr(attr).str_() + ", the rule wants " + want->str_());
      }
    }
    if (e.type) {
      if (op->getNumResults() != 1)
        return fail(self() + " has " + std::to_string(op->getNumResults()) +
                    " results; a result type needs exactly one");
      Type t = op->getResult(0).getType();
      if (e.type->kind == Expr::Capture) {
        if (!bindValue("$" + e.type->name, Val::ofType(t)))
          return false;
      } else {
        Val want = parseLiteral(op->getContext(), e.type->name);
        if (want.asType() != t)
          return fail(self() + " has result type " + Val::ofType(t).str_() + ", the rule wants " +
                      e.type->name);
      }
    }
    if (!name.empty())
      env[name] = Val::ofOp(op);
    return true;
  }

  bool explain(const ExprP &root, const std::string &rootName, Operation *op) {
    env.clear();
    why.clear();
    if (!matchOp(*root, op, rootName))
      return false;
    // Region rules: the `loop` bindings, in order (a binding that cannot be
    // computed means no match).
    for (const Node &n : rule.loop) {
      std::string err;
      auto v = evaluate(*n.expr, env, rewriter, wantWhy ? &err : nullptr);
      if (!v)
        return wantWhy ? fail("loop binding '" + n.name + "' cannot be computed: " + err) : false;
      env[n.name] = *v;
    }
    for (size_t i = 0; i < rule.where.size(); ++i) {
      std::string err;
      auto v = evaluate(*rule.where[i], env, rewriter, wantWhy ? &err : nullptr);
      if ((!v || !v->asBool().value_or(false)) && !wantWhy)
        return false; // the message (printExpr) only for --rule-explain
      if (!v || !v->asBool().value_or(false))
        return fail("where #" + std::to_string(i + 1) + " `" + printExpr(*rule.where[i]) +
                    "` " + (v ? "is false" : "cannot be evaluated: " + err));
    }
    return true;
  }
};
} // namespace

bool kiln::rules::matchRule(const CompiledRule &compiled, Operation *op, RewriterBase &rewriter,
                           Env &env, std::string *why) {
  const Rule &rule = compiled.rule;
  if (compiled.rootOpName != "_" && op->getName().getStringRef() != compiled.rootOpName) {
    if (why)
      *why = "the root expects '" + compiled.rootOpName + "'";
    return false;
  }
  if (compiled.matchVariants.empty()) {
    std::map<std::string, ExprP> original;
    for (const Node &n : rule.match)
      original[n.name] = n.expr;
    unsigned variants = 1u << rule.anyOrder.size();
    for (unsigned v = 0; v < variants; ++v) {
      std::map<std::string, ExprP> nodes = original;
      for (size_t i = 0; i < rule.anyOrder.size(); ++i)
        if (v & (1u << i)) {
          auto e = std::make_shared<Expr>(*original[rule.anyOrder[i]]);
          std::swap(e->args[0], e->args[1]);
          nodes[rule.anyOrder[i]] = e;
        }
      compiled.matchVariants.push_back(std::move(nodes));
    }
  }
  Explainer ex{rule, nullptr, rewriter, {}, {}};
  ex.wantWhy = why != nullptr;
  const std::string &rootName = compiled.rootNode;
  for (unsigned v = 0; v < compiled.matchVariants.size(); ++v) {
    ex.nodes = &compiled.matchVariants[v];
    if (ex.explain(ex.nodes->at(rootName), rootName, op)) {
      env = std::move(ex.env);
      return true;
    }
    if (v == 0 && why)
      *why = ex.why; // the first operand order's reason
  }
  return false;
}

void kiln::rules::explainRule(const CompiledRule &compiled, bool enabled, Operation *scope) {
  const Rule &rule = compiled.rule;
  IRRewriter rewriter(scope->getContext());
  unsigned candidates = 0;
  scope->walk([&](Operation *op) {
    if (compiled.rootOpName != "_" && op->getName().getStringRef() != compiled.rootOpName)
      return;
    ++candidates;
    Env env;
    std::string why;
    if (!matchRule(compiled, op, rewriter, env, &why))
      op->emitRemark() << "rule '" << rule.name << "' does not match: " << why;
    else if (!enabled)
      op->emitRemark() << "rule '" << rule.name
                       << "' matches but is disabled by its tags; enable them with --rule-tags=+"
                       << llvm::join(rule.tags, ",+");
    else
      op->emitRemark() << "rule '" << rule.name << "' matches";
  });
  if (!candidates)
    emitRemark(scope->getLoc()) << "rule '" << rule.name << "' does not match: no '"
                                << compiled.rootOpName << "' op (its root) in the input";
}
