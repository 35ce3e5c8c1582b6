//===- Registration.cpp - what Kiln's tools register ----------------------===//
#include "driver/Registration.h"

#include "dialect/LaxDialect.h"
#include "rewrites/gpu/GpuPipeline.h"
#include "rewrites/lowering/Passes.h"
#include "rewrites/seed/Passes.h"
#include "rules/ApplyRules.h"
#include "rules/PluginLoader.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
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

llvm::LogicalResult kiln::addPassPipeline(mlir::OpPassManager &pm, llvm::StringRef pipeline,
                                          llvm::raw_ostream &errors) {
  llvm::StringRef text = pipeline.trim();
  if (text.contains('(') && !text.take_until([](char c) { return c == '('; }).contains(',')) {
    // Anchored ("op(...)"): valid as a whole? Then its content goes into `pm`
    // when the anchor is pm's own op, or pm takes any op (the default of a
    // PassManager, run on the module).
    mlir::FailureOr<mlir::OpPassManager> parsed = mlir::parsePassPipeline(text, errors);
    if (mlir::failed(parsed))
      return mlir::failure();
    llvm::StringRef anchor = parsed->getOpAnchorName();
    if (anchor == pm.getOpAnchorName() ||
        pm.getOpAnchorName() == mlir::OpPassManager::getAnyOpAnchorName()) {
      llvm::StringRef inner = text.drop_front(text.find('(') + 1).drop_back();
      return mlir::parsePassPipeline(inner, pm, errors);
    }
  }
  return mlir::parsePassPipeline(text, pm, errors);
}
