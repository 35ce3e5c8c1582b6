//===- TileTranspose.cpp - rows <-> [step, lane] tiles by block transposes ===//
//
// Exact: the lanes x lanes block at (row r, step s) transposed holds
// buffer[r + l][s + t] at [t][l], which is where the scalar copy puts it in
// the tile; the way back is the same transpose read from the tile. The
// paired-row network is a permutation too: each shuffle's mask is read off
// tables of where every element is before and after the stage, and the
// last table is the tile's.
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

namespace {
/// Where the elements of an L x L block (L = 2^m; row r, column c) sit in a
/// set of vector registers of W elements: the bits of a register's index
/// and of a position within it, most significant first, each one bit of the
/// row (id i < m) or of the column (id m + i).
struct BitLayout {
  SmallVector<int64_t> registerBits, positionBits;
};
} // namespace

/// Bit `id` of element (row, column).
static int64_t elementBit(int64_t id, int64_t m, int64_t row, int64_t column) {
  return id < m ? (row >> id) & 1 : (column >> (id - m)) & 1;
}

/// The index that bits `ids` (most significant first) of the element form.
static int64_t indexOf(ArrayRef<int64_t> ids, int64_t m, int64_t row, int64_t column) {
  int64_t index = 0;
  for (int64_t id : ids)
    index = index * 2 + elementBit(id, m, row, column);
  return index;
}

/// The element (row, column) at position `position` of register `reg` in
/// `layout`: the inverse of indexOf over the register and position bits.
static std::pair<int64_t, int64_t> elementAt(const BitLayout &layout, int64_t m, int64_t reg,
                                             int64_t position) {
  int64_t row = 0, column = 0;
  auto decode = [&](ArrayRef<int64_t> ids, int64_t index) {
    for (auto [k, id] : llvm::enumerate(ids)) {
      int64_t bit = (index >> (ids.size() - 1 - k)) & 1;
      if (id < m)
        row |= bit << id;
      else
        column |= bit << (id - m);
    }
  };
  decode(layout.registerBits, reg);
  decode(layout.positionBits, position);
  return {row, column};
}

/// The layouts a block goes through between rows paired in registers of 2L
/// elements (register k = [row k, row k + L/2]) and the tile, whose register
/// j is the tile's elements [2jL, 2(j+1)L), i.e. tile rows 2j and 2j + 1
/// (tile[c][r] = element (r, c)). Consecutive layouts differ in one bit of
/// the register index, so each output register of a stage draws from two
/// input registers: one two-input shuffle (AVX-512: vunpck/vshuf or
/// vpermt2ps). Stage t swaps row bit t (in the register index) with column
/// bit t + 1 (in the position); the last stage also puts the position bits
/// in the tile's order.
static SmallVector<BitLayout> pairedRowLayouts(int64_t m) {
  auto row = [](int64_t i) { return i; };
  auto column = [m](int64_t i) { return m + i; };
  BitLayout layout;
  for (int64_t i = m - 2; i >= 0; --i)
    layout.registerBits.push_back(row(i));
  layout.positionBits.push_back(row(m - 1));
  for (int64_t i = m - 1; i >= 0; --i)
    layout.positionBits.push_back(column(i));
  SmallVector<BitLayout> layouts = {layout};
  for (int64_t t = 0; t + 2 < m; ++t) {
    llvm::replace(layout.registerBits, row(t), column(t + 1));
    llvm::replace(layout.positionBits, column(t + 1), row(t));
    layouts.push_back(layout);
  }
  BitLayout tile;
  for (int64_t i = m - 1; i >= 1; --i)
    tile.registerBits.push_back(column(i));
  tile.positionBits.push_back(column(0));
  for (int64_t i = m - 1; i >= 0; --i)
    tile.positionBits.push_back(row(i));
  layouts.push_back(tile);
  return layouts;
}

/// Moves the block from layout `from` (registers `regs`) to layout `to`:
/// each output register is one shuffle of the (at most two) input registers
/// holding its elements.
static SmallVector<Value> shuffleStage(OpBuilder &b, Location loc, ArrayRef<Value> regs,
                                       const BitLayout &from, const BitLayout &to, int64_t m) {
  int64_t width = int64_t(1) << to.positionBits.size();
  SmallVector<Value> out;
  for (int64_t j = 0, e = int64_t(1) << to.registerBits.size(); j < e; ++j) {
    SmallVector<int64_t> sources, mask;
    for (int64_t p = 0; p < width; ++p) {
      auto [row, column] = elementAt(to, m, j, p);
      int64_t source = indexOf(from.registerBits, m, row, column);
      auto it = llvm::find(sources, source);
      if (it == sources.end()) {
        sources.push_back(source);
        it = std::prev(sources.end());
      }
      assert(sources.size() <= 2 && "a stage changes one bit of the register index");
      mask.push_back((it - sources.begin()) * width + indexOf(from.positionBits, m, row, column));
    }
    Value first = regs[sources[0]];
    Value second = sources.size() > 1 ? regs[sources[1]] : first;
    out.push_back(vector::ShuffleOp::create(b, loc, first, second, mask));
  }
  return out;
}

