//===- LaxIndexingOps.h - lax indexing operations ----------*- C++ -*-===//
#ifndef KILN_DIALECT_LAXINDEXINGOPS_H
#define KILN_DIALECT_LAXINDEXINGOPS_H

#include "dialect/LaxOps.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

#include "dialect/LaxIndexingEnums.h.inc"

#define GET_OP_CLASSES
#include "dialect/LaxIndexingOps.h.inc"

namespace kiln::lax {

/// The dimension numbers of a gather or a scatter in one shape: the operand
/// dimensions the index vector addresses (start_index_map /
/// scatter_dims_to_operand_dims), the batching dimensions of the operand and
/// of the indices, and the operand dimensions a window (a slice) does not
/// have (collapsed_slice_dims / inserted_window_dims, plus the operand's
/// batching dimensions). The interpreter and the lowering share it.
struct IndexingDims {
  llvm::SmallVector<int64_t> indexMap;
  llvm::SmallVector<int64_t> operandBatching;
  llvm::SmallVector<int64_t> indicesBatching;
  /// Operand dimensions that have a window dimension, in order.
  llvm::SmallVector<int64_t> windowOperandDims;
  /// The window's size along every operand dimension (1 where it has none).
  llvm::SmallVector<int64_t> windowSizes;

  static IndexingDims of(GatherOp op);
  static IndexingDims of(ScatterOp op);
};

} // namespace kiln::lax

#endif // KILN_DIALECT_LAXINDEXINGOPS_H
