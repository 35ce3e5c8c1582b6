//===- ScalarizeElementwise.h - lax elementwise ops on scalars --*- C++ -*-===//
#ifndef KILN_LOWERING_SCALARIZEELEMENTWISE_H
#define KILN_LOWERING_SCALARIZEELEMENTWISE_H

#include "mlir/IR/Builders.h"

namespace kiln {

/// Emits arith/math ops computing one element of lax elementwise `op` from
/// one element of each operand. Returns a null Value when `op` is not a lax
/// elementwise op this knows (the caller then reports it).
mlir::Value scalarizeElementwise(mlir::OpBuilder &b, mlir::Operation *op,
                                 mlir::ValueRange scalars);

/// A scalar constant of `type` (float or integer) with `value`.
mlir::Value scalarConstant(mlir::OpBuilder &b, mlir::Location loc, mlir::Type type,
                           double value);

} // namespace kiln

#endif // KILN_LOWERING_SCALARIZEELEMENTWISE_H
