// A plugin whose registration fails.
#include "rules/KilnPlugin.h"
static bool registerPlugin(kiln::PluginRegistrar *registrar) {
  registrar->error("the frobnicator is not configured");
  return false;
}
extern "C" KilnPluginInfo kilnGetPluginInfo() {
  return {KILN_PLUGIN_API_VERSION, "fails", LLVM_VERSION_STRING, registerPlugin};
}
