//===- FlattenParallelLoops.cpp - --kiln-gpu-flatten-parallel-loops -------===//
//
// Sound: upstream's collapseParallelLoops runs the same iterations (the flat
// index enumerates the original iteration space in row-major order), and
// scf.parallel iterations are independent, so their mapping to threads does
// not matter for the result.
//
//===----------------------------------------------------------------------===//
#include "lowering/gpu/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"

#include <numeric>

namespace kiln {
#define GEN_PASS_DEF_GPUFLATTENPARALLELLOOPS
#include "lowering/gpu/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

struct FlattenParallelLoopsPass
    : kiln::impl::GpuFlattenParallelLoopsBase<FlattenParallelLoopsPass> {
  void runOnOperation() override {
    SmallVector<scf::ParallelOp> loops;
    getOperation().walk([&](scf::ParallelOp loop) {
      if (loop.getNumLoops() > 1 && loop.getInitVals().empty() &&
          !loop->getParentOfType<scf::ParallelOp>())
        loops.push_back(loop);
    });
    IRRewriter rewriter(&getContext());
    for (scf::ParallelOp loop : loops) {
      std::vector<unsigned> all(loop.getNumLoops());
      std::iota(all.begin(), all.end(), 0u);
      rewriter.setInsertionPoint(loop);
      collapseParallelLoops(rewriter, loop, {all});
    }
  }
};

} // namespace
