//===- OptimizePipeline.cpp - Kiln's exact rewrites as one pipeline -------===//
//
// `--kiln-optimize` runs every built-in rewrite that computes bit-identical
// results (Kiln's exact rewrites), in an order where each one exposes
// work to the next: canonicalize, dot_general canonical form, scan layout
// folding, exact push-up steps, function dedup, canonicalize.
// `--kiln-optimize=reassociate=true` also enables the push-up steps tagged
// reassociates-float.
//
//===----------------------------------------------------------------------===//
#include "transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace {
struct OptimizeOptions : PassPipelineOptions<OptimizeOptions> {
  Option<bool> reassociate{*this, "reassociate",
                           llvm::cl::desc("Also run rewrites tagged reassociates-float"),
                           llvm::cl::init(false)};
};
} // namespace

void kiln::buildOptimizePipeline(OpPassManager &pm, bool reassociate) {
  // canonicalize,kiln-canonicalize-dot-general,kiln-fold-scan-layout,
  // kiln-scan-pushup{reassociate},kiln-scan-to-reduction{reassociate},
  // kiln-dedup-functions,canonicalize,cse: all on `pm`'s own op (none but
  // kiln-dedup-functions, a module pass, is anchored on an op).
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCanonicalizeDotGeneral());
  pm.addPass(createFoldScanLayout());
  ScanPushUpOptions pushUpOptions;
  pushUpOptions.reassociate = reassociate;
  pm.addPass(createScanPushUp(pushUpOptions));
  ScanToReductionOptions toReductionOptions;
  toReductionOptions.reassociate = reassociate;
  pm.addPass(createScanToReduction(toReductionOptions));
  pm.addPass(createDedupFunctions());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void kiln::registerOptimizePipeline() {
  PassPipelineRegistration<OptimizeOptions>(
      "kiln-optimize", "Kiln's exact rewrites (and, on request, the reassociating ones)",
      [](OpPassManager &pm, const OptimizeOptions &options) {
        addModulePipeline(pm, "kiln-optimize", [&](OpPassManager &modulePm) {
          buildOptimizePipeline(modulePm, options.reassociate);
        });
      });
}
