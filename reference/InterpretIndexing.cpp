//===- InterpretIndexing.cpp - gather and scatter -------------------------===//
//
// Straight loops following XLA's operational semantics (with JAX's
// index_vector_dim, the last dimension of the indices):
//
//   gather   for every result element: its batch index picks an index vector,
//            whose entries (clamped into [0, dim - slice_size]) start the
//            slice; the offset dimensions index into the slice. In mode
//            fill_or_drop a slice with any start out of that range yields the
//            fill value instead.
//   scatter  for every scatter index in row-major order (XLA's order), the
//            window of updates combines into the operand element by element;
//            mode clip clamps the start into [0, dim - window_size], the
//            other modes skip a window that does not fit entirely.
//
//===----------------------------------------------------------------------===//
#include "reference/Evaluator.h"

#include "dialect/LaxIndexingOps.h"

#include <cmath>

using namespace mlir;
using namespace kiln;
using namespace kiln::interp;
using namespace kiln::lax;

namespace {

/// Element `k` of the index vector at `batchIndex` (the indices' position
/// without the index vector dimension, which is last).
int64_t indexVectorEntry(const Tensor &indices, ArrayRef<int64_t> indicesStrides,
                         ArrayRef<int64_t> batchIndex, int64_t k) {
  // Unsigned indices are stored zero-extended: a large ui32 stays positive.
  return indices.getInt(flatIndex(batchIndex, indicesStrides) + k * indicesStrides.back());
}


void setFromAttr(Tensor &t, int64_t i, TypedAttr value) {
  if (auto f = dyn_cast<FloatAttr>(value)) {
    t.setFloat(i, f.getValueAsDouble());
    return;
  }
  auto integer = cast<IntegerAttr>(value);
  bool zext = integer.getType().isUnsignedInteger() || integer.getType().isInteger(1);
  t.setInt(i, zext ? int64_t(integer.getValue().getZExtValue())
                   : integer.getValue().getSExtValue());
}

Tensor gather(const Evaluator &ev, GatherOp op) {
  const Tensor &operand = ev.lookup(op.getOperand());
  const Tensor &indices = ev.lookup(op.getStartIndices());
  Tensor r = ev.make(op.getType());
  IndexingDims dims = IndexingDims::of(op);
  ArrayRef<int64_t> offsetDims = op.getOffsetDims();
  SmallVector<int64_t> batchDims;
  for (int64_t d = 0; d < r.rank(); ++d)
    if (!llvm::is_contained(offsetDims, d))
      batchDims.push_back(d);
  bool fill = op.getMode() == GatherScatterMode::FillOrDrop;
  TypedAttr fillValue = fill ? op.getEffectiveFillValue() : TypedAttr();
  SmallVector<int64_t> operandStrides = operand.strides(), indicesStrides = indices.strides();

  SmallVector<int64_t> out, batch(batchDims.size()), at(operand.rank());
  for (int64_t flat = 0; flat < r.size(); ++flat) {
    unravel(flat, r.shape(), out);
    for (auto [i, d] : llvm::enumerate(batchDims))
      batch[i] = out[d];
    std::fill(at.begin(), at.end(), 0);
    bool inBounds = true;
    for (auto [k, d] : llvm::enumerate(dims.indexMap)) {
      int64_t start = indexVectorEntry(indices, indicesStrides, batch, k);
      int64_t hi = operand.shape()[d] - dims.windowSizes[d];
      inBounds &= start >= 0 && start <= hi;
      at[d] = std::clamp<int64_t>(start, 0, hi);
    }
    for (auto [o, i] : llvm::zip(dims.operandBatching, dims.indicesBatching))
      at[o] = batch[i];
    for (auto [resultDim, operandDim] : llvm::zip(offsetDims, dims.windowOperandDims))
      at[operandDim] += out[resultDim];
    if (fill && !inBounds)
      setFromAttr(r, flat, fillValue);
    else if (operand.size() > 0) // an empty operand has only empty slices
      r.copyElement(flat, operand, flatIndex(at, operandStrides));
  }
  return r;
}

/// operand[i] = combine(operand[i], updates[j]) for `kind`.
void combine(Tensor &r, int64_t i, const Tensor &updates, int64_t j, ScatterKind kind) {
  if (kind == ScatterKind::Set) {
    r.copyElement(i, updates, j);
    return;
  }
  if (r.isFloat()) {
    double a = r.getFloat(i), b = updates.getFloat(j);
    switch (kind) {
    case ScatterKind::Add: r.setFloat(i, a + b); return;
    case ScatterKind::Mul: r.setFloat(i, a * b); return;
    case ScatterKind::Min: r.setFloat(i, ieeeMinimum(a, b)); return;
    case ScatterKind::Max: r.setFloat(i, ieeeMaximum(a, b)); return;
    case ScatterKind::Set: return;
    }
  }
  // Integers are stored sign- or zero-extended to 64 bits (ui32 and i1 stay
  // non-negative), so a 64-bit comparison orders them right; add and mul
  // wrap to the element width in setInt (computed unsigned: no overflow).
  int64_t a = r.getInt(i), b = updates.getInt(j);
  switch (kind) {
  case ScatterKind::Add: r.setInt(i, int64_t(uint64_t(a) + uint64_t(b))); return;
  case ScatterKind::Mul: r.setInt(i, int64_t(uint64_t(a) * uint64_t(b))); return;
  case ScatterKind::Min: r.setInt(i, std::min(a, b)); return;
  case ScatterKind::Max: r.setInt(i, std::max(a, b)); return;
  case ScatterKind::Set: return;
  }
}

Tensor scatter(const Evaluator &ev, ScatterOp op) {
  const Tensor &operand = ev.lookup(op.getOperand());
  const Tensor &indices = ev.lookup(op.getScatterIndices());
  const Tensor &updates = ev.lookup(op.getUpdates());
  Tensor r = operand;
  IndexingDims dims = IndexingDims::of(op);
  ArrayRef<int64_t> windowDims = op.getUpdateWindowDims();
  SmallVector<int64_t> scatterDims, scatterShape, windowShape;
  for (int64_t d = 0; d < updates.rank(); ++d) {
    if (llvm::is_contained(windowDims, d)) {
      windowShape.push_back(updates.shape()[d]);
    } else {
      scatterDims.push_back(d);
      scatterShape.push_back(updates.shape()[d]);
    }
  }
  int64_t numScatter = 1, numWindow = 1;
  for (int64_t s : scatterShape)
    numScatter *= s;
  for (int64_t s : windowShape)
    numWindow *= s;
  bool clip = op.getMode() == GatherScatterMode::Clip;
  SmallVector<int64_t> operandStrides = r.strides(), indicesStrides = indices.strides(),
                       updateStrides = updates.strides();

  SmallVector<int64_t> s, w, start(r.rank()), at(r.rank()), u(updates.rank());
  for (int64_t flatS = 0; flatS < numScatter; ++flatS) {
    unravel(flatS, scatterShape, s);
    std::fill(start.begin(), start.end(), 0);
    bool inBounds = true;
    for (auto [k, d] : llvm::enumerate(dims.indexMap)) {
      int64_t v = indexVectorEntry(indices, indicesStrides, s, k);
      int64_t hi = r.shape()[d] - dims.windowSizes[d];
      inBounds &= v >= 0 && v <= hi;
      start[d] = clip ? std::clamp<int64_t>(v, 0, hi) : v;
    }
    if (!clip && !inBounds)
      continue; // XLA drops the whole window
    for (auto [o, i] : llvm::zip(dims.operandBatching, dims.indicesBatching))
      start[o] = s[i];
    for (auto [i, d] : llvm::enumerate(scatterDims))
      u[d] = s[i];
    for (int64_t flatW = 0; flatW < numWindow; ++flatW) {
      unravel(flatW, windowShape, w);
      at = start;
      for (auto [i, d] : llvm::enumerate(windowDims)) {
        u[d] = w[i];
        at[dims.windowOperandDims[i]] += w[i];
      }
      combine(r, flatIndex(at, operandStrides), updates, flatIndex(u, updateStrides), op.getKind());
    }
  }
  return r;
}

} // namespace

std::optional<FailureOr<Tensor>> Evaluator::evalIndexing(Operation *op) {
  if (auto g = dyn_cast<GatherOp>(op))
    return FailureOr<Tensor>(gather(*this, g));
  if (auto s = dyn_cast<ScatterOp>(op))
    return FailureOr<Tensor>(scatter(*this, s));
  return std::nullopt;
}
