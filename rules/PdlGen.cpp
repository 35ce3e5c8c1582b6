//===- PdlGen.cpp - compiling one rule to pdl.pattern text ----------------===//
//
// The match DAG becomes pdl.operand/attribute/type/operation/result ops; a
// capture used twice is the same PDL value, so PDL checks the equality.
// Everything PDL cannot express directly (where conditions, attribute
// literals in the match, computed attributes, native rewrites) becomes a
// "site": a per-rule native function that evaluates the rule's expression.
// Rewrite regions compute all attribute/type sites before creating any op,
// so a failing computation aborts the rewrite with the IR untouched.
//
//===----------------------------------------------------------------------===//
#include "rules/Evaluator.h"
#include "rules/ExprParser.h"
#include "rules/NativeRegistry.h"
#include "rules/PdlText.h"
#include "rules/PluginLoader.h"
#include "rules/RuleParser.h"
#include "rules/RuleSet.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "llvm/ADT/StringExtras.h"

#include <map>
#include <set>

using namespace kiln::rules;
using namespace mlir;

namespace {

/// What a capture binds.
enum class CapKind { Value, ValueRange, Attr, Type };

const char *capKindName(CapKind k) {
  switch (k) {
  case CapKind::Value: return "value";
  case CapKind::ValueRange: return "value list";
  case CapKind::Attr: return "attribute";
  case CapKind::Type: return "type";
  }
  return "?";
}
const char *pdlType(CapKind k) {
  switch (k) {
  case CapKind::Value: return "!pdl.value";
  case CapKind::ValueRange: return "!pdl.range<value>";
  case CapKind::Attr: return "!pdl.attribute";
  case CapKind::Type: return "!pdl.type";
  }
  return "?";
}

struct Cap {
  CapKind kind;
  std::string ssa;
};

/// The generator of one rule's pdl.pattern text (all its any_order variants).
class Gen {
public:
  Gen(MLIRContext *ctx, const Rule &rule, const std::string &prefix, const NativeScope &natives,
      CompiledRule &out)
      : ctx(ctx), rule(rule), prefix(prefix), natives(natives), out(out) {}

  LogicalResult run();

private:
  MLIRContext *ctx;
  const Rule &rule;
  std::string prefix;
  const NativeScope &natives;
  CompiledRule &out;
  bool failed = false;
  std::map<std::string, const Node *> matchNodes;
  std::string rootName;

  // Per-variant state.
  std::string text, pre, checks; ///< match body, rewrite prologue, match checks
  unsigned nextId = 0;
  std::map<std::string, Cap> caps;
  std::map<std::string, std::string> nodeSsa, nodeTypes, rwSsa;
  std::set<std::string> inProgress;
  std::vector<std::pair<ExprP, int>> wheres;
  std::map<std::string, ExprP> swapped; ///< any_order variant: node -> expr

  std::string error(const SrcLoc &loc, const std::string &msg) {
    if (!failed)
      emitError(toLocation(ctx, loc)) << msg;
    failed = true;
    return "";
  }
  std::string fresh() { return "%v" + std::to_string(nextId++); }
  void line(const std::string &s, std::string *to = nullptr) {
    (to ? *to : text) += "    " + s + "\n";
  }

  std::optional<RegisteredOperationName> lookupOp(const Expr &e) {
    return checkOp(ctx, e, [&](const SrcLoc &l, const std::string &m) { error(l, m); });
  }

  std::string bind(const Expr &e, CapKind kind) {
    auto it = caps.find(e.name);
    if (it != caps.end()) {
      if (it->second.kind != kind)
        return error(e.loc, "capture '$" + e.name + "' is a " + capKindName(it->second.kind) +
                                " and cannot be used as a " + capKindName(kind));
      return it->second.ssa;
    }
    std::string v = fresh();
    const char *op[] = {"pdl.operand", "pdl.operands", "pdl.attribute", "pdl.type"};
    line(v + " = " + op[int(kind)]);
    caps[e.name] = {kind, v};
    return v;
  }

