// A plugin whose registration throws a C++ exception.
#include "rules/KilnPlugin.h"

#include <stdexcept>

static bool registerPlugin(kiln::PluginRegistrar *) {
  throw std::runtime_error("the frobnicator exploded");
}
extern "C" KilnPluginInfo kilnGetPluginInfo() {
  return {KILN_PLUGIN_API_VERSION, "throws", LLVM_VERSION_STRING, registerPlugin};
}
