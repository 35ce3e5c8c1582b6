// A plugin built for another plugin API version.
#include "rules/KilnPlugin.h"
static bool registerPlugin(kiln::PluginRegistrar *) { return true; }
extern "C" KilnPluginInfo kilnGetPluginInfo() {
  return {KILN_PLUGIN_API_VERSION + 41, "bad-version", LLVM_VERSION_STRING, registerPlugin};
}