  /// `: T` on an op: a capture or a literal type.
  std::string typeValue(const ExprP &t, bool inRewrite) {
    if (t->kind == Expr::Capture)
      return bind(*t, CapKind::Type);
    if (t->kind == Expr::Literal || t->kind == Expr::Ref) {
      Val v = parseLiteral(ctx, t->name);
      if (v.kind != Val::Type)
        return error(t->loc, "'" + t->name + "' is not an MLIR type");
      std::string s = fresh();
      line(s + " = pdl.type : " + t->name);
      return s;
    }
    if (inRewrite) {
      Site &site = addSite(Site::Value, t, -1);
      site.resultIsType = true;
      if (failed)
        return "";
      std::string s = fresh();
      line(s + " = pdl.apply_native_rewrite \"" + site.pdlName + "\"" + siteArgs(site) +
               " : !pdl.type",
           &pre);
      addCheck(t, true);
      return s;
    }
    return error(t->loc, "a result type in 'match' must be a $capture or a type");
  }

  std::string matchNode(const std::string &name, const SrcLoc &useLoc) {
    if (auto it = nodeSsa.find(name); it != nodeSsa.end())
      return it->second;
    if (!inProgress.insert(name).second)
      return error(useLoc, "match node '" + name + "' depends on itself");
    const Node *n = matchNodes[name];
    ExprP e = swapped.count(name) ? swapped[name] : n->expr;
    if (e->kind != Expr::Op)
      return error(e->loc, "match node '" + name + "' must be an op such as lax.neg($x)");
    std::string types;
    std::string ssa = matchOp(*e, &types);
    nodeSsa[name] = ssa;
    nodeTypes[name] = types;
    return ssa;
  }

  std::string matchOp(const Expr &e, std::string *typesOut = nullptr) {
    if (e.name != "_" && !lookupOp(e))
      return "";
    if (e.name == "_" && !e.attrs.empty())
      return error(e.attrs[0].second->loc, "an op of any name ('_') cannot constrain attributes; "
                                           "use `where` instead");
    std::vector<std::pair<std::string, std::string>> operands;
    for (const ExprP &a : e.args) {
      std::string v;
      const char *ty = "!pdl.value";
      switch (a->kind) {
      case Expr::Capture:
        v = bind(*a, a->variadic ? CapKind::ValueRange : CapKind::Value);
        if (a->variadic)
          ty = "!pdl.range<value>";
        break;
      case Expr::Wildcard:
        v = fresh();
        line(v + " = pdl.operand");
        break;
      case Expr::Ref: {
        if (!matchNodes.count(a->name))
          return error(a->loc, "unknown node '" + a->name +
                                   "' (an operand is a $capture, a match node, '_' or an op)");
        std::string op = matchNode(a->name, a->loc);
        if (failed)
          return "";
        v = fresh();
        line(v + " = pdl.result " + std::to_string(a->resultIndex) + " of " + op);
        break;
      }
      case Expr::Op: {
        std::string op = matchOp(*a);
        if (failed)
          return "";
        v = fresh();
        line(v + " = pdl.result 0 of " + op);
        break;
      }
      default:
        return error(a->loc, "an operand must be a $capture, a match node, '_' or an op");
      }
      if (failed)
        return "";
      operands.emplace_back(v, ty);
    }
    std::vector<std::pair<std::string, std::string>> attrs;
    for (auto &[name, v] : e.attrs) {
      std::string a;
      if (v->kind == Expr::Capture) {
        a = bind(*v, CapKind::Attr);
      } else {
        a = fresh();
        line(a + " = pdl.attribute");
        if (v->kind != Expr::Wildcard) {
          // A literal or expression: the attribute must equal it.
          std::string hidden = "__attr" + std::to_string(caps.size());
          caps[hidden] = {CapKind::Attr, a};
          auto lhs = std::make_shared<Expr>(Expr::Capture);
          lhs->name = hidden;
          lhs->loc = v->loc;
          auto eq = std::make_shared<Expr>(Expr::Binary);
          eq->name = "==";
          eq->args = {lhs, v};
          eq->loc = v->loc;
          wheres.emplace_back(eq, -1);
        }
      }
      if (failed)
        return "";
      attrs.emplace_back(name, a);
    }
    std::string typeClause;
    if (e.type) {
      std::string t = typeValue(e.type, false);
      if (failed)
        return "";
      typeClause = " -> (" + t + " : !pdl.type)";
    } else {
      std::string t = fresh();
      line(t + " = pdl.types");
      typeClause = " -> (" + t + " : !pdl.range<type>)";
      if (typesOut)
        *typesOut = t;
    }
    std::string op = fresh();
    line(op + " = " + pdlOperation(e.name, operands, attrs) + typeClause);
    return op;
  }

