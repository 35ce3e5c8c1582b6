//===- ScalarizeElementwise.h - lax elementwise ops on scalars --*- C++ -*-===//
#ifndef KILN_LOWERING_SCALARIZEELEMENTWISE_H
#define KILN_LOWERING_SCALARIZEELEMENTWISE_H

#include "mlir/IR/Builders.h"

namespace kiln::lowering {

/// Whether `op` is a lax elementwise op scalarizeElementwise knows.
bool isScalarizable(mlir::Operation *op);

/// Emits arith/math ops computing one element of lax elementwise `op` from
/// one element of each operand (signless scalars, or vectors of them).
/// Returns a null Value when `op` is not scalarizable (the caller reports it).
mlir::Value scalarizeElementwise(mlir::OpBuilder &b, mlir::Operation *op,
                                 mlir::ValueRange scalars);

/// A constant of `type` (a float or integer scalar, or a vector of them)
/// holding `value` in every lane.
mlir::Value scalarConstant(mlir::OpBuilder &b, mlir::Location loc, mlir::Type type,
                           double value);

} // namespace kiln::lowering

#endif // KILN_LOWERING_SCALARIZEELEMENTWISE_H
