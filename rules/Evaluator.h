//===- Evaluator.h - evaluating rule expressions at match time --*- C++ -*-===//
#ifndef KILN_RULES_EVALUATOR_H
#define KILN_RULES_EVALUATOR_H

#include "rules/NativeRegistry.h"
#include "rules/RuleAST.h"

#include "llvm/ADT/StringMap.h"

namespace kiln::rules {

/// Bindings: "$x" for captures, plain names for match nodes (ops).
using Env = llvm::StringMap<Val>;

/// Bindings by position, as the generated PDL passes them to a native
/// function: `names[i]` is bound to `values[i]` (names past the end of
/// `values` are unbound; a name given twice is its later value, as when an
/// Env is filled in order). Evaluating with them builds no Env: a rule's
/// `where` runs on every candidate match, and a StringMap's allocations and
/// hashing cost more than the few names it holds.
struct ArgBindings {
  llvm::ArrayRef<std::string> names;
  llvm::ArrayRef<Val> values;
  /// The value bound to `key`, or null.
  const Val *lookup(llvm::StringRef key) const;
};

/// The longest list `range(n)` may build while a rule is matched; a longer
/// one fails the evaluation (the rule does not match).
inline constexpr int64_t kMaxRangeLength = int64_t(1) << 20;

/// Evaluates `e`. std::nullopt when it cannot be computed (a native function
/// failing, an index out of range, kinds that do not fit, integer overflow,
/// division by zero, INT64_MIN / -1); `why` then says why, for
/// --rule-explain.
std::optional<Val> evaluate(const Expr &e, const Env &env, mlir::RewriterBase &rewriter,
                            std::string *why = nullptr);
std::optional<Val> evaluate(const Expr &e, const ArgBindings &args, mlir::RewriterBase &rewriter,
                            std::string *why = nullptr);

/// Parses a `literal` or a bare type name (f32, i64, index...): an attribute
/// first, else a type. Null when it is neither.
Val parseLiteral(mlir::MLIRContext *ctx, const std::string &text);

/// Generic equality: lists, numbers, types, values, attributes.
bool valEquals(const Val &a, const Val &b);

} // namespace kiln::rules

#endif // KILN_RULES_EVALUATOR_H
