//===- LaxOps.h - lax operations --------------------------------*- C++ -*-===//
#ifndef KILN_DIALECT_LAXOPS_H
#define KILN_DIALECT_LAXOPS_H

#include "dialect/LaxDialect.h"
#include "dialect/LaxInterfaces.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialect/LaxEnums.h.inc"

namespace kiln::lax {
// lax.yield's parents other than scan (dialect/LaxControlFlowOps.h).
class WhileOp;
class CondOp;
} // namespace kiln::lax

#define GET_OP_CLASSES
#include "dialect/LaxOps.h.inc"

namespace kiln::lax {
/// `type` with dimension `axis` removed (the slice a scan body sees).
mlir::RankedTensorType dropDim(mlir::RankedTensorType type, int64_t axis);
/// `type` with a dimension of size `size` inserted at `axis` (a stacked ys).
mlir::RankedTensorType insertDim(mlir::RankedTensorType type, int64_t axis,
                                 int64_t size);
/// Whether a dimension of `shape` is negative or its element count
/// overflows int64 (a 4-element tensor reshaped to 4611686018427387905x4
/// wrapped to 4 elements and passed the verifier).
bool elementCountOverflows(llvm::ArrayRef<int64_t> shape);
} // namespace kiln::lax

#endif // KILN_DIALECT_LAXOPS_H
