// A plugin whose native constraint throws a C++ exception when a rule
// calls it (tests/rules/plugin-native-throws.mlir).
#include "rules/KilnPlugin.h"

#include <stdexcept>

static bool registerPlugin(kiln::PluginRegistrar *registrar) {
  registrar->natives().addConstraint(
      "explodes", {kiln::rules::ArgKind::Int},
      [](llvm::ArrayRef<kiln::rules::Val>) -> bool {
        throw std::runtime_error("the frobnicator exploded");
      },
      "throws");
  return true;
}
extern "C" KilnPluginInfo kilnGetPluginInfo() {
  return {KILN_PLUGIN_API_VERSION, "throws-in-native", LLVM_VERSION_STRING, registerPlugin};
}
