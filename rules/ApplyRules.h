//===- ApplyRules.h - the --kiln-apply-rules pass ---------------*- C++ -*-===//
#ifndef KILN_RULES_APPLYRULES_H
#define KILN_RULES_APPLYRULES_H

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace mlir {
class Pass;
class RewritePatternSet;
} // namespace mlir

namespace kiln::rules {

/// What kiln-opt's flags (--rules, --rule-tags, --rule-trace, ...) and the
/// plugins ask for; the pass adds its own `rules`/`tags` options to these.
struct RuleOptions {
  std::vector<std::string> paths;
  std::string tags;
  bool trace = false, stats = false, verify = false, dumpPdl = false;
  std::string explain;
  int maxIterations = 10;
  long long maxRewrites = 100000;
  /// C++ patterns added by plugins, applied together with the rules.
  std::vector<std::function<void(mlir::RewritePatternSet &)>> patternProviders;
};
RuleOptions &globalRuleOptions();

/// True when rule files or plugin patterns were registered.
bool rulesRequested();

std::unique_ptr<mlir::Pass> createApplyRulesPass();

} // namespace kiln::rules

namespace kiln {
/// Registers --kiln-apply-rules (driver/Registration.cpp calls this).
void registerKilnRules();
} // namespace kiln

#endif // KILN_RULES_APPLYRULES_H
