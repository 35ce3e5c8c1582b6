//===- PluginLoader.h - loading kiln-opt plugins ----------------*- C++ -*-===//
#ifndef KILN_RULES_PLUGINLOADER_H
#define KILN_RULES_PLUGINLOADER_H

#include <functional>
#include <string>
#include <vector>

namespace mlir {
class RewritePatternSet;
} // namespace mlir

namespace kiln::rules {

/// What loaded plugins add for --kiln-apply-rules (PluginRegistrar's
/// addPatterns and addRuleFile): a process-wide registry filled at load
/// time, like NativeRegistry::global(). Every --kiln-apply-rules pass loads
/// these rule files (after the tool's --rules) and adds these patterns to
/// its phase 0.
struct PluginRules {
  std::vector<std::string> ruleFiles;
  std::vector<std::function<void(mlir::RewritePatternSet &)>> patternProviders;

  bool empty() const { return ruleFiles.empty() && patternProviders.empty(); }
  static PluginRules &global();
};

/// dlopens `path`, checks its KilnPluginInfo and runs its registration
/// (natives go to NativeRegistry::global(), patterns and rule files to
/// PluginRules::global()). On failure `error` says why.
bool loadPlugin(const std::string &path, std::string &error);

/// Loads every `--plugin=x`, `-plugin=x` or `--plugin x` of a tool's command
/// line before it is parsed (plugins may register passes and options); a
/// plugin given twice is loaded once.
/// Reports a failure as "<tool>: error: ..." and returns false.
bool loadPluginsFromArgs(int argc, char **argv, const char *tool);

} // namespace kiln::rules

#endif // KILN_RULES_PLUGINLOADER_H
