//===- Passes.h - Kiln's built-in rewrite passes ----------------*- C++ -*-===//
#ifndef KILN_TRANSFORMS_PASSES_H
#define KILN_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir {
class OpPassManager;
class RewritePatternSet;
} // namespace mlir

namespace kiln {

#define GEN_PASS_DECL
#include "transforms/Passes.h.inc"

/// The exact dot_general/transpose canonicalization patterns (jax-ml/jax#19327).
void populateDotGeneralCanonicalizationPatterns(mlir::RewritePatternSet &patterns);
/// The exact scan layout patterns: transposes and reverses into scan axes.
void populateScanLayoutFoldingPatterns(mlir::RewritePatternSet &patterns);
/// The scan push-up patterns; the reassociating ones only with `reassociate`.
void populateScanPushUpPatterns(mlir::RewritePatternSet &patterns, bool reassociate);

/// The exact lax -> lax rewrites in order (plus the reassociating push-up steps
/// with `reassociate`); registered as `--kiln-optimize`.
void buildOptimizePipeline(mlir::OpPassManager &pm, bool reassociate);
void registerOptimizePipeline();

/// Builds a pipeline of module passes (`build`) into `pm` when `pm` runs on
/// builtin.module (or any op); otherwise (nested under another op) a
/// kiln-misplaced-pipeline pass that fails naming `name`.
void addModulePipeline(mlir::OpPassManager &pm, llvm::StringRef name,
                       llvm::function_ref<void(mlir::OpPassManager &)> build);

#define GEN_PASS_REGISTRATION
#include "transforms/Passes.h.inc"

} // namespace kiln

#endif // KILN_TRANSFORMS_PASSES_H
