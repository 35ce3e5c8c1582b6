//===- InterpretSort.cpp - lax.sort and lax.top_k ---------------------------===//
//
// Each line along the axis is ordered by a stable sort of its positions, on
// keys that order as the ops define (floats by the total order of their
// double values, which keeps the order of f16/bf16/f32 values, NaNs
// included; for lax.sort after -0 becomes +0 and every NaN the positive
// quiet NaN). Values are copied element by element, bit for bit.
//
//===----------------------------------------------------------------------===//
#include "reference/Evaluator.h"

#include "dialect/LaxIndexingOps.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>

using namespace mlir;
using namespace kiln;
using namespace kiln::interp;
using namespace kiln::lax;

namespace {

/// Element i of `t` as an integer ordered as the element (floats by the
/// total order, after canonicalization with `canonicalize`); unsigned
/// 64-bit integers with their top bit flipped.
int64_t orderedKey(const Tensor &t, int64_t i, bool canonicalize) {
  if (!t.isFloat()) {
    int64_t v = t.getInt(i);
    return t.getElementType().isUnsignedInteger(64) ? v ^ std::numeric_limits<int64_t>::min() : v;
  }
  double x = t.getFloat(i);
  if (canonicalize && x == 0)
    x = 0.0;
  if (canonicalize && std::isnan(x))
    x = std::numeric_limits<double>::quiet_NaN();
  int64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return bits ^ ((bits >> 63) & std::numeric_limits<int64_t>::max());
}

/// The lines of a tensor of `shape` along `axis`: `count` lines of `length`
/// elements, line l's element p at first(l) + p * stride.
struct Lines {
  int64_t length, stride = 1, count;
  Lines(ArrayRef<int64_t> shape, int64_t axis) : length(shape[axis]) {
    for (int64_t d = axis + 1; d < int64_t(shape.size()); ++d)
      stride *= shape[d];
    int64_t outer = 1;
    for (int64_t d = 0; d < axis; ++d)
      outer *= shape[d];
    count = outer * stride;
  }
  int64_t first(int64_t line) const {
    return (line / stride) * length * stride + line % stride;
  }
};

SmallVector<Tensor> sort(const Evaluator &ev, SortOp op, ArrayRef<Tensor> operands) {
  SmallVector<Tensor> results;
  for (Value r : op.getResults())
    results.push_back(ev.make(r.getType()));
  Lines lines(operands[0].shape(), op.getDimension());
  int64_t numKeys = op.getNumKeys();
  std::vector<int64_t> order(lines.length);
  std::vector<std::vector<int64_t>> keys(numKeys, std::vector<int64_t>(lines.length));
  for (int64_t l = 0; l < lines.count; ++l) {
    int64_t first = lines.first(l);
    for (int64_t k = 0; k < numKeys; ++k)
      for (int64_t p = 0; p < lines.length; ++p)
        keys[k][p] = orderedKey(operands[k], first + p * lines.stride, /*canonicalize=*/true);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      for (const std::vector<int64_t> &key : keys)
        if (key[a] != key[b])
          return key[a] < key[b];
      return false;
    });
    for (auto [result, operand] : llvm::zip(results, operands))
      for (int64_t r = 0; r < lines.length; ++r)
        result.copyElement(first + r * lines.stride, operand, first + order[r] * lines.stride);
  }
  return results;
}

SmallVector<Tensor> topK(const Evaluator &ev, TopKOp op, const Tensor &operand) {
  Tensor values = ev.make(op.getValues().getType()), indices = ev.make(op.getIndices().getType());
  Lines in(operand.shape(), op.getAxis()), out(values.shape(), op.getAxis());
  std::vector<int64_t> order(in.length), key(in.length);
  for (int64_t l = 0; l < in.count; ++l) {
    int64_t first = in.first(l), outFirst = out.first(l);
    for (int64_t p = 0; p < in.length; ++p)
      key[p] = orderedKey(operand, first + p * in.stride, /*canonicalize=*/false);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t a, int64_t b) { return key[a] > key[b]; });
    for (int64_t r = 0; r < out.length; ++r) {
      values.copyElement(outFirst + r * out.stride, operand, first + order[r] * in.stride);
      indices.setInt(outFirst + r * out.stride, order[r]);
    }
  }
  return {values, indices};
}

} // namespace

std::optional<SmallVector<Tensor>> Evaluator::evalSort(Operation *op) {
  using R = std::optional<SmallVector<Tensor>>;
  return llvm::TypeSwitch<Operation *, R>(op)
      .Case([&](SortOp o) -> R {
        SmallVector<Tensor> operands;
        for (Value v : o.getOperands())
          operands.push_back(lookup(v));
        return sort(*this, o, operands);
      })
      .Case([&](TopKOp o) -> R { return topK(*this, o, lookup(o.getOperand())); })
      .Default([](Operation *) -> R { return std::nullopt; });
}
