//===- Evaluator.h - evaluating rule expressions at match time --*- C++ -*-===//
#ifndef KILN_RULES_EVALUATOR_H
#define KILN_RULES_EVALUATOR_H

#include "rules/NativeRegistry.h"
#include "rules/RuleAST.h"

#include "llvm/ADT/StringMap.h"

namespace kiln::rules {

/// Bindings: "$x" for captures, plain names for match nodes (ops).
using Env = llvm::StringMap<Val>;

/// The longest list `range(n)` may build while a rule is matched; a longer
/// one fails the evaluation (the rule does not match).
inline constexpr int64_t kMaxRangeLength = int64_t(1) << 20;

/// Evaluates `e`. std::nullopt when it cannot be computed (a native function
/// failing, an index out of range, kinds that do not fit, integer overflow,
/// division by zero, INT64_MIN / -1); `why` then says why, for
/// --rule-explain.
std::optional<Val> evaluate(const Expr &e, const Env &env, mlir::RewriterBase &rewriter,
                            std::string *why = nullptr);

/// Parses a `literal` or a bare type name (f32, i64, index...): an attribute
/// first, else a type. Null when it is neither.
Val parseLiteral(mlir::MLIRContext *ctx, const std::string &text);

/// Generic equality: lists, numbers, types, values, attributes.
bool valEquals(const Val &a, const Val &b);

} // namespace kiln::rules

#endif // KILN_RULES_EVALUATOR_H