  /// Checks an expression evaluated at run time and collects the names it
  /// reads (the site's PDL arguments).
  void collect(const ExprP &e, std::vector<std::string> &names, bool allowRewrite) {
    walkExpr(e, [&](const ExprP &x) {
      if (failed)
        return;
      switch (x->kind) {
      case Expr::Capture:
        if (!caps.count(x->name)) {
          error(x->loc, "capture '$" + x->name + "' is used but never bound in 'match'");
          return;
        }
        if (!llvm::is_contained(names, "$" + x->name))
          names.push_back("$" + x->name);
        return;
      case Expr::Ref:
        if (matchNodes.count(x->name)) {
          matchNode(x->name, x->loc);
          if (!llvm::is_contained(names, x->name))
            names.push_back(x->name);
        } else if (parseLiteral(ctx, x->name).kind == Val::None) {
          error(x->loc, "unknown name '" + x->name +
                            "' (not a match node, a type, or an attribute)");
        }
        return;
      case Expr::Literal:
        if (parseLiteral(ctx, x->name).kind == Val::None)
          error(x->loc, "`" + x->name + "` is not a valid MLIR attribute or type");
        return;
      case Expr::Op:
        error(x->loc, "an op cannot appear inside an expression");
        return;
      case Expr::Wildcard:
        error(x->loc, "'_' cannot appear inside an expression");
        return;
      case Expr::Call: {
        const NativeFunction *f = natives.lookup(x->name);
        if (!f) {
          error(x->loc, unknownNativeMessage(x->name));
          return;
        }
        x->native = f;
        if (f->role == NativeFunction::Rewrite && !(allowRewrite && x == e)) {
          error(x->loc, "'" + x->name + "' is a native rewrite; call it as `rewrite: " +
                            x->name + "(...)`");
          return;
        }
        size_t want = f->args.size();
        if (f->variadic ? x->args.size() + 1 < want : x->args.size() != want) {
          error(x->loc, "'" + x->name + "' takes " + (f->variadic ? "at least " : "") +
                            std::to_string(f->variadic ? want - 1 : want) + " argument(s), got " +
                            std::to_string(x->args.size()));
          return;
        }
        // Kinds known statically: captures.
        for (size_t i = 0; i < x->args.size(); ++i) {
          ArgKind k = i < want ? f->args[i] : f->args.back();
          const Expr &a = *x->args[i];
          if (a.kind != Expr::Capture || !caps.count(a.name))
            continue;
          CapKind ck = caps[a.name].kind;
          bool bad = (ck == CapKind::Attr && (k == ArgKind::Value || k == ArgKind::Op ||
                                               k == ArgKind::Type)) ||
                     (ck == CapKind::Value && (k == ArgKind::Attribute || k == ArgKind::Int ||
                                               k == ArgKind::IntList || k == ArgKind::Bool));
          if (bad) {
            error(a.loc, "argument " + std::to_string(i + 1) + " of '" + x->name +
                             "' must be " + argKindName(k) + ", but '$" + a.name + "' is a " +
                             capKindName(ck));
            return;
          }
        }
        return;
      }
      default:
        return;
      }
    });
  }

  /// A PDL rewrite may not fail under the greedy driver: every computed
  /// attribute/type is also checked, as a constraint, while matching.
  void addCheck(const ExprP &e, bool isType) {
    Site &check = addSite(Site::Check, e, -1);
    check.resultIsType = isType;
    line("pdl.apply_native_constraint \"" + check.pdlName + "\"" + siteArgs(check, true),
         &checks);
  }

  /// When a rewrite op reads only match bindings, its result types are
  /// inferred once already while matching: a rule whose op cannot be typed
  /// (say a permutation of the wrong size) then does not match instead of
  /// failing inside the rewrite.
  void addInferCheck(const Expr &e) {
    for (const ExprP &a : e.args) {
      bool bound = (a->kind == Expr::Capture && !a->variadic && caps.count(a->name) &&
                    caps[a->name].kind == CapKind::Value) ||
                   (a->kind == Expr::Ref && matchNodes.count(a->name) && !rwSsa.count(a->name));
      if (!bound) {
        // Types known only while rewriting: the planned rewriter runs it.
        if (!(a->kind == Expr::Capture && a->variadic))
          out.planned = true;
        return;
      }
    }
    Site &check = addSite(Site::InferCheck, nullptr, -1);
    check.opName = e.name;
    check.operandExprs = e.args;
    check.attrExprs = e.attrs;
    std::vector<std::string> names;
    for (const ExprP &a : e.args)
      collect(a, names, false);
    for (auto &[n, v] : e.attrs)
      collect(v, names, false);
    Site &site = out.sites.back();
    site.argNames = names;
    line("pdl.apply_native_constraint \"" + site.pdlName + "\"" + siteArgs(site, true), &checks);
  }

