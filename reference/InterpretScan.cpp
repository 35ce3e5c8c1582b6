//===- InterpretScan.cpp - lax.scan ---------------------------------------===//
//
// The loop exactly as docs/dialect.md writes it: step s visits slice
// i = reverse ? length-1-s : s of every xs (along its own axis) and writes
// slice i of every ys (along its own axis).
//
//===----------------------------------------------------------------------===//
#include "reference/Evaluator.h"

#include "llvm/ADT/ScopeExit.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::interp;
using namespace kiln::lax;

namespace {

/// Offset of element `index` of a slice taken at position `i` of `axis`.
struct SliceAddressing {
  SmallVector<int64_t> sliceShape;
  SmallVector<int64_t> strides; // of the stacked tensor, without `axis`
  int64_t axisStride;

  SliceAddressing(ArrayRef<int64_t> stackedShape, ArrayRef<int64_t> stackedStrides,
                  int64_t axis) {
    for (int64_t d = 0; d < int64_t(stackedShape.size()); ++d) {
      if (d == axis)
        continue;
      sliceShape.push_back(stackedShape[d]);
      strides.push_back(stackedStrides[d]);
    }
    axisStride = stackedStrides[axis];
  }

  /// Flat offsets (into the stacked tensor) of every slice element at i = 0.
  SmallVector<int64_t> offsets() const {
    SmallVector<int64_t> result, index;
    int64_t n = 1;
    for (int64_t d : sliceShape)
      n *= d;
    for (int64_t flat = 0; flat < n; ++flat) {
      unravel(flat, sliceShape, index);
      int64_t o = 0;
      for (auto [i, s] : llvm::zip(index, strides))
        o += i * s;
      result.push_back(o);
    }
    return result;
  }
};

} // namespace

FailureOr<SmallVector<Tensor>> Evaluator::evalScan(ScanOp scan) {
  SmallVector<Tensor> carries;
  for (Value v : scan.getInits())
    carries.push_back(lookup(v));
  SmallVector<SmallVector<int64_t>> xsOffsets;
  SmallVector<int64_t> xsAxisStrides;
  for (auto [j, xs] : llvm::enumerate(scan.getXs())) {
    const Tensor &x = lookup(xs);
    SliceAddressing a(x.shape(), x.strides(), scan.getXsAxis(j));
    xsOffsets.push_back(a.offsets());
    xsAxisStrides.push_back(a.axisStride);
  }
  SmallVector<Tensor> ys;
  SmallVector<SmallVector<int64_t>> ysOffsets;
  SmallVector<int64_t> ysAxisStrides;
  for (auto [j, result] : llvm::enumerate(scan.getYs())) {
    ys.push_back(make(result.getType()));
    SliceAddressing a(ys.back().shape(), ys.back().strides(), scan.getYsAxis(j));
    ysOffsets.push_back(a.offsets());
    ysAxisStrides.push_back(a.axisStride);
  }
  // The consts are bound once, in a scope around every step, rather than
  // copied into each step's arguments.
  pushScope();
  llvm::scope_exit leave([&] { popScope(); });
  for (auto [arg, v] : llvm::zip(scan.getConstArgs(), scan.getConsts()))
    bind(arg, lookup(v));

  int64_t length = scan.getLength();
  unsigned numConsts = scan.getNumConsts();
  for (int64_t step = 0; step < length; ++step) {
    int64_t i = scan.getReverse() ? length - 1 - step : step;
    SmallVector<Tensor> args = std::move(carries);
    for (auto [j, arg] : llvm::enumerate(scan.getXSliceArgs())) {
      const Tensor &x = lookup(scan.getXs()[j]);
      Tensor slice = make(arg.getType());
      int64_t base = i * xsAxisStrides[j];
      for (auto [k, offset] : llvm::enumerate(xsOffsets[j]))
        slice.copyElement(k, x, base + offset);
      args.push_back(std::move(slice));
    }
    FailureOr<SmallVector<Tensor>> yielded =
        runBlock(scan.getBodyBlock(), std::move(args), numConsts);
    if (failed(yielded))
      return failure();
    carries.assign(std::make_move_iterator(yielded->begin()),
                   std::make_move_iterator(yielded->begin() + scan.getNumCarry()));
    for (auto [j, y] : llvm::enumerate(ys)) {
      const Tensor &slice = (*yielded)[scan.getNumCarry() + j];
      int64_t base = i * ysAxisStrides[j];
      for (auto [k, offset] : llvm::enumerate(ysOffsets[j]))
        y.copyElement(base + offset, slice, k);
    }
  }
  SmallVector<Tensor> results(carries);
  llvm::append_range(results, ys);
  return results;
}
