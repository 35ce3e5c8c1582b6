//===- TileTranspose.h - rows <-> [step, lane] tiles by block transposes -*- C++ -*-===//
//
// kiln-scan-to-parallel-loops runs a scan over `lanes` batch elements at a
// time from [step, lane] tiles on the stack. When each element's steps are
// contiguous in the global buffer (jax-ml/jax#2491: one system per row), a block of
// `lanes` steps is that buffer's lanes x lanes block transposed: this copy
// moves it through registers instead of one scalar per element (lanes a
// power of two: a shuffle network whose half-row stage is done by the loads
// or the stores, or, when a register holds two rows, one over registers of
// two rows each; otherwise vector.transfer_read, vector.transpose and
// vector.transfer_write).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LOWERING_TILETRANSPOSE_H
#define KILN_LOWERING_TILETRANSPOSE_H

#include "mlir/IR/Builders.h"

namespace kiln {

/// Copies one lanes x lanes block between `buffer` (element rows: dimension
/// rank-2 runs along the lanes, rank-1 along the steps; `first` are the
/// indices of the block's lane 0, step 0) and `tile` ([step, lane], the
/// block at [0, 0]), `toTile` saying the direction. All `lanes` rows and
/// steps must be inside the buffer. `registerElements`: elements of the
/// target's vector registers; at 2 * lanes or more (lanes >= 4) two rows go
/// to a register.
void copyTileBlock(mlir::OpBuilder &b, mlir::Location loc, mlir::Value buffer,
                   mlir::ValueRange first, mlir::Value tile, int64_t lanes, bool toTile,
                   int64_t registerElements = 0);

} // namespace kiln

#endif // KILN_LOWERING_TILETRANSPOSE_H