  Site &addSite(Site::Kind kind, const ExprP &e, int whereIndex) {
    Site s;
    s.kind = kind;
    s.expr = e;
    s.whereIndex = whereIndex;
    s.pdlName = prefix + "_s" + std::to_string(out.sites.size());
    if (e)
      collect(e, s.argNames, kind == Site::Call);
    out.sites.push_back(std::move(s));
    return out.sites.back();
  }

  std::string siteArgs(const Site &s, bool rootIfEmpty = false) {
    std::vector<std::string> names = s.argNames;
    std::string vals, tys;
    for (const std::string &n : names) {
      std::string v, t;
      if (n[0] == '$') {
        const Cap &c = caps[n.substr(1)];
        v = c.ssa;
        t = pdlType(c.kind);
      } else {
        v = nodeSsa[n];
        t = "!pdl.operation";
      }
      vals += (vals.empty() ? "" : ", ") + v;
      tys += (tys.empty() ? "" : ", ") + t;
    }
    if (vals.empty() && rootIfEmpty) {
      vals = nodeSsa[rootName];
      tys = "!pdl.operation";
    }
    return vals.empty() ? "" : "(" + vals + " : " + tys + ")";
  }

  /// A value in a rewrite: a capture, a node's result, or a new op's result.
  std::pair<std::string, std::string> rwValue(const ExprP &e) {
    switch (e->kind) {
    case Expr::Capture: {
      auto it = caps.find(e->name);
      if (it == caps.end())
        return {error(e->loc, "capture '$" + e->name + "' is used but never bound in 'match'"),
                ""};
      if (it->second.kind != CapKind::Value && it->second.kind != CapKind::ValueRange)
        return {error(e->loc, "capture '$" + e->name + "' is a " + capKindName(it->second.kind) +
                                  ", not a value"),
                ""};
      return {it->second.ssa, pdlType(it->second.kind)};
    }
    case Expr::Ref: {
      std::string op;
      if (rwSsa.count(e->name))
        op = rwSsa[e->name];
      else if (matchNodes.count(e->name))
        op = nodeSsa[e->name];
      else
        return {error(e->loc, "unknown node '" + e->name + "'"), ""};
      std::string v = fresh();
      line(v + " = pdl.result " + std::to_string(e->resultIndex) + " of " + op);
      return {v, "!pdl.value"};
    }
    case Expr::Op: {
      std::string op = rwOp(*e, "");
      if (failed)
        return {"", ""};
      std::string v = fresh();
      line(v + " = pdl.result 0 of " + op);
      return {v, "!pdl.value"};
    }
    default:
      return {error(e->loc, "expected a value: a $capture, a node name or an op"), ""};
    }
  }

  std::string rwOp(const Expr &e, const std::string &replaced) {
    if (e.name == "_")
      return error(e.loc, "a rewrite cannot create an op of any name ('_')");
    auto reg = lookupOp(e);
    if (!reg)
      return "";
    std::vector<std::pair<std::string, std::string>> operands, attrs;
    for (const ExprP &a : e.args) {
      auto v = rwValue(a);
      if (failed)
        return "";
      operands.push_back(v);
    }
    for (auto &[name, v] : e.attrs) {
      if (v->kind == Expr::Capture && caps.count(v->name) &&
          caps[v->name].kind == CapKind::Attr) {
        attrs.emplace_back(name, caps[v->name].ssa);
        continue;
      }
      if (v->kind == Expr::Wildcard)
        return error(v->loc, "'_' cannot be used in a rewrite");
      // An optional attribute copied (or left out): only the planned
      // rewriter can leave an attribute out.
      if (v->kind == Expr::Call && v->name == "copy_attr")
        out.planned = true;
      Site &site = addSite(Site::Value, v, -1);
      if (failed)
        return "";
      std::string a = fresh();
      line(a + " = pdl.apply_native_rewrite \"" + site.pdlName + "\"" + siteArgs(site) +
               " : !pdl.attribute",
           &pre);
      addCheck(v, false);
      attrs.emplace_back(name, a);
    }
    std::string typeClause;
    if (e.type) {
      std::string t = typeValue(e.type, true);
      if (failed)
        return "";
      typeClause = " -> (" + t + " : !pdl.type)";
      // A given type must agree with inference: checked by the planned
      // rewriter before the IR changes.
      if (reg->hasInterface<InferTypeOpInterface>())
        out.planned = true;
    } else if (reg->hasInterface<InferTypeOpInterface>()) {
      // PDL's built-in inference ignores op properties (and crashes on ops
      // that keep attributes there): infer with a native function instead.
      Site &site = addSite(Site::Infer, nullptr, -1);
      site.opName = e.name;
      site.numOperands = operands.size();
      std::string vals, tys;
      for (auto &[v, t] : operands) {
        vals += (vals.empty() ? "" : ", ") + v;
        tys += (tys.empty() ? "" : ", ") + t;
      }
      for (auto &[n, a] : attrs) {
        site.attrNames.push_back(n);
        vals += (vals.empty() ? "" : ", ") + a;
        tys += (tys.empty() ? "" : ", ") + std::string("!pdl.attribute");
      }
      std::string t = fresh();
      line(t + " = pdl.apply_native_rewrite \"" + site.pdlName + "\"" +
           (vals.empty() ? "" : "(" + vals + " : " + tys + ")") + " : !pdl.range<type>");
      typeClause = " -> (" + t + " : !pdl.range<type>)";
      addInferCheck(e);
    } else {
      if (replaced.empty() || nodeTypes[replaced].empty())
        return error(e.loc, "cannot infer the result types of '" + e.name +
                                "'; give them with `: $t` or `: type_of($x)`");
      typeClause = " -> (" + nodeTypes[replaced] + " : !pdl.range<type>)";
    }
    std::string op = fresh();
    line(op + " = " + pdlOperation(e.name, operands, attrs) + typeClause);
    return op;
  }

