//===- Registration.cpp - what Kiln's tools register ----------------------===//
#include "tools/Registration.h"

#include "lowering/gpu/GpuPipeline.h"
#include "lowering/Passes.h"
#include "transforms/Passes.h"
#include "rules/ApplyRules.h"
#include "rules/PluginLoader.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/InitAllPasses.h"

void kiln::registerAllKilnPasses() {
  mlir::registerAllPasses();
  kiln::registerKilnTransformsPasses();
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
