//===- Registration.cpp - what Kiln's tools register ----------------------===//
#include "driver/Registration.h"

#include "dialect/LaxDialect.h"
#include "rewrites/gpu/GpuPipeline.h"
#include "rewrites/lowering/Passes.h"
#include "rewrites/seed/Passes.h"
#include "rules/ApplyRules.h"
#include "rules/PluginLoader.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

void kiln::registerAllKilnDialects(mlir::DialectRegistry &registry) {
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // As mlir-opt: gpu-module-to-binary needs the LLVM IR translations.
  mlir::registerAllGPUToLLVMIRTranslations(registry);
  registry.insert<kiln::lax::LaxDialect>();
}

void kiln::registerAllKilnPasses() {
  mlir::registerAllPasses();
  kiln::registerKilnRewritesPasses();
  kiln::registerOptimizePipeline();
  kiln::registerGpuPipeline();
  kiln::registerKilnLowering();
  kiln::registerKilnRules();
}

bool kiln::registerKilnTool(mlir::DialectRegistry &registry, int argc, char **argv,
                            const char *tool) {
  registerAllKilnDialects(registry);
  registerAllKilnPasses();
  return rules::loadPluginsFromArgs(argc, argv, tool);
}
