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
//   scf.for ... {
//     %t = gpu.launch_func async [%t0] ...
//     scf.yield ...
//   }
//   gpu.wait [%t0]
// Exact: everything the iterations launch is queued on %t0's stream in
// issue order, which is the order the per-iteration waits enforced, and the
// body has no other synchronisation (so the host reads nothing the GPU
// writes inside the loop); the wait after the loop keeps what follows
// ordered. The token is used from above rather than carried through
// iter_args: gpu-to-llvm lowers a `gpu.wait` on a token that is not the
// result of a stream creation (a loop result) as an *event* synchronise and
// destroy, which on a stream handle corrupted the driver's state
// (CUDA_ERROR_CONTEXT_IS_DESTROYED, then host heap corruption, on an H200).
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
    rewriter.eraseOp(before);
    rewriter.replaceOp(newStream, incoming);
    rewriter.eraseOp(last);
    rewriter.setInsertionPointAfter(loop);
    gpu::WaitOp::create(rewriter, loop.getLoc(), Type(), ValueRange{incoming});
  }
};

} // namespace
