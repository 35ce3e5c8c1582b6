//===- PluginLoader.cpp - loading kiln-opt plugins ------------------------===//
#include "rules/PluginLoader.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <set>

#include "rules/KilnPlugin.h"

#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <exception>

#if defined(__GLIBC__)
#include <dlfcn.h>
#include <link.h>
#endif

using namespace kiln::rules;

namespace {
/// Every plugin loaded, by real path. Leaked on purpose (see LoadedPlugin).
llvm::StringMap<LoadedPlugin *> &loadedPlugins() {
  static auto *plugins = new llvm::StringMap<LoadedPlugin *>();
  return *plugins;
}

std::vector<const LoadedPlugin *> &toolPlugins() {
  static auto *plugins = new std::vector<const LoadedPlugin *>();
  return *plugins;
}

/// Registration fills the plugin's own record, never a process-wide one.
class Registrar : public kiln::PluginRegistrar {
public:
  explicit Registrar(LoadedPlugin &plugin) : plugin(plugin) {}
  std::string errors;
  NativeRegistry &natives() override { return plugin.natives; }
  void addPatterns(std::function<void(mlir::RewritePatternSet &)> populate) override {
    plugin.patternProviders.push_back(std::move(populate));
  }
  void addRuleFile(const std::string &path) override { plugin.ruleFiles.push_back(path); }
  void error(const std::string &message) override {
    errors += (errors.empty() ? "" : "; ") + message;
  }

private:
  LoadedPlugin &plugin;
};
} // namespace

const std::vector<const LoadedPlugin *> &kiln::rules::commandLinePlugins() { return toolPlugins(); }

NativeScope kiln::rules::nativesOf(const std::vector<const LoadedPlugin *> &plugins) {
  NativeScope scope;
  for (const LoadedPlugin *plugin : plugins)
    scope.add(plugin->natives);
  return scope;
}

std::string kiln::rules::unknownNativeMessage(llvm::StringRef name) {
  std::string message = "unknown native function '" + name.str() + "'";
  for (const auto &entry : loadedPlugins())
    if (entry.second->natives.lookup(name))
      return message + " (plugin '" + entry.second->name + "' at '" + entry.second->path +
             "' defines it, but these rules do not load that plugin: name it with the rules, "
             "kiln.Rules(..., plugins=[...]), plugins=[...] or --plugin)";
  return message;
}

/// Whether the symbol at `address` is known not to be a function (an ELF
/// data symbol named like the entry point). Where the platform cannot tell,
/// it is taken for a function.
static bool isKnownDataSymbol(void *address) {
#if defined(__GLIBC__)
  Dl_info info;
  ElfW(Sym) *symbol = nullptr;
  if (!dladdr1(address, &info, reinterpret_cast<void **>(&symbol), RTLD_DL_SYMENT) ||
      !symbol || info.dli_saddr != address)
    return false;
  unsigned type = ELF64_ST_TYPE(symbol->st_info); // the same for ELF32
  return type != STT_FUNC && type != STT_GNU_IFUNC;
#else
  (void)address;
  return false;
#endif
}

/// Runs `body`, turning a C++ exception escaping a plugin into `error`
/// ("<what> threw an exception: <message>"): a plugin must not take the
/// tool down through std::terminate.
template <typename Body>
static bool catchPluginExceptions(const std::string &what, std::string &error, Body body) {
  try {
    return body();
  } catch (const std::exception &e) {
    error = what + " threw an exception: " + e.what();
  } catch (...) {
    error = what + " threw an exception (not a std::exception)";
  }
  return false;
}

/// Why the plugin at `path` cannot be loaded where its file says more than
/// dlopen: glibc reports a library built for another architecture as "No
/// such file or directory". Empty when the file is not such a library.
static std::string describeForeignLibrary(const std::string &path) {
  auto object = llvm::object::ObjectFile::createObjectFile(path);
  if (!object) {
    llvm::consumeError(object.takeError());
    return "";
  }
  llvm::Triple host(llvm::sys::getProcessTriple());
  llvm::Triple::ArchType arch = object->getBinary()->getArch();
  if (arch == host.getArch())
    return "";
  return "it is built for " +
         std::string(arch == llvm::Triple::UnknownArch ? "an unknown architecture"
                                                        : llvm::Triple::getArchTypeName(arch)) +
         ", and this process runs on " + std::string(llvm::Triple::getArchTypeName(host.getArch()));
}

