//===- InterpretStructure.cpp - structural lax ops ------------------------===//
//
// Each op computes, for every result element, the operand element it comes
// from. dynamic_slice and dynamic_update_slice clamp their start indices into
// [0, dim - size], as JAX does.
//
//===----------------------------------------------------------------------===//
#include "dialect/interpreter/Evaluator.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::interp;
using namespace kiln::lax;

namespace {

int64_t dot(ArrayRef<int64_t> index, ArrayRef<int64_t> strides) {
  int64_t flat = 0;
  for (auto [i, s] : llvm::zip(index, strides))
    flat += i * s;
  return flat;
}

/// result[index] = operand[source(index)] for every result element.
template <typename SourceFn>
Tensor gather(const Evaluator &ev, Type resultType, const Tensor &operand, SourceFn source) {
  Tensor r = ev.make(resultType);
  SmallVector<int64_t> index, from;
  SmallVector<int64_t> strides = operand.strides();
  for (int64_t flat = 0; flat < r.size(); ++flat) {
    unravel(flat, r.shape(), index);
    from.assign(index.begin(), index.end());
    source(from);
    r.copyElement(flat, operand, dot(from, strides));
  }
  return r;
}

/// Clamped start indices of a dynamic (update) slice.
SmallVector<int64_t> clampedStarts(const Evaluator &ev, OperandRange starts,
                                   ArrayRef<int64_t> dims, ArrayRef<int64_t> sizes) {
  SmallVector<int64_t> result;
  for (auto [v, dim, size] : llvm::zip(starts, dims, sizes))
    result.push_back(std::clamp<int64_t>(ev.lookup(v).getInt(0), 0, dim - size));
  return result;
}

} // namespace

std::optional<FailureOr<Tensor>> Evaluator::evalStructure(Operation *op) {
  using R = std::optional<FailureOr<Tensor>>;
  Type resultType = op->getNumResults() == 1 ? op->getResult(0).getType() : Type();
  return TypeSwitch<Operation *, R>(op)
      .Case([&](ConstantOp c) -> R {
        return Tensor::fromAttr(c.getValue(), !options.f64Reference);
      })
      .Case([&](IotaOp iota) -> R {
        Tensor r = make(resultType);
        SmallVector<int64_t> index;
        for (int64_t flat = 0; flat < r.size(); ++flat) {
          unravel(flat, r.shape(), index);
          int64_t v = index[iota.getDimension()];
          r.isFloat() ? r.setFloat(flat, v) : r.setInt(flat, v);
        }
        return r;
      })
      .Case([&](BroadcastInDimOp b) -> R {
        const Tensor &x = lookup(b.getOperand());
        ArrayRef<int64_t> dims = b.getBroadcastDimensions();
        return gather(*this, resultType, x, [&](SmallVectorImpl<int64_t> &from) {
          SmallVector<int64_t> src;
          for (auto [i, d] : llvm::enumerate(dims))
            src.push_back(x.shape()[i] == 1 ? 0 : from[d]);
          from.assign(src.begin(), src.end());
        });
      })
      .Case<ReshapeOp, SqueezeOp, ExpandDimsOp>([&](Operation *) -> R {
        // Row-major order is unchanged: same data, new shape.
        return lookup(op->getOperand(0)).reshaped(cast<RankedTensorType>(resultType));
      })
      .Case([&](TransposeOp t) -> R {
        const Tensor &x = lookup(t.getOperand());
        ArrayRef<int64_t> perm = t.getPermutation();
        return gather(*this, resultType, x, [&](SmallVectorImpl<int64_t> &from) {
          SmallVector<int64_t> src(perm.size());
          for (auto [i, p] : llvm::enumerate(perm))
            src[p] = from[i];
          from.assign(src.begin(), src.end());
        });
      })
      .Case([&](RevOp rev) -> R {
        const Tensor &x = lookup(rev.getOperand());
        return gather(*this, resultType, x, [&](SmallVectorImpl<int64_t> &from) {
          for (int64_t d : rev.getDimensions())
            from[d] = x.shape()[d] - 1 - from[d];
        });
      })
      .Case([&](SliceOp s) -> R {
        const Tensor &x = lookup(s.getOperand());
        return gather(*this, resultType, x, [&](SmallVectorImpl<int64_t> &from) {
          for (size_t d = 0; d < from.size(); ++d)
            from[d] = s.getStartIndices()[d] + from[d] * s.getStrides()[d];
        });
      })
      .Case([&](DynamicSliceOp s) -> R {
        const Tensor &x = lookup(s.getOperand());
        SmallVector<int64_t> starts =
            clampedStarts(*this, s.getStartIndices(), x.shape(), s.getSliceSizes());
        return gather(*this, resultType, x, [&](SmallVectorImpl<int64_t> &from) {
          for (size_t d = 0; d < from.size(); ++d)
            from[d] += starts[d];
        });
      })
      .Case([&](DynamicUpdateSliceOp s) -> R {
        const Tensor &x = lookup(s.getOperand());
        const Tensor &update = lookup(s.getUpdate());
        SmallVector<int64_t> starts =
            clampedStarts(*this, s.getStartIndices(), x.shape(), update.shape());
        Tensor r = x;
        SmallVector<int64_t> index, strides = r.strides();
        for (int64_t flat = 0; flat < update.size(); ++flat) {
          unravel(flat, update.shape(), index);
          for (size_t d = 0; d < index.size(); ++d)
            index[d] += starts[d];
          r.copyElement(dot(index, strides), update, flat);
        }
        return r;
      })
      .Case([&](ConcatenateOp c) -> R {
        Tensor r = make(resultType);
        int64_t dim = c.getDimension(), offset = 0;
        SmallVector<int64_t> index, strides = r.strides();
        for (Value input : c.getInputs()) {
          const Tensor &x = lookup(input);
          for (int64_t flat = 0; flat < x.size(); ++flat) {
            unravel(flat, x.shape(), index);
            index[dim] += offset;
            r.copyElement(dot(index, strides), x, flat);
          }
          offset += x.shape()[dim];
        }
        return r;
      })
      .Default([](Operation *) -> R { return std::nullopt; });
}
