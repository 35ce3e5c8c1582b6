//===- PluginLoader.h - loading kiln-opt plugins ----------------*- C++ -*-===//
#ifndef KILN_RULES_PLUGINLOADER_H
#define KILN_RULES_PLUGINLOADER_H

#include <string>

namespace kiln::rules {

/// dlopens `path`, checks its KilnPluginInfo and runs its registration
/// (natives go to NativeRegistry::global(), patterns and rule files to
/// globalRuleOptions()). On failure `error` says why.
bool loadPlugin(const std::string &path, std::string &error);

/// Loads every `--plugin=x`, `-plugin=x` or `--plugin x` of a tool's command
/// line before it is parsed (plugins may register passes and options); a
/// plugin given twice is loaded once.
/// Reports a failure as "<tool>: error: ..." and returns false.
bool loadPluginsFromArgs(int argc, char **argv, const char *tool);

} // namespace kiln::rules

#endif // KILN_RULES_PLUGINLOADER_H
