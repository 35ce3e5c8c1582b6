//===- ScanUtils.h - rebuilding lax.scan ops --------------------*- C++ -*-===//
#ifndef KILN_TRANSFORMS_SCANUTILS_H
#define KILN_TRANSFORMS_SCANUTILS_H

#include "dialect/LaxOps.h"

namespace mlir {
class RewriterBase;
} // namespace mlir

namespace kiln {

/// Everything that defines a scan besides its body: rewrites copy it from an
/// existing scan, change what they need, and rebuild.
struct ScanSignature {
  llvm::SmallVector<mlir::Value> consts, inits, xs;
  llvm::SmallVector<int64_t> xsAxes, ysAxes;
  llvm::SmallVector<mlir::Type> ysTypes;
  int64_t length = 0;
  bool reverse = false;
  int64_t unroll = 1;

  static ScanSignature of(lax::ScanOp scan);
};

/// Whether `v` is available right before `scan` (defined before it in an
/// enclosing block, or a block argument there), so that it can become one
/// of its operands.
bool availableBefore(mlir::Value v, lax::ScanOp scan);

/// Creates a scan with `signature` right before `scan`, moving `scan`'s body
/// region into it (the caller adjusts block arguments and the yield to match
/// the signature). The old scan is left in place, bodiless, for the caller to
/// replace.
lax::ScanOp rebuildScan(mlir::RewriterBase &rewriter, lax::ScanOp scan,
                        const ScanSignature &signature);

/// What a rewrite adds to a scan: new consts, carries (with initial values)
/// and xs, and, computed inside the body, new carry updates and ys slices.
struct ScanExtension {
  llvm::SmallVector<mlir::Value> consts, inits, xs;
  llvm::SmallVector<int64_t> xsAxes;
  /// Per new ys: the axis it is stacked along.
  llvm::SmallVector<int64_t> ysAxes;
};

/// The new block arguments a body callback receives, and the values the old
/// body yielded (its carries, then its ys slices).
struct ScanBodyView {
  mlir::ValueRange consts, carries, xSlices;
  mlir::ValueRange oldCarryYields, oldYsYields;
};

/// What a body callback returns: the next value of each new carry, then one
/// slice of each new ys (as many as ScanExtension::ysAxes).
struct ScanBodyYields {
  llvm::SmallVector<mlir::Value> carries, ys;
};

/// The scan that `extendScan` built, with the index of the first new carry
/// result and the first new ys result.
struct ExtendedScan {
  lax::ScanOp scan;
  unsigned firstNewCarry, firstNewYs;
};

/// Adds `extension` to `scan`: `buildBody` runs with the insertion point at
/// the end of the body (before its yield) and returns the new yields; it
/// cannot fail (callers check everything before). The old scan's results are
/// replaced by the matching results of the new one.
ExtendedScan
extendScan(mlir::RewriterBase &rewriter, lax::ScanOp scan, const ScanExtension &extension,
           llvm::function_ref<ScanBodyYields(mlir::OpBuilder &, const ScanBodyView &)>
               buildBody);

} // namespace kiln

#endif // KILN_TRANSFORMS_SCANUTILS_H
