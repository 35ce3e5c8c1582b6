//===- LaxToLinalg.h - lax -> linalg pattern sets ---------------*- C++ -*-===//
//
// Internal to rewrites/lowering: the pattern populators of the lax-to-linalg
// conversion, one per op family, and the helpers they share.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_REWRITES_LOWERING_LAXTOLINALG_H
#define KILN_REWRITES_LOWERING_LAXTOLINALG_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/PatternMatch.h"

namespace kiln::lowering {

void populateElementwisePatterns(mlir::RewritePatternSet &patterns);
void populateStructurePatterns(mlir::RewritePatternSet &patterns);
void populateReductionPatterns(mlir::RewritePatternSet &patterns);
void populateScanPatterns(mlir::RewritePatternSet &patterns);
/// dot_general: the linalg.generic fallback (benefit 1) and, with
/// `useRuntimeGemm`, the runtime-GEMM call (benefit 2) for contractions of at
/// least `minMacs` multiply-adds.
void populateDotGeneralPatterns(mlir::RewritePatternSet &patterns,
                                bool useRuntimeGemm, int64_t minMacs);

/// The linalg.generic fallback for every dot_general (benefit 1).
void populateDotGeneralGenericPattern(mlir::RewritePatternSet &patterns);

/// `tensor.empty` of `type` (static shapes only).
mlir::Value emptyTensor(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::RankedTensorType type);
/// A splat constant of `type`'s element type: `value` (floats and ints).
mlir::Value scalarConstant(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Type type, double value);
/// linalg.fill of a fresh tensor of `type` with `value`.
mlir::Value filledTensor(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::RankedTensorType type, mlir::Value value);
/// Reshape `value` to `type` (same element count, row-major) with
/// collapse_shape/expand_shape.
mlir::Value reshapeTensor(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value value, mlir::RankedTensorType type);
/// Whether the lowering handles element type `t` (signless ints, floats).
bool isSupportedElement(mlir::Type t);

} // namespace kiln::lowering

#endif // KILN_REWRITES_LOWERING_LAXTOLINALG_H
