//===- KilnPlugin.h - the plugin API of kiln-opt ----------------*- C++ -*-===//
//
// A plugin is a shared library exporting
//
//   extern "C" KilnPluginInfo kilnGetPluginInfo();
//
// and linked against the shared libMLIR/libLLVM kiln-opt uses (never a copy
// of its own). kiln-opt --plugin=lib.so checks the API version and the LLVM
// version, then calls `registerPlugin`, which may add native functions for
// rules, C++ RewritePatterns (run by --kiln-apply-rules with the rules),
// YAML rule files, and passes (with mlir::PassRegistration as usual; plugins
// are loaded before the command line is parsed). See docs/plugins.md.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RULES_KILNPLUGIN_H
#define KILN_RULES_KILNPLUGIN_H

#include "rules/NativeRegistry.h"

#include "llvm/Config/llvm-config.h"

#include <cstdint>
#include <functional>
#include <string>

namespace mlir {
class RewritePatternSet;
} // namespace mlir

/// Bumped on any incompatible change of this header.
#define KILN_PLUGIN_API_VERSION 1

namespace kiln {

/// What a plugin's registration callback can add. Methods are virtual so a
/// plugin needs no Kiln symbol at link time.
class PluginRegistrar {
public:
  virtual ~PluginRegistrar() = default;
  /// Native functions callable from YAML rules.
  virtual rules::NativeRegistry &natives() = 0;
  /// C++ patterns, applied by --kiln-apply-rules together with the rules.
  virtual void addPatterns(std::function<void(mlir::RewritePatternSet &)> populate) = 0;
  /// A YAML rule file or directory, loaded like one given with --rules.
  virtual void addRuleFile(const std::string &path) = 0;
  /// Reports why registration failed (then return false from the callback).
  virtual void error(const std::string &message) = 0;
};

} // namespace kiln

extern "C" {
struct KilnPluginInfo {
  uint32_t apiVersion;     ///< KILN_PLUGIN_API_VERSION
  const char *name;        ///< for messages
  const char *llvmVersion; ///< LLVM_VERSION_STRING the plugin was built with
  /// Returns false (after registrar->error(...)) when registration fails.
  bool (*registerPlugin)(kiln::PluginRegistrar *registrar);
};
}

#endif // KILN_RULES_KILNPLUGIN_H
