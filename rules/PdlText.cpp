//===- PdlText.cpp - helpers of the PDL generator -------------------------===//
#include "rules/PdlText.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OpDefinition.h"

using namespace kiln::rules;
using namespace mlir;

/// Walks an expression tree.
void kiln::rules::walkExpr(const ExprP &e, const std::function<void(const ExprP &)> &fn) {
  if (!e)
    return;
  fn(e);
  for (auto &a : e->args)
    walkExpr(a, fn);
  for (auto &a : e->attrs)
    walkExpr(a.second, fn);
  walkExpr(e->type, fn);
}

std::optional<RegisteredOperationName>
kiln::rules::checkOp(MLIRContext *ctx, const Expr &e,
                     const std::function<void(const SrcLoc &, const std::string &)> &error) {
  StringRef dialect = StringRef(e.name).split('.').first;
  Dialect *d = ctx->getOrLoadDialect(dialect);
  auto reg = RegisteredOperationName::lookup(e.name, ctx);
  if (!reg) {
    error(e.loc, "unknown op '" + e.name + "'" +
                     (d ? "" : " (no dialect '" + dialect.str() + "' is registered)"));
    return std::nullopt;
  }
  // Operand count, for ops with a fixed number of operands.
  std::optional<unsigned> n;
  if (reg->hasTrait<OpTrait::ZeroOperands>())
    n = 0;
  else if (reg->hasTrait<OpTrait::OneOperand>())
    n = 1;
  else if (reg->hasTrait<OpTrait::NOperands<2>::Impl>())
    n = 2;
  else if (reg->hasTrait<OpTrait::NOperands<3>::Impl>())
    n = 3;
  bool variadic = llvm::any_of(e.args, [](const ExprP &a) { return a->variadic; });
  if (n && !variadic && e.args.size() != *n) {
    error(e.loc, "'" + e.name + "' takes " + std::to_string(*n) + " operand(s), got " +
                     std::to_string(e.args.size()));
    return std::nullopt;
  }
  ArrayRef<StringAttr> known = reg->getAttributeNames();
  for (auto &[name, v] : e.attrs) {
    if (StringRef(name).contains('.') ||
        llvm::any_of(known, [&](StringAttr a) { return a.getValue() == name; }))
      continue;
    std::string list;
    for (StringAttr a : known)
      list += (list.empty() ? "" : ", ") + a.str();
    error(v->loc, "unknown attribute '" + name + "' of '" + e.name + "'" +
                      (list.empty() ? " (it has none)" : " (it has: " + list + ")"));
    return std::nullopt;
  }
  return reg;
}

std::string kiln::rules::pdlOperation(const std::string &name,
                             const std::vector<std::pair<std::string, std::string>> &operands,
                             const std::vector<std::pair<std::string, std::string>> &attrs) {
  std::string s = name == "_" ? "pdl.operation" : "pdl.operation \"" + name + "\"";
  if (!operands.empty()) {
    std::string vals, tys;
    for (auto &[v, t] : operands) {
      vals += (vals.empty() ? "" : ", ") + v;
      tys += (tys.empty() ? "" : ", ") + t;
    }
    s += "(" + vals + " : " + tys + ")";
  }
  if (!attrs.empty()) {
    s += " {";
    for (size_t i = 0; i < attrs.size(); ++i)
      s += (i ? ", \"" : "\"") + attrs[i].first + "\" = " + attrs[i].second;
    s += "}";
  }
  return s;
}
