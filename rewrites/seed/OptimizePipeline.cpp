//===- OptimizePipeline.cpp - Kiln's exact rewrites as one pipeline -------===//
//
// `--kiln-optimize` runs every built-in rewrite that computes bit-identical
// results (the seeds' exact rewrites), in an order where each one exposes
// work to the next: canonicalize, dot_general canonical form, scan layout
// folding, exact push-up steps, function dedup, canonicalize.
// `--kiln-optimize=reassociate=true` also enables the push-up steps tagged
// reassociates-float.
//
//===----------------------------------------------------------------------===//
#include "rewrites/seed/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

namespace {
struct OptimizeOptions : PassPipelineOptions<OptimizeOptions> {
  Option<bool> reassociate{*this, "reassociate",
                           llvm::cl::desc("Also run rewrites tagged reassociates-float"),
                           llvm::cl::init(false)};
};
} // namespace

void kiln::buildOptimizePipeline(OpPassManager &pm, bool reassociate) {
  std::string flag = reassociate ? "1" : "0";
  std::string text = "canonicalize,kiln-canonicalize-dot-general,kiln-fold-scan-layout,"
                     "kiln-scan-pushup{reassociate=" + flag + "},"
                     "kiln-scan-to-reduction{reassociate=" + flag + "},"
                     "kiln-dedup-functions,canonicalize,cse";
  if (failed(parsePassPipeline(text, pm)))
    llvm::report_fatal_error("kiln-optimize: invalid pipeline text");
}

void kiln::registerOptimizePipeline() {
  PassPipelineRegistration<OptimizeOptions>(
      "kiln-optimize", "Kiln's exact rewrites (and, on request, the reassociating ones)",
      [](OpPassManager &pm, const OptimizeOptions &options) {
        buildOptimizePipeline(pm, options.reassociate);
      });
}