  std::string variant(unsigned index);
};

std::string Gen::variant(unsigned index) {
  text.clear();
  pre.clear();
  checks.clear();
  nextId = 0;
  caps.clear();
  nodeSsa.clear();
  nodeTypes.clear();
  rwSsa.clear();
  inProgress.clear();
  wheres.clear();
  swapped.clear();
  // Variant `index` swaps the operands of the any_order nodes whose bit is set.
  for (size_t i = 0; i < rule.anyOrder.size(); ++i)
    if (index & (1u << i)) {
      auto e = std::make_shared<Expr>(*matchNodes[rule.anyOrder[i]]->expr);
      std::swap(e->args[0], e->args[1]);
      swapped[rule.anyOrder[i]] = e;
    }

  std::string root = matchNode(rootName, rule.loc);
  if (failed)
    return "";
  // Matching stops once a rewrite broke the IR (--rule-verify): a PDL
  // rewrite cannot fail, so the stop has to be a constraint.
  Site &guard = addSite(Site::Guard, nullptr, -1);
  line("pdl.apply_native_constraint \"" + guard.pdlName + "\"(" + root + " : !pdl.operation)");
  // A region rule's `where` reads its `loop` bindings: checked and run by
  // rules/RegionRules.cpp; its PDL (never applied) checks the match alone.
  for (size_t i = 0; i < rule.where.size() && !rule.isRegion(); ++i)
    wheres.emplace_back(rule.where[i], int(i));
  for (auto &[e, idx] : wheres) {
    Site &site = addSite(Site::Where, e, idx);
    if (failed)
      return "";
    line("pdl.apply_native_constraint \"" + site.pdlName + "\"" + siteArgs(site, true));
  }

  // The rewrite region: begin hook, value sites (in `pre`), ops, end hook.
  std::string matchText = text;
  text.clear();
  Site &begin = addSite(Site::Begin, nullptr, -1);
  begin.argNames = {rootName};
  std::string beginLine = "pdl.apply_native_rewrite \"" + begin.pdlName + "\"(" + root +
                          " : !pdl.operation)";
  if (rule.isRegion()) {
    // Nothing: see above.
  } else if (rule.rewriteCall) {
    const NativeFunction *f = natives.lookup(rule.rewriteCall->name);
    if (f && f->role != NativeFunction::Rewrite)
      return error(rule.rewriteCall->loc, "'" + f->name + "' is not a native rewrite function");
    Site &call = addSite(Site::Call, rule.rewriteCall, -1);
    if (failed)
      return "";
    line("pdl.apply_native_rewrite \"" + call.pdlName + "\"" + siteArgs(call, true));
  } else {
    bool rootReplaced = false;
    for (const Node &n : rule.rewrite) {
      if (matchNodes.count(n.name)) {
        std::string target = nodeSsa[n.name];
        if (!n.values.empty()) {
          std::string vals, tys;
          for (const ExprP &v : n.values) {
            auto [s, t] = rwValue(v);
            if (failed)
              return "";
            vals += (vals.empty() ? "" : ", ") + s;
            tys += (tys.empty() ? "" : ", ") + t;
          }
          line("pdl.replace " + target + " with (" + vals + " : " + tys + ")");
        } else if (n.expr->kind == Expr::Op) {
          std::string op = rwOp(*n.expr, n.name);
          if (failed)
            return "";
          line("pdl.replace " + target + " with " + op);
        } else {
          auto [s, t] = rwValue(n.expr);
          if (failed)
            return "";
          line("pdl.replace " + target + " with (" + s + " : " + t + ")");
        }
        rootReplaced |= n.name == rootName;
        continue;
      }
      if (rwSsa.count(n.name))
        return error(n.loc, "rewrite node '" + n.name + "' is defined twice");
      if (!n.expr || n.expr->kind != Expr::Op)
        return error(n.loc, "new rewrite node '" + n.name +
                                "' must be an op (only match nodes can be replaced by values)");
      std::string op = rwOp(*n.expr, "");
      if (failed)
        return "";
      rwSsa[n.name] = op;
    }
    if (!rootReplaced)
      return error(rule.loc, "the rewrite of rule '" + rule.name + "' must replace its root '" +
                                 rootName + "' or call a native rewrite");
  }
  Site &end = addSite(Site::End, nullptr, -1);
  // The root is passed only because PDL wants an argument; it may be erased.
  std::string endLine =
      "pdl.apply_native_rewrite \"" + end.pdlName + "\"(" + root + " : !pdl.operation)";
  std::string out = "  pdl.pattern @\"" + rule.name + (index ? "#" + std::to_string(index) : "") +
                    "\" : benefit(" + std::to_string(rule.benefit) + ") {\n" + matchText + checks +
                    "    pdl.rewrite " + root + " {\n  " + "    " + beginLine + "\n";
  for (StringRef l : llvm::split(StringRef(pre), '\n'))
    if (!l.empty())
      out += "  " + l.str() + "\n";
  for (StringRef l : llvm::split(StringRef(text), '\n'))
    if (!l.empty())
      out += "  " + l.str() + "\n";
  out += "      " + endLine + "\n    }\n  }\n";
  return out;
}

LogicalResult Gen::run() {
  for (const Node &n : rule.match) {
    if (matchNodes.count(n.name))
      return error(n.loc, "match node '" + n.name + "' is defined twice"), failure();
    matchNodes[n.name] = &n;
  }
  // The root is the one match node no other match node reads.
  std::set<std::string> used;
  for (const Node &n : rule.match)
    walkExpr(n.expr, [&](const ExprP &e) {
      if (e->kind == Expr::Ref && e != n.expr)
        used.insert(e->name);
    });
  std::vector<const Node *> roots;
  for (const Node &n : rule.match)
    if (!used.count(n.name))
      roots.push_back(&n);
  if (roots.size() != 1) {
    error(roots.empty() ? rule.loc : roots[1]->loc,
          roots.empty() ? "the match nodes form a cycle"
                        : "match has several roots ('" + roots[0]->name + "', '" +
                              roots[1]->name + "'): every node but the root must feed another");
    return failure();
  }
  rootName = roots[0]->name;
  out.rootNode = rootName;
  if (roots[0]->expr->kind == Expr::Op)
    out.rootOpName = roots[0]->expr->name;
  for (const std::string &n : rule.anyOrder) {
    auto it = matchNodes.find(n);
    if (it == matchNodes.end() || it->second->expr->kind != Expr::Op ||
        it->second->expr->args.size() != 2) {
      error(rule.loc, "any_order names '" + n + "', which is not a match op with two operands");
      return failure();
    }
  }
  if (rule.anyOrder.size() > 4) {
    error(rule.loc, "any_order is limited to 4 nodes (16 variants)");
    return failure();
  }
  for (unsigned v = 0; v < (1u << rule.anyOrder.size()); ++v) {
    std::string pattern = variant(v);
    if (failed)
      return failure();
    out.pdl += pattern;
  }
  return success();
}

} // namespace

LogicalResult kiln::rules::compileRule(MLIRContext *ctx, const Rule &rule,
                                       const std::string &prefix, const NativeScope &natives,
                                       CompiledRule &out) {
  out.rule = rule;
  Gen gen(ctx, out.rule, prefix, natives, out);
  return gen.run();
}
