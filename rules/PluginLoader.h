//===- PluginLoader.h - loading kiln-opt plugins ----------------*- C++ -*-===//
#ifndef KILN_RULES_PLUGINLOADER_H
#define KILN_RULES_PLUGINLOADER_H

#include "rules/NativeRegistry.h"

#include "llvm/ADT/StringRef.h"

#include <functional>
#include <string>
#include <vector>

namespace mlir {
class RewritePatternSet;
} // namespace mlir

namespace kiln::rules {

/// What one plugin registered (PluginRegistrar): its native functions, C++
/// patterns and rule files. A kiln-apply-rules pass uses the plugins of
/// its `plugins` option and of the tool's command line, and no others: a
/// plugin loaded earlier in the process is not part of every rewrite.
/// Never destroyed: the plugin's code would be unmapped before these
/// objects' destructors ran at exit.
struct LoadedPlugin {
  std::string name, path;
  /// Its own functions; lookups also find the built-ins.
  NativeRegistry natives{&NativeRegistry::global()};
  std::vector<std::string> ruleFiles;
  std::vector<std::function<void(mlir::RewritePatternSet &)>> patternProviders;
};

/// dlopens `path` (once per file and process), checks its KilnPluginInfo
/// and runs its registration. On failure returns null and `error` says why.
const LoadedPlugin *loadPlugin(const std::string &path, std::string &error);

/// The plugins of the tool's command line (loadPluginsFromArgs): every
/// kiln-apply-rules pass of the tool uses them. Empty in Python.
const std::vector<const LoadedPlugin *> &commandLinePlugins();

/// The native functions of `plugins` (with the built-ins), for a RuleSet.
NativeScope nativesOf(const std::vector<const LoadedPlugin *> &plugins);

/// "unknown native function 'NAME'", naming a loaded plugin that defines
/// it when the rule set does not use that plugin.
std::string unknownNativeMessage(llvm::StringRef name);

/// Loads every `--plugin=x`, `-plugin=x` or `--plugin x` of a tool's command
/// line before it is parsed (plugins may register passes and options); a
/// plugin given twice is loaded once.
/// Reports a failure as "<tool>: error: ..." and returns false.
bool loadPluginsFromArgs(int argc, char **argv, const char *tool);

} // namespace kiln::rules

#endif // KILN_RULES_PLUGINLOADER_H
