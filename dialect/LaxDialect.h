//===- LaxDialect.h - the lax dialect ---------------------------*- C++ -*-===//
#ifndef KILN_DIALECT_LAXDIALECT_H
#define KILN_DIALECT_LAXDIALECT_H

#include "mlir/IR/Dialect.h"

#include "dialect/LaxDialect.h.inc"

#endif // KILN_DIALECT_LAXDIALECT_H
