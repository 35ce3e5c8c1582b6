//===- ApplyRules.h - the --kiln-apply-rules pass ---------------*- C++ -*-===//
//
// The pass and its options are declared in rules/Passes.td:
// kiln::createApplyRules(), kiln::ApplyRulesOptions. A tool's top-level rule
// flags (kiln-opt's --rules, --rule-tags, --rule-trace, ...) reach the pass
// as these options, through addRuleFlags; rule files and patterns added by
// plugins are the tool's --plugin and the pass's `plugins` (rules/PluginLoader.h).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RULES_APPLYRULES_H
#define KILN_RULES_APPLYRULES_H

#include "mlir/Pass/Pass.h"

#include <memory>
#include <string>

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace kiln {

#define GEN_PASS_DECL_APPLYRULES
#include "rules/Passes.h.inc"

/// Registers --kiln-apply-rules (tools/Registration.cpp calls this).
void registerKilnRules();

} // namespace kiln

namespace kiln::rules {

/// Gives a tool's top-level rule flags, `flags`, to every --kiln-apply-rules
/// pass of `pm` (not of nested pass managers: the pass runs on
/// builtin.module, the op of a tool's pass manager). Per option: the flags'
/// rule files and tags come first, before the pass's own; trace, stats,
/// verify and dump-pdl are on when either sets them; explain, max-rewrites
/// and max-iterations take the flags' value unless the pass was given one
/// (for max-iterations, a nonzero one). Returns how many passes took them.
unsigned addRuleFlags(mlir::OpPassManager &pm, const ApplyRulesOptions &flags);

} // namespace kiln::rules

#endif // KILN_RULES_APPLYRULES_H
