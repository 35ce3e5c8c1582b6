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
#include "rules/PdlGenImpl.h"

using namespace kiln::rules;
using namespace kiln::rules::pdlgen;
using namespace mlir;

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
  for (size_t i = 0; i < rule.where.size(); ++i)
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
  if (rule.rewriteCall) {
    const NativeFunction *f = NativeRegistry::global().lookup(rule.rewriteCall->name);
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

LogicalResult kiln::rules::compileRule(MLIRContext *ctx, const Rule &rule,
                                       const std::string &prefix, CompiledRule &out) {
  out.rule = rule;
  Gen gen(ctx, out.rule, prefix, out);
  return gen.run();
}
