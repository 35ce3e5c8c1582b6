//===- LoopStreams.cpp - --kiln-gpu-loop-streams --------------------------===//
//
// After gpu-async-region a loop looks like
//   gpu.wait [%t0]                       // host waits for earlier work
//   scf.for ... {
//     %s = gpu.wait async                // a new stream per iteration
//     %t = gpu.launch_func async [%s] ...
//     gpu.wait [%t]                      // host waits every iteration
//     scf.yield ...
//   }
// and becomes
//   %r = scf.for ... iter_args(%s = %t0) {
//     %t = gpu.launch_func async [%s] ...
//     scf.yield ..., %t
//   }
//   gpu.wait [%r]
// Exact: everything the iterations launch is queued on one stream in issue
// order, which is the order the per-iteration waits enforced, and the body
// has no other synchronisation (so the host reads nothing the GPU writes
// inside the loop); the wait after the loop keeps what follows ordered.
//
//===----------------------------------------------------------------------===//
#include "lowering/gpu/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace kiln {
#define GEN_PASS_DEF_GPULOOPSTREAMS
#include "lowering/gpu/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

bool isHostWait(Operation *op) {
  auto wait = dyn_cast_or_null<gpu::WaitOp>(op);
  return wait && !wait.getAsyncToken() && wait.getAsyncDependencies().size() == 1;
}

bool isNewStream(Operation *op) {
  auto wait = dyn_cast_or_null<gpu::WaitOp>(op);
  return wait && wait.getAsyncToken() && wait.getAsyncDependencies().empty();
}

struct LoopStreamsPass : kiln::impl::GpuLoopStreamsBase<LoopStreamsPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); }); // inner first
    for (scf::ForOp loop : loops)
      threadStream(loop);
  }

  static void threadStream(scf::ForOp loop) {
    Block *body = loop.getBody();
    Operation *before = loop->getPrevNode();
    Operation *last = body->getTerminator()->getPrevNode();
    if (!isHostWait(before) || !isHostWait(last))
      return;
    // The body's first stream, and no other waits (a host read or a runtime
    // call inside the body needs its synchronisation).
    gpu::WaitOp newStream;
    for (Operation &op : body->without_terminator()) {
      if (&op == last)
        continue;
      if (isNewStream(&op) && !newStream) {
        newStream = cast<gpu::WaitOp>(op);
        continue;
      }
      bool waits = false;
      op.walk([&](gpu::WaitOp) { waits = true; });
      if (waits)
        return;
    }
    if (!newStream)
      return;
    IRRewriter rewriter(loop.getContext());
    Value incoming = cast<gpu::WaitOp>(before).getAsyncDependencies().front();
    Value outgoing = cast<gpu::WaitOp>(last).getAsyncDependencies().front();
    rewriter.eraseOp(before);
    auto grown = cast<scf::ForOp>(*loop.replaceWithAdditionalYields(
        rewriter, ValueRange{incoming}, /*replaceInitOperandUsesInLoop=*/false,
        [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
          return SmallVector<Value>{outgoing};
        }));
    rewriter.replaceOp(newStream, grown.getRegionIterArgs().back());
    rewriter.eraseOp(last);
    rewriter.setInsertionPointAfter(grown);
    gpu::WaitOp::create(rewriter, grown.getLoc(), Type(), ValueRange{grown.getResults().back()});
  }
};

} // namespace
