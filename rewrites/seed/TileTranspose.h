//===- TileTranspose.h - rows <-> [step, lane] tiles by block transposes -*- C++ -*-===//
//
// kiln-scan-to-parallel-loops runs a scan over `lanes` batch elements at a
// time from a [step, lane] tile on the stack. When each element's steps are
// contiguous in the global buffer (seed 003: one system per row), the tile
// is that buffer's lanes x steps block transposed: these copies move it as
// lanes x lanes blocks through registers (vector.transfer_read, a
// vector.transpose that the CPU pipeline lowers to 16x16 shuffles, and
// vector.transfer_write) instead of one scalar per element.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_REWRITES_SEED_TILETRANSPOSE_H
#define KILN_REWRITES_SEED_TILETRANSPOSE_H

#include "mlir/IR/Builders.h"

namespace kiln {

/// Copies steps [0, fullSteps) between `buffer` (element rows: dimension
/// rank-2 runs along the lanes, rank-1 along the steps; `first` are the
/// indices of lane 0, step 0) and `tile` ([steps, lanes]) as square blocks,
/// `toTile` saying the direction; `fullSteps` is a multiple of `lanes`, and
/// all `lanes` rows must be inside the buffer.
void copyTileBlocks(mlir::OpBuilder &b, mlir::Location loc, mlir::Value buffer,
                    mlir::ValueRange first, mlir::Value tile, int64_t lanes, int64_t fullSteps,
                    bool toTile);

} // namespace kiln

#endif // KILN_REWRITES_SEED_TILETRANSPOSE_H
