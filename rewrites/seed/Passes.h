//===- Passes.h - Kiln's built-in rewrite passes ----------------*- C++ -*-===//
#ifndef KILN_REWRITES_SEED_PASSES_H
#define KILN_REWRITES_SEED_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir {
class OpPassManager;
class RewritePatternSet;
} // namespace mlir

namespace kiln {

#define GEN_PASS_DECL
#include "rewrites/seed/Passes.h.inc"

/// The exact dot_general/transpose canonicalization patterns (seed 000).
void populateDotGeneralCanonicalizationPatterns(mlir::RewritePatternSet &patterns);
/// The exact scan layout patterns: transposes and reverses into scan axes.
void populateScanLayoutFoldingPatterns(mlir::RewritePatternSet &patterns);
/// The scan push-up patterns; the reassociating ones only with `reassociate`.
void populateScanPushUpPatterns(mlir::RewritePatternSet &patterns, bool reassociate);

/// The exact seed rewrites in order (plus the reassociating push-up steps
/// with `reassociate`); registered as `--kiln-optimize`.
void buildOptimizePipeline(mlir::OpPassManager &pm, bool reassociate);
void registerOptimizePipeline();

#define GEN_PASS_REGISTRATION
#include "rewrites/seed/Passes.h.inc"

} // namespace kiln

#endif // KILN_REWRITES_SEED_PASSES_H
