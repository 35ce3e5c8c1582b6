//===- TileTranspose.cpp - rows <-> [step, lane] tiles by block transposes ===//
//
// Exact: a transfer_read of the in-bounds lanes x lanes block at (row r,
// step s) followed by a [1, 0] transpose holds buffer[r + l][s + t] at
// [t][l], which is where the scalar copy puts it in the tile; the way back
// is the same transpose read from the tile.
//
//===----------------------------------------------------------------------===//
#include "rewrites/seed/TileTranspose.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

void kiln::copyTileBlocks(OpBuilder &b, Location loc, Value buffer, ValueRange first, Value tile,
                          int64_t lanes, int64_t fullSteps, bool toTile) {
  Type elementType = cast<MemRefType>(buffer.getType()).getElementType();
  auto blockType = VectorType::get({lanes, lanes}, elementType);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value padding = arith::ConstantOp::create(b, loc, b.getZeroAttr(elementType));
  SmallVector<bool> inBounds = {true, true};
  scf::ForOp::create(
      b, loc, zero, arith::ConstantIndexOp::create(b, loc, fullSteps),
      arith::ConstantIndexOp::create(b, loc, lanes), ValueRange{},
      [&](OpBuilder &sb, Location, Value step, ValueRange) {
        SmallVector<Value> global(first);
        global.back() = arith::AddIOp::create(sb, loc, first.back(), step);
        SmallVector<Value> local = {step, zero};
        // The buffer's minor dimensions are [lane, step]; the tile's are
        // [step, lane].
        auto [from, fromIndices, to, toIndices] =
            toTile ? std::tuple(buffer, global, tile, local) : std::tuple(tile, local, buffer, global);
        Value block = vector::TransferReadOp::create(sb, loc, blockType, from, fromIndices,
                                                     padding, inBounds);
        Value transposed = vector::TransposeOp::create(sb, loc, block, ArrayRef<int64_t>{1, 0});
        vector::TransferWriteOp::create(sb, loc, transposed, to, toIndices, inBounds);
        scf::YieldOp::create(sb, loc);
      });
}
