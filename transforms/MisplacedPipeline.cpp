//===- MisplacedPipeline.cpp - --kiln-misplaced-pipeline ------------------===//
#include "transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

namespace kiln {
#define GEN_PASS_DEF_MISPLACEDPIPELINE
#include "transforms/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {
struct MisplacedPipeline : kiln::impl::MisplacedPipelineBase<MisplacedPipeline> {
  using MisplacedPipelineBase::MisplacedPipelineBase;
  void runOnOperation() override {
    getOperation()->emitError()
        << "'" << pipeline << "' is a pipeline of module passes: run it on builtin.module "
        << "(--pass-pipeline='builtin.module(" << pipeline << ")'), not nested under '"
        << getOperation()->getName() << "'";
    signalPassFailure();
  }
};
} // namespace

void kiln::addModulePipeline(OpPassManager &pm, llvm::StringRef name,
                             llvm::function_ref<void(OpPassManager &)> build) {
  // An op-agnostic pass manager ("any") checks each pass against the op it
  // runs on, with a diagnostic; one anchored on another op aborted.
  if (pm.getOpAnchorName() == ModuleOp::getOperationName() ||
      pm.getOpAnchorName() == OpPassManager::getAnyOpAnchorName()) {
    build(pm);
    return;
  }
  MisplacedPipelineOptions options;
  options.pipeline = name.str();
  pm.addPass(createMisplacedPipeline(options));
}