const LoadedPlugin *kiln::rules::loadPlugin(const std::string &path, std::string &error) {
  llvm::SmallString<256> real(path);
  llvm::sys::fs::real_path(path, real);
  if (auto it = loadedPlugins().find(real.str()); it != loadedPlugins().end())
    return it->second; // the same file again: already registered
  std::string dlError;
  auto lib = llvm::sys::DynamicLibrary::getPermanentLibrary(path.c_str(), &dlError);
  if (!lib.isValid()) {
    std::string foreign = describeForeignLibrary(path);
    error = "cannot load plugin '" + path + "': " + (foreign.empty() ? dlError : foreign);
    return nullptr;
  }
  using GetInfo = KilnPluginInfo (*)();
  auto get = reinterpret_cast<GetInfo>(lib.getAddressOfSymbol("kilnGetPluginInfo"));
  if (!get) {
    error = "plugin '" + path + "' has no entry point: it must export extern \"C\" "
            "KilnPluginInfo kilnGetPluginInfo()";
    return nullptr;
  }
  if (isKnownDataSymbol(reinterpret_cast<void *>(get))) {
    error = "plugin '" + path + "' has no entry point: its kilnGetPluginInfo is not a "
            "function (it must export extern \"C\" KilnPluginInfo kilnGetPluginInfo())";
    return nullptr;
  }
  KilnPluginInfo info{};
  if (!catchPluginExceptions("kilnGetPluginInfo() of plugin '" + path + "'", error, [&] {
        info = get();
        return true;
      }))
    return nullptr;
  std::string name = info.name ? info.name : path;
  if (info.apiVersion != KILN_PLUGIN_API_VERSION) {
    error = "plugin '" + name + "' was built for Kiln plugin API version " +
            std::to_string(info.apiVersion) + ", but this kiln-opt has version " +
            std::to_string(KILN_PLUGIN_API_VERSION) + "; rebuild it";
    return nullptr;
  }
  if (!info.llvmVersion || std::string(info.llvmVersion) != LLVM_VERSION_STRING) {
    error = "plugin '" + name + "' was built against LLVM " +
            (info.llvmVersion ? info.llvmVersion : "(unknown)") + ", but kiln-opt uses LLVM " +
            LLVM_VERSION_STRING;
    return nullptr;
  }
  if (!info.registerPlugin) {
    error = "plugin '" + name + "' has no registration callback";
    return nullptr;
  }
  // One plugin of a name per process: a second copy (another path to the
  // same plugin) registered its passes again and LLVM aborted ("pass
  // allocator creates a different pass than previously registered").
  for (const auto &entry : loadedPlugins())
    if (entry.second->name == name && entry.second->path != real.str()) {
      error = "plugin '" + name + "' is already loaded from '" + entry.second->path +
              "'; another copy at '" + path + "' is not loaded";
      return nullptr;
    }
  auto plugin = std::make_unique<LoadedPlugin>();
  plugin->name = name;
  plugin->path = real.str().str();
  Registrar registrar(*plugin);
  bool registered = false;
  if (!catchPluginExceptions("it", error, [&] {
        registered = info.registerPlugin(&registrar);
        return true;
      })) {
    error = "plugin '" + name + "' failed to register: " + error;
    return nullptr;
  }
  if (!registered) {
    error = "plugin '" + name + "' failed to register" +
            (registrar.errors.empty() ? "" : ": " + registrar.errors);
    return nullptr;
  }
  LoadedPlugin *loaded = plugin.release();
  loadedPlugins()[loaded->path] = loaded;
  return loaded;
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
    const LoadedPlugin *plugin = loadPlugin(path, error);
    if (!plugin) {
      llvm::errs() << tool << ": error: " << error << "\n";
      return false;
    }
    if (llvm::find(toolPlugins(), plugin) == toolPlugins().end())
      toolPlugins().push_back(plugin);
  }
  return true;
}
