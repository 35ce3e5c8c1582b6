//===- TileTranspose.cpp - rows <-> [step, lane] tiles by block transposes ===//
//
// Exact: the lanes x lanes block at (row r, step s) transposed holds
// buffer[r + l][s + t] at [t][l], which is where the scalar copy puts it in
// the tile; the way back is the same transpose read from the tile.
//
//===----------------------------------------------------------------------===//
#include "lowering/TileTranspose.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

/// The lanes x lanes transpose of `rows` (lanes a power of two) as log2(lanes)
/// stages of two-input shuffles: stage s swaps the s x s off-diagonal
/// sub-blocks of every 2s x 2s block, so after the last stage rows[i][j]
/// holds the input's rows[j][i]. x86 lowers each shuffle to one
/// vunpck/vperm2 instruction (lanes * log2(lanes) in all), with no spill.
static void transposeRows(OpBuilder &b, Location loc, SmallVectorImpl<Value> &rows) {
  int64_t n = rows.size();
  for (int64_t s = 1; s < n; s *= 2) {
    // Of v1 ++ v2: `low` takes v1's elements outside the s-blocks' odd
    // halves and fills them from v2, `high` the other way round.
    SmallVector<int64_t> low(n), high(n);
    for (int64_t j = 0; j < n; ++j) {
      bool odd = j & s;
      low[j] = odd ? n + j - s : j;
      high[j] = odd ? n + j : j + s;
    }
    for (int64_t i = 0; i < n; ++i) {
      if (i & s)
        continue;
      Value a = rows[i], c = rows[i + s];
      rows[i] = vector::ShuffleOp::create(b, loc, a, c, low);
      rows[i + s] = vector::ShuffleOp::create(b, loc, a, c, high);
    }
  }
}

void kiln::copyTileBlock(OpBuilder &b, Location loc, Value buffer, ValueRange first, Value tile,
                         int64_t lanes, bool toTile) {
  Type elementType = cast<MemRefType>(buffer.getType()).getElementType();
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  SmallVector<Value> tileFirst = {zero, zero};
  if (!llvm::isPowerOf2_64(lanes)) {
    // The buffer's minor dimensions are [lane, step]; the tile's are
    // [step, lane]: read, transpose (upstream's lowering), write.
    auto [from, fromIndices, to, toIndices] =
        toTile ? std::tuple(buffer, SmallVector<Value>(first), tile, tileFirst)
               : std::tuple(tile, tileFirst, buffer, SmallVector<Value>(first));
    Value padding = arith::ConstantOp::create(b, loc, b.getZeroAttr(elementType));
    SmallVector<bool> inBounds = {true, true};
    Value block = vector::TransferReadOp::create(
        b, loc, VectorType::get({lanes, lanes}, elementType), from, fromIndices, padding, inBounds);
    Value transposed = vector::TransposeOp::create(b, loc, block, ArrayRef<int64_t>{1, 0});
    vector::TransferWriteOp::create(b, loc, transposed, to, toIndices, inBounds);
    return;
  }
  // Row i of the block: element (first lane + i) in the buffer, step i in
  // the tile.
  int64_t laneDim = first.size() - 2;
  auto rowIndices = [&](int64_t i, bool inTile) {
    Value offset = arith::ConstantIndexOp::create(b, loc, i);
    if (inTile)
      return SmallVector<Value>{offset, zero};
    SmallVector<Value> indices(first);
    indices[laneDim] = arith::AddIOp::create(b, loc, first[laneDim], offset);
    return indices;
  };
  auto rowType = VectorType::get({lanes}, elementType);
  Value from = toTile ? buffer : tile, to = toTile ? tile : buffer;
  SmallVector<Value> rows;
  for (int64_t i = 0; i < lanes; ++i)
    rows.push_back(vector::LoadOp::create(b, loc, rowType, from, rowIndices(i, !toTile)));
  transposeRows(b, loc, rows);
  for (int64_t i = 0; i < lanes; ++i)
    vector::StoreOp::create(b, loc, rows[i], to, rowIndices(i, toTile));
}
