//===- ScanPushUp.h - moving consumers of a scan's ys into it ---*- C++ -*-===//
//
// The building blocks of jax-ml/jax#4968's push-up, usable from C++ patterns, from
// plugins and (as native rewrite functions) from YAML rules. Each one checks
// everything before touching the IR and fails with a reason, leaving the IR
// unchanged, when its precondition does not hold.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TRANSFORMS_SCANPUSHUP_H
#define KILN_TRANSFORMS_SCANPUSHUP_H

#include "dialect/LaxOps.h"

namespace mlir {
class OpBuilder;
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

/// A scan whose every carry accumulates a full reduction of values computed
/// from its xs slices alone (`c' = c + reduce_sum(f(x))`, likewise max, min
/// and prod), and whose ys are unused, becomes one reduction over the whole
/// stacked xs: f applied to the stacked xs (f must be elementwise), reduced
/// over every axis, combined with the initial carry. What the push-up leaves
/// of jax-ml/jax#4968 (the loss as a per-step accumulator) becomes one fused
/// reduction over all steps, which the pipelines split over cores. Float
/// sums/products reassociate (`reductionReassociates`); the rest is exact.
mlir::LogicalResult accumulatingScanToReduction(mlir::RewriterBase &rewriter, lax::ScanOp scan,
                                                bool reassociate);

/// A reduction of the same kind as `like` over `axes` of `operand`.
mlir::Value createReduceLike(mlir::OpBuilder &b, mlir::Operation *like, mlir::Value operand,
                             llvm::ArrayRef<int64_t> axes);
/// The identity of reduction `reduce`'s combiner, a splat constant of `type`.
mlir::Value identityOfReduction(mlir::OpBuilder &b, mlir::Operation *reduce,
                                mlir::RankedTensorType type);
/// The combiner of reduction `like` (add, max, min, mul), elementwise.
mlir::Value combineLike(mlir::OpBuilder &b, mlir::Operation *like, mlir::Value acc,
                        mlir::Value slice);

/// True for reduce_sum/reduce_prod on floats: regrouping them changes the
/// rounding, so they are tagged `reassociates-float`. max/min and integer
/// arithmetic (wrap-around) regroup exactly.
bool reductionReassociates(mlir::Operation *reduce);

} // namespace kiln

#endif // KILN_TRANSFORMS_SCANPUSHUP_H
