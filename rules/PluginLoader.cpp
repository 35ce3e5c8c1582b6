//===- PluginLoader.cpp - loading kiln-opt plugins ------------------------===//
#include "rules/PluginLoader.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <set>

#include "rules/KilnPlugin.h"

#include "llvm/Support/DynamicLibrary.h"

using namespace kiln::rules;

PluginRules &PluginRules::global() {
  static PluginRules rules;
  return rules;
}

namespace {
class Registrar : public kiln::PluginRegistrar {
public:
  std::string errors;
  NativeRegistry &natives() override { return NativeRegistry::global(); }
  void addPatterns(std::function<void(mlir::RewritePatternSet &)> populate) override {
    PluginRules::global().patternProviders.push_back(std::move(populate));
  }
  void addRuleFile(const std::string &path) override {
    PluginRules::global().ruleFiles.push_back(path);
  }
  void error(const std::string &message) override {
    errors += (errors.empty() ? "" : "; ") + message;
  }
};
} // namespace

bool kiln::rules::loadPlugin(const std::string &path, std::string &error) {
  std::string dlError;
  auto lib = llvm::sys::DynamicLibrary::getPermanentLibrary(path.c_str(), &dlError);
  if (!lib.isValid()) {
    error = "cannot load plugin '" + path + "': " + dlError;
    return false;
  }
  using GetInfo = KilnPluginInfo (*)();
  auto get = reinterpret_cast<GetInfo>(lib.getAddressOfSymbol("kilnGetPluginInfo"));
  if (!get) {
    error = "plugin '" + path + "' has no entry point: it must export extern \"C\" "
            "KilnPluginInfo kilnGetPluginInfo()";
    return false;
  }
  KilnPluginInfo info = get();
  std::string name = info.name ? info.name : path;
  if (info.apiVersion != KILN_PLUGIN_API_VERSION) {
    error = "plugin '" + name + "' was built for Kiln plugin API version " +
            std::to_string(info.apiVersion) + ", but this kiln-opt has version " +
            std::to_string(KILN_PLUGIN_API_VERSION) + "; rebuild it";
    return false;
  }
  if (!info.llvmVersion || std::string(info.llvmVersion) != LLVM_VERSION_STRING) {
    error = "plugin '" + name + "' was built against LLVM " +
            (info.llvmVersion ? info.llvmVersion : "(unknown)") + ", but kiln-opt uses LLVM " +
            LLVM_VERSION_STRING;
    return false;
  }
  if (!info.registerPlugin) {
    error = "plugin '" + name + "' has no registration callback";
    return false;
  }
  Registrar registrar;
  if (!info.registerPlugin(&registrar)) {
    error = "plugin '" + name + "' failed to register" +
            (registrar.errors.empty() ? "" : ": " + registrar.errors);
    return false;
  }
  return true;
}

bool kiln::rules::loadPluginsFromArgs(int argc, char **argv, const char *tool) {
  std::set<std::string> loaded; // a plugin given twice registers once
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg(argv[i]);
    if (arg == "--")
      break;
    std::string path;
    if (arg.consume_front("--plugin=") || arg.consume_front("-plugin="))
      path = arg.str();
    else if ((arg == "--plugin" || arg == "-plugin") && i + 1 < argc)
      path = argv[++i];
    else
      continue;
    if (!loaded.insert(path).second)
      continue;
    std::string error;
    if (!loadPlugin(path, error)) {
      llvm::errs() << tool << ": error: " << error << "\n";
      return false;
    }
  }
  return true;
}
