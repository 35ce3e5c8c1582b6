//===- LaxDialect.h - the lax dialect ---------------------------*- C++ -*-===//
#ifndef KILN_DIALECT_LAXDIALECT_H
#define KILN_DIALECT_LAXDIALECT_H

#include "mlir/IR/Dialect.h"

#include "dialect/LaxDialect.h.inc"

namespace kiln::lax {
/// The largest tensor, in bytes, a lax value may be: 2^62, so that every
/// size computed from it (bytes, strides, offsets) fits in int64.
inline constexpr int64_t kMaxTensorBytes = int64_t(1) << 62;
/// Whether `type` is a statically shaped tensor whose element count and
/// size in bytes fit (kMaxTensorBytes); the constraint of every tensor of a
/// lax op (Lax_TensorOf in LaxDialect.td).
bool tensorSizeFits(mlir::Type type);
} // namespace kiln::lax

#endif // KILN_DIALECT_LAXDIALECT_H
