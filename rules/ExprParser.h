//===- ExprParser.h - the expression language of rules ----------*- C++ -*-===//
//
// Parses one string of a rule (an op DAG such as
// `lax.transpose($x) {permutation = $p}`, a condition such as
// `rank($x) == 2 and 0 in $axes`, or a native call) into an Expr.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RULES_EXPRPARSER_H
#define KILN_RULES_EXPRPARSER_H

#include "rules/RuleAST.h"

#include <optional>

namespace kiln::rules {

/// How deeply an expression may nest: brackets and prefix operators one
/// inside the other, and the height of the parsed tree (`1 + 1 + ... + 1`
/// counts one level per `+`). Deeper text is an error, so no rule string can
/// exhaust the stack of the parser, the evaluator or the printer.
inline constexpr unsigned kMaxExprNesting = 256;

struct ExprError {
  std::string message;
  size_t offset = 0; ///< byte offset in the parsed string
};

/// Parses `text`; `base` is the location of its first character (locations
/// of sub-expressions add their column offset to it).
ExprP parseExpr(const std::string &text, const SrcLoc &base,
                std::optional<ExprError> &error);

/// Renders an expression back to text (diagnostics, --rule-explain).
std::string printExpr(const Expr &e);

} // namespace kiln::rules

#endif // KILN_RULES_EXPRPARSER_H
