//===- InterpretStructure.cpp - structural lax ops ------------------------===//
//
// Each op computes, for every result element, the operand element it comes
// from; most are affine gathers (stridedGather). dynamic_slice and dynamic_update_slice clamp their start indices into
// [0, dim - size], as JAX does.
//
//===----------------------------------------------------------------------===//
#include "reference/Evaluator.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::interp;
using namespace kiln::lax;

namespace {

/// result[index] = operand[base + sum_d index[d] * srcStrides[d]] for every
/// result element: broadcast (stride 0), transpose (permuted strides), rev
/// (negative strides), slice and dynamic_slice (offset base) are all such
/// affine gathers. An odometer walks the result in row-major order, the
/// innermost dimension as a tight strided loop.
Tensor stridedGather(const Evaluator &ev, Type resultType, const Tensor &operand, int64_t base,
                     ArrayRef<int64_t> srcStrides) {
  Tensor r = ev.make(resultType);
  int64_t rank = r.rank();
  if (r.size() == 0)
    return r;
  if (rank == 0) {
    r.copyElement(0, operand, base);
    return r;
  }
  ArrayRef<int64_t> shape = r.shape();
  int64_t inner = shape[rank - 1], innerStride = srcStrides[rank - 1];
  SmallVector<int64_t> index(rank, 0);
  int64_t src = base;
  for (int64_t flat = 0; flat < r.size(); flat += inner) {
    for (int64_t k = 0; k < inner; ++k)
      r.copyElement(flat + k, operand, src + k * innerStride);
    for (int64_t d = rank - 2; d >= 0; --d) {
      src += srcStrides[d];
      if (++index[d] < shape[d])
        break;
      src -= srcStrides[d] * shape[d];
      index[d] = 0;
    }
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
        if (!isa<DenseElementsAttr>(c.getValue()))
          return FailureOr<Tensor>(
              op->emitError("the interpreter evaluates dense constants only"));
        return Tensor::fromAttr(c.getValue(), roundsFloats());
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
        SmallVector<int64_t> strides = x.strides();
        SmallVector<int64_t> src(cast<RankedTensorType>(resultType).getRank(), 0);
        for (auto [i, d] : llvm::enumerate(b.getBroadcastDimensions()))
          src[d] = x.shape()[i] == 1 ? 0 : strides[i];
        return stridedGather(*this, resultType, x, 0, src);
      })
      .Case<ReshapeOp, SqueezeOp, ExpandDimsOp>([&](Operation *) -> R {
        // Row-major order is unchanged: same data, new shape.
        return lookup(op->getOperand(0)).reshaped(cast<RankedTensorType>(resultType));
      })
      .Case([&](TransposeOp t) -> R {
        const Tensor &x = lookup(t.getOperand());
        SmallVector<int64_t> strides = x.strides(), src;
        for (int64_t p : t.getPermutation())
          src.push_back(strides[p]);
        return stridedGather(*this, resultType, x, 0, src);
      })
      .Case([&](RevOp rev) -> R {
        const Tensor &x = lookup(rev.getOperand());
        SmallVector<int64_t> src = x.strides();
        int64_t base = 0;
        for (int64_t d : rev.getDimensions()) {
          base += (x.shape()[d] - 1) * src[d];
          src[d] = -src[d];
        }
        return stridedGather(*this, resultType, x, base, src);
      })
      .Case([&](SliceOp s) -> R {
        const Tensor &x = lookup(s.getOperand());
        SmallVector<int64_t> src = x.strides();
        int64_t base = 0;
        for (int64_t d = 0; d < x.rank(); ++d) {
          base += s.getStartIndices()[d] * src[d];
          src[d] *= s.getStrides()[d];
        }
        return stridedGather(*this, resultType, x, base, src);
      })
      .Case([&](DynamicSliceOp s) -> R {
        const Tensor &x = lookup(s.getOperand());
        SmallVector<int64_t> starts =
            clampedStarts(*this, s.getStartIndices(), x.shape(), s.getSliceSizes());
        SmallVector<int64_t> strides = x.strides();
        return stridedGather(*this, resultType, x, flatIndex(starts, strides), strides);
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
          r.copyElement(flatIndex(index, strides), update, flat);
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
            r.copyElement(flatIndex(index, strides), x, flat);
          }
          offset += x.shape()[dim];
        }
        return r;
      })
      .Default([](Operation *) -> R { return std::nullopt; });
}
