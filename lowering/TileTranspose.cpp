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

#include <numeric>

using namespace mlir;

/// The stages s = 1, 2, ..., below `end` of the lanes x lanes transpose of
/// `rows` (lanes a power of two) as two-input shuffles: stage s swaps the
/// s x s off-diagonal sub-blocks of every 2s x 2s block. Stage s exchanges
/// bit log2(s) of the row index with that bit of the column index, so the
/// stages commute, and all of them (end = lanes) leave rows[i][j] holding
/// the input's rows[j][i]. x86 lowers each shuffle to one vunpck/vshuf/vperm
/// instruction (lanes per stage), with no spill.
static void transposeRows(OpBuilder &b, Location loc, SmallVectorImpl<Value> &rows,
                          int64_t end) {
  int64_t n = rows.size();
  for (int64_t s = 1; s < end; s *= 2) {
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
  // Row i of the block, from column `column` on: element (first lane + i)
  // in the buffer, step i in the tile.
  int64_t laneDim = first.size() - 2;
  auto rowIndices = [&](int64_t i, int64_t column, bool inTile) {
    Value offset = arith::ConstantIndexOp::create(b, loc, i);
    Value columnOffset = arith::ConstantIndexOp::create(b, loc, column);
    if (inTile)
      return SmallVector<Value>{offset, columnOffset};
    SmallVector<Value> indices(first);
    indices[laneDim] = arith::AddIOp::create(b, loc, first[laneDim], offset);
    if (column)
      indices.back() = arith::AddIOp::create(b, loc, indices.back(), columnOffset);
    return indices;
  };
  auto rowType = VectorType::get({lanes}, elementType);
  Value from = toTile ? buffer : tile, to = toTile ? tile : buffer;
  auto loadRows = [&] {
    SmallVector<Value> rows;
    for (int64_t i = 0; i < lanes; ++i)
      rows.push_back(vector::LoadOp::create(b, loc, rowType, from, rowIndices(i, 0, !toTile)));
    return rows;
  };
  auto storeRows = [&](ArrayRef<Value> rows) {
    for (int64_t i = 0; i < lanes; ++i)
      vector::StoreOp::create(b, loc, rows[i], to, rowIndices(i, 0, toTile));
  };
  if (lanes < 4) {
    SmallVector<Value> rows = loadRows();
    transposeRows(b, loc, rows, lanes);
    storeRows(rows);
    return;
  }
  // The last stage (s = half) moves whole half rows: it is done by the
  // loads on the way in (two half-row loads joined, which x86 does with a
  // load and a vinsertf128/vinsertf64x4, off the shuffle port) and by the
  // stores on the way out (each half stored alone: vextractf128 to memory).
  // Stage `half` alone maps rows i and i + half (i < half) to
  //   row i        = [row i [0, half),    row i + half [0, half)]
  //   row i + half = [row i [half, lanes), row i + half [half, lanes)]
  // and the stages commute, so doing it first (in) or last (out) is the
  // same transpose with a third fewer shuffles for 8 lanes.
  int64_t half = lanes / 2;
  if (toTile) {
    auto halfType = VectorType::get({half}, elementType);
    SmallVector<int64_t> join(lanes);
    std::iota(join.begin(), join.end(), 0);
    auto load = [&](int64_t row, int64_t column) -> Value {
      return vector::LoadOp::create(b, loc, halfType, buffer,
                                    rowIndices(row, column, /*inTile=*/false));
    };
    SmallVector<Value> rows(lanes);
    for (int64_t i = 0; i < half; ++i)
      for (int64_t column : {int64_t(0), half}) {
        Value low = load(i, column);
        Value high = load(i + half, column);
        rows[i + column] = vector::ShuffleOp::create(b, loc, low, high, join);
      }
    transposeRows(b, loc, rows, half);
    storeRows(rows);
    return;
  }
  SmallVector<Value> rows = loadRows();
  transposeRows(b, loc, rows, half);
  auto store = [&](Value row, int64_t offset, int64_t toRow, int64_t toColumn) {
    Value part = vector::ExtractStridedSliceOp::create(b, loc, row, ArrayRef<int64_t>{offset},
                                                       ArrayRef<int64_t>{half},
                                                       ArrayRef<int64_t>{1});
    vector::StoreOp::create(b, loc, part, buffer, rowIndices(toRow, toColumn, /*inTile=*/false));
  };
  for (int64_t i = 0; i < half; ++i) {
    store(rows[i], 0, i, 0);
    store(rows[i + half], 0, i, half);
    store(rows[i], half, i + half, 0);
    store(rows[i + half], half, i + half, half);
  }
}
