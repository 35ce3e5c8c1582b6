//===- RuleParser.h - YAML rule files to Rules ------------------*- C++ -*-===//
#ifndef KILN_RULES_RULEPARSER_H
#define KILN_RULES_RULEPARSER_H

#include "rules/RuleAST.h"

#include "mlir/Support/LogicalResult.h"

#include <cstdint>

namespace mlir {
class MLIRContext;
class Location;
} // namespace mlir

namespace kiln::rules {

/// The largest rule file read: 64 MiB.
inline constexpr uint64_t kMaxRuleFileBytes = uint64_t(1) << 26;

/// The MLIR location of a rule-file position.
mlir::Location toLocation(mlir::MLIRContext *ctx, const SrcLoc &loc);

/// Parses a rule file (syntax and schema only; names are checked when the
/// rules are compiled to PDL). Every problem is reported as an MLIR error at
/// file:line:col; on failure `rules` holds nothing usable.
mlir::LogicalResult parseRuleFile(mlir::MLIRContext *ctx, const std::string &path,
                                  std::vector<Rule> &rules);

/// The same from a string (tests); `path` names it in diagnostics.
mlir::LogicalResult parseRuleString(mlir::MLIRContext *ctx, const std::string &text,
                                    const std::string &path, std::vector<Rule> &rules);

} // namespace kiln::rules

#endif // KILN_RULES_RULEPARSER_H