void kiln::copyTileBlock(OpBuilder &b, Location loc, Value buffer, ValueRange first, Value tile,
                         int64_t lanes, bool toTile, int64_t registerElements) {
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
  // The block as a lanes x lanes view of the buffer: every row is one
  // dynamic offset plus a constant multiple of the row stride, which the
  // code generator folds into each access's displacement (indexed from the
  // buffer, loop-strength reduction gave each row a register of its own,
  // which the block copies spilled and reloaded).
  auto bufferType = cast<MemRefType>(buffer.getType());
  int64_t rank = bufferType.getRank();
  SmallVector<OpFoldResult> offsets(first.begin(), first.end());
  SmallVector<OpFoldResult> sizes(rank, b.getIndexAttr(1)), strides(rank, b.getIndexAttr(1));
  sizes[rank - 2] = sizes[rank - 1] = b.getIndexAttr(lanes);
  buffer = memref::SubViewOp::create(
      b, loc,
      memref::SubViewOp::inferRankReducedResultType({lanes, lanes}, bufferType, offsets, sizes,
                                                    strides),
      buffer, offsets, sizes, strides);
  // Row i of the block, from column `column` on: element (first lane + i)
  // in the buffer, step i in the tile.
  auto rowIndices = [&](int64_t i, int64_t column) {
    return SmallVector<Value>{arith::ConstantIndexOp::create(b, loc, i),
                              arith::ConstantIndexOp::create(b, loc, column)};
  };
  auto rowType = VectorType::get({lanes}, elementType);
  Value from = toTile ? buffer : tile, to = toTile ? tile : buffer;
  auto loadRows = [&] {
    SmallVector<Value> rows;
    for (int64_t i = 0; i < lanes; ++i)
      rows.push_back(vector::LoadOp::create(b, loc, rowType, from, rowIndices(i, 0)));
    return rows;
  };
  auto storeRows = [&](ArrayRef<Value> rows) {
    for (int64_t i = 0; i < lanes; ++i)
      vector::StoreOp::create(b, loc, rows[i], to, rowIndices(i, 0));
  };
  if (lanes < 4) {
    SmallVector<Value> rows = loadRows();
    transposeRows(b, loc, rows, lanes);
    storeRows(rows);
    return;
  }
  if (registerElements >= 2 * lanes) {
    // Two rows to a register (AVX-512: 8 f32 lanes in a zmm): half the
    // registers, and each shuffle moves two rows' worth.
    int64_t m = llvm::Log2_64(lanes), half = lanes / 2;
    SmallVector<BitLayout> layouts = pairedRowLayouts(m);
    auto pairType = VectorType::get({2 * lanes}, elementType);
    SmallVector<ReassociationIndices> both = {{0, 1}};
    Value flatTile = memref::CollapseShapeOp::create(b, loc, tile, both);
    auto tileIndex = [&](int64_t j) -> SmallVector<Value> {
      return {arith::ConstantIndexOp::create(b, loc, 2 * j * lanes)};
    };
    if (toTile) {
      SmallVector<int64_t> join(2 * lanes);
      std::iota(join.begin(), join.end(), 0);
      SmallVector<Value> regs;
      for (int64_t k = 0; k < half; ++k) {
        Value low = vector::LoadOp::create(b, loc, rowType, buffer, rowIndices(k, 0));
        Value high = vector::LoadOp::create(b, loc, rowType, buffer, rowIndices(k + half, 0));
        regs.push_back(vector::ShuffleOp::create(b, loc, low, high, join));
      }
      for (size_t s = 0; s + 1 < layouts.size(); ++s)
        regs = shuffleStage(b, loc, regs, layouts[s], layouts[s + 1], m);
      for (auto [j, reg] : llvm::enumerate(regs))
        vector::StoreOp::create(b, loc, reg, flatTile, tileIndex(j));
      return;
    }
    SmallVector<Value> regs;
    for (int64_t j = 0; j < half; ++j)
      regs.push_back(vector::LoadOp::create(b, loc, pairType, flatTile, tileIndex(j)));
    for (size_t s = layouts.size() - 1; s > 0; --s)
      regs = shuffleStage(b, loc, regs, layouts[s], layouts[s - 1], m);
    for (auto [k, reg] : llvm::enumerate(regs))
      for (int64_t h : {int64_t(0), int64_t(1)}) {
        Value part = vector::ExtractStridedSliceOp::create(
            b, loc, reg, ArrayRef<int64_t>{h * lanes}, ArrayRef<int64_t>{lanes},
            ArrayRef<int64_t>{1});
        vector::StoreOp::create(b, loc, part, buffer, rowIndices(k + h * half, 0));
      }
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
                                    rowIndices(row, column));
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
    vector::StoreOp::create(b, loc, part, buffer, rowIndices(toRow, toColumn));
  };
  for (int64_t i = 0; i < half; ++i) {
    store(rows[i], 0, i, 0);
    store(rows[i + half], 0, i, half);
    store(rows[i], half, i + half, 0);
    store(rows[i + half], half, i + half, half);
  }
}
