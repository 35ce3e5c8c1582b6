//===- PdlText.h - helpers of the PDL generator -----------------*- C++ -*-===//
#ifndef KILN_RULES_PDLTEXT_H
#define KILN_RULES_PDLTEXT_H

#include "rules/RuleAST.h"

#include "mlir/IR/OperationSupport.h"

#include <functional>
#include <optional>

namespace kiln::rules {

/// Calls `fn` on `e` and every sub-expression (operands, attributes, type).
void walkExpr(const ExprP &e, const std::function<void(const ExprP &)> &fn);

/// The registered op an expression names, after checking its operand count
/// (for ops with a fixed one) and attribute names; reports through `error`.
std::optional<mlir::RegisteredOperationName>
checkOp(mlir::MLIRContext *ctx, const Expr &e,
        const std::function<void(const SrcLoc &, const std::string &)> &error);

/// `pdl.operation "name"(operands : types) {"attr" = %a, ...}` (no result
/// types); `_` gives an unnamed operation.
std::string pdlOperation(const std::string &name,
                         const std::vector<std::pair<std::string, std::string>> &operands,
                         const std::vector<std::pair<std::string, std::string>> &attrs);

} // namespace kiln::rules

#endif // KILN_RULES_PDLTEXT_H
