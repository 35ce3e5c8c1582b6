//===- ScanPushUp.h - moving consumers of a scan's ys into it ---*- C++ -*-===//
//
// The building blocks of seed 002's push-up, usable from C++ patterns, from
// plugins and (as native rewrite functions) from YAML rules. Each one checks
// everything before touching the IR and fails with a reason, leaving the IR
// unchanged, when its precondition does not hold.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_REWRITES_SEED_SCANPUSHUP_H
#define KILN_REWRITES_SEED_SCANPUSHUP_H

#include "dialect/LaxOps.h"

namespace mlir {
class RewriterBase;
} // namespace mlir

namespace kiln {

/// If `value` is a ys result of a lax.scan, that scan and the ys index.
std::optional<std::pair<lax::ScanOp, unsigned>> asScanYs(mlir::Value value);

/// Moves an elementwise `op` that reads a ys result of a scan into the scan
/// body: it then computes one slice per iteration and its result becomes a new
/// ys. Its other operands become, per kind: ys of the same scan (the body's
/// yielded slice), splat constants (a splat of the slice shape), broadcasts
/// constant along the scan axis (consts broadcast in the body), other values
/// of the same shape (new xs). Requires that the ys read by `op` have no other
/// users, so nothing ends up stacked twice. Exact.
mlir::LogicalResult sinkElementwiseIntoScan(mlir::RewriterBase &rewriter,
                                            mlir::Operation *op);

/// A reduction (reduce_sum/max/min/prod) of a ys over axes other than the scan
/// axis moves into the body: the body yields the reduced slice, and a
/// reduction over the scan axis stays outside if it was asked for.
/// Reassociates float sums and products (see `reductionReassociates`).
mlir::LogicalResult moveReductionIntoScanBody(mlir::RewriterBase &rewriter,
                                              mlir::Operation *reduce);

/// A reduction of a ys over exactly its scan axis becomes a new carry,
/// initialised to the reduction's identity and combined with each slice.
/// Reassociates float sums and products (see `reductionReassociates`).
mlir::LogicalResult scanReductionToCarry(mlir::RewriterBase &rewriter,
                                         mlir::Operation *reduce);

/// True for reduce_sum/reduce_prod on floats: regrouping them changes the
/// rounding, so they are tagged `reassociates-float`. max/min and integer
/// arithmetic (wrap-around) regroup exactly.
bool reductionReassociates(mlir::Operation *reduce);

} // namespace kiln

#endif // KILN_REWRITES_SEED_SCANPUSHUP_H
