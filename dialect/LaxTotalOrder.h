//===- LaxTotalOrder.h - floats as integers in their total order -*- C++ -*-===//
//
// One definition of the total-order key, for every place that compares
// floats in the IEEE total order with lax ops (the importer's eq_to/lt_to/
// le_to, kiln-expand-sort's lax.sort and lax.top_k keys).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DIALECT_LAXTOTALORDER_H
#define KILN_DIALECT_LAXTOTALORDER_H

#include "mlir/IR/Builders.h"

namespace kiln::lax {

/// A float tensor `x` as a signed integer tensor of its width whose order is
/// the IEEE total order of the floats (-NaN < -inf < ... < -0 < +0 < ... <
/// inf < NaN), as XLA's TOTALORDER comparisons: the bits with every bit but
/// the sign flipped where the sign is set (negative values then order by
/// decreasing magnitude, below every positive one). Integer and boolean
/// tensors are their own keys (returned as they are).
mlir::Value buildTotalOrderKey(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x);

/// The float tensor of `floatType`'s element type whose buildTotalOrderKey
/// is `key` (the key is a bijection of the bits).
mlir::Value buildFloatOfTotalOrderKey(mlir::OpBuilder &b, mlir::Location loc, mlir::Value key,
                                      mlir::Type floatElement);

} // namespace kiln::lax

#endif // KILN_DIALECT_LAXTOTALORDER_H
