//===- HostOpsToKernels.cpp - --kiln-gpu-host-ops-to-kernels --------------===//
//
// In a GPU executable every buffer is device memory, and the host may only
// launch kernels, call the runtime and copy. This pass moves the buffer work
// bufferization left outside parallel loops to where the GPU mapping finds
// it. Each rewrite is exact:
//  - memref.copy and linalg.copy have the same semantics (element-wise copy
//    between same-shaped buffers), and linalg.copy lowers to a parallel loop;
//  - a one-iteration scf.parallel around an op, or around a run of scalar
//    code (a scan over a scalar carry that kiln-scan-to-parallel-loops
//    left as one loop of loads and stores), runs it once, as it alone does
//    (it becomes a one-thread kernel); a run is only wrapped when no value
//    it defines is used after it;
//  - reading element i of a copy of buffer B made right before the read
//    gives B's element i (gpu-async-region orders the copy before the read);
//  - a loop carry that bufferization computes into a fresh buffer every
//    iteration (the old value is still read after the new one is made)
//    alternates between two buffers instead: the buffer of iteration k-1 is
//    dead once iteration k has made its value (only iteration k read it),
//    so iteration k+1 may overwrite it. The init value is copied into the
//    first buffer, so the caller's buffer is never written.
//
//===----------------------------------------------------------------------===//
#include "lowering/gpu/BufferRoot.h"
#include "lowering/gpu/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace kiln {
#define GEN_PASS_DEF_GPUHOSTOPSTOKERNELS
#include "lowering/gpu/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

/// Host staging copies larger than this are not made: a host read of a big
/// buffer means the program does real work on the host, which is reported.
constexpr int64_t kMaxStagedBytes = 4096;

bool inParallelLoop(Operation *op) {
  return op->getParentOfType<scf::ParallelOp>() || op->getParentOfType<gpu::LaunchOp>();
}

/// Whether `value` is (a view of) a host stack buffer.
bool isHostStackBuffer(Value value) {
  return isa_and_nonnull<memref::AllocaOp>(kiln::bufferRoot(value));
}

struct HostOpsToKernelsPass
    : kiln::impl::GpuHostOpsToKernelsBase<HostOpsToKernelsPass> {
  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    if (failed(pingPongLoopCarries(fn)) || failed(copiesToLinalg(fn)) ||
        failed(wrapScalarRuns(fn)) || failed(wrapLooplessOps(fn)) ||
        failed(stageHostLoads(fn)))
      signalPassFailure();
  }

  /// The first (loop, iter_arg) of `fn` whose yielded value is a buffer
  /// allocated in the loop's body.
  static std::optional<std::pair<scf::ForOp, unsigned>> findFreshCarry(func::FuncOp fn) {
    std::optional<std::pair<scf::ForOp, unsigned>> found;
    fn.walk([&](scf::ForOp loop) {
      if (inParallelLoop(loop))
        return WalkResult::advance();
      for (auto [i, value] : llvm::enumerate(loop.getYieldedValues()))
        if (auto alloc = value.getDefiningOp<memref::AllocOp>();
            alloc && alloc->getBlock() == loop.getBody()) {
          found = {loop, unsigned(i)};
          return WalkResult::interrupt();
        }
      return WalkResult::advance();
    });
    return found;
  }

  LogicalResult pingPongLoopCarries(func::FuncOp fn) {
    IRRewriter rewriter(fn.getContext());
    while (auto carry = findFreshCarry(fn)) {
      auto [loop, i] = *carry;
      auto fresh = loop.getYieldedValues()[i].getDefiningOp<memref::AllocOp>();
      Location loc = fresh.getLoc();
      MemRefType type = fresh.getType();
      if (!type.hasStaticShape())
        return fresh.emitOpError("kiln-lower-gpu: expected a static loop carry");
      rewriter.setInsertionPoint(loop);
      auto first = memref::AllocOp::create(rewriter, loc, type);
      auto second = memref::AllocOp::create(rewriter, loc, type);
      memref::CopyOp::create(rewriter, loc, loop.getInitArgs()[i], first);
      rewriter.modifyOpInPlace(loop, [&] { loop.getInitArgsMutable()[i].assign(first); });
      // One more iter_arg, the spare buffer: this iteration's value goes
      // there, and the current one becomes the next iteration's spare.
      Value current = loop.getRegionIterArgs()[i];
      auto grown = cast<scf::ForOp>(
          *loop.replaceWithAdditionalYields(
              rewriter, ValueRange{second.getResult()}, /*replaceInitOperandUsesInLoop=*/false,
              [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
                return SmallVector<Value>{current};
              }));
      BlockArgument spare = grown.getRegionIterArgs().back();
      rewriter.replaceOp(fresh, spare);
      // Both buffers are freed after the loop (DeviceMemory makes the
      // frees gpu.dealloc), the result's unless the function returns it.
      rewriter.setInsertionPointAfter(grown);
      memref::DeallocOp::create(rewriter, loc, grown.getResults().back());
      Value result = grown.getResult(i);
      bool returned = false, escapes = false;
      kiln::forEachViewUser(result, [&](Operation *user) {
        returned |= isa<func::ReturnOp>(user);
        escapes |= user->hasTrait<OpTrait::IsTerminator>() && !isa<func::ReturnOp>(user);
      });
      if (escapes)
        return grown.emitOpError("kiln-lower-gpu: a loop carry that leaves an enclosing loop "
                                 "is not supported");
      if (!returned) {
        rewriter.setInsertionPoint(grown->getBlock()->getTerminator());
        memref::DeallocOp::create(rewriter, loc, result);
      }
      first->setAttr(kiln::kGpuFreedAttr, rewriter.getUnitAttr());
      second->setAttr(kiln::kGpuFreedAttr, rewriter.getUnitAttr());
    }
    return success();
  }

  LogicalResult copiesToLinalg(func::FuncOp fn) {
    SmallVector<memref::CopyOp> copies;
    fn.walk([&](memref::CopyOp op) {
      if (!inParallelLoop(op))
        copies.push_back(op);
    });
    for (memref::CopyOp copy : copies) {
      OpBuilder b(copy);
      linalg::CopyOp::create(b, copy.getLoc(), copy.getSource(), copy.getTarget());
      copy.erase();
    }
    return success();
  }

  /// Scalar code: loads, stores, arith/math on scalars, and scf.for/if made
  /// of scalar code.
  static bool isScalarCode(Operation *op) {
    if (isa<memref::LoadOp, memref::StoreOp, scf::YieldOp>(op))
      return true;
    if (!isa<scf::ForOp, scf::IfOp>(op) &&
        !isa<arith::ArithDialect, math::MathDialect>(op->getDialect()))
      return false;
    for (Type t : op->getResultTypes())
      if (isa<ShapedType>(t))
        return false;
    for (Region &region : op->getRegions())
      for (Operation &inner : region.getOps())
        if (!isScalarCode(&inner))
          return false;
    return true;
  }

  static bool writesBuffer(Operation *op) {
    return op->walk([](memref::StoreOp store) {
               return isHostStackBuffer(store.getMemRef()) ? WalkResult::advance()
                                                           : WalkResult::interrupt();
             }).wasInterrupted();
  }

  /// Wraps `run` (consecutive ops of one block) in a one-iteration
  /// scf.parallel when it writes a buffer and nothing after it uses a value
  /// it defines (its constants move out first).
  static void wrapRun(ArrayRef<Operation *> run) {
    if (!llvm::any_of(run, writesBuffer))
      return;
    SmallVector<Operation *> body;
    for (Operation *op : run) {
      if (isa<arith::ConstantOp>(op))
        op->moveBefore(run.front());
      else
        body.push_back(op);
    }
    llvm::SmallPtrSet<Operation *, 16> inRun(body.begin(), body.end());
    for (Operation *op : body)
      for (Operation *user : op->getUsers())
        if (!inRun.contains(op->getBlock()->findAncestorOpInBlock(*user)))
          return;
    OpBuilder b(body.front());
    Location loc = body.front()->getLoc();
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    auto loop = scf::ParallelOp::create(b, loc, ValueRange{zero}, ValueRange{one}, ValueRange{one});
    for (Operation *op : body)
      op->moveBefore(loop.getBody()->getTerminator());
  }

  LogicalResult wrapScalarRuns(func::FuncOp fn) {
    SmallVector<SmallVector<Operation *>> runs;
    fn.walk([&](Block *block) {
      Operation *parent = block->getParentOp();
      if (inParallelLoop(parent) || isa<scf::ParallelOp>(parent) ||
          (!isa<func::FuncOp>(parent) && isScalarCode(parent)))
        return;
      SmallVector<Operation *> run;
      for (Operation &op : block->without_terminator()) {
        if (isScalarCode(&op)) {
          run.push_back(&op);
          continue;
        }
        if (!run.empty())
          runs.push_back(std::exchange(run, {}));
      }
      if (!run.empty())
        runs.push_back(run);
    });
    for (ArrayRef<Operation *> run : runs)
      wrapRun(run);
    return success();
  }

  LogicalResult wrapLooplessOps(func::FuncOp fn) {
    SmallVector<linalg::LinalgOp> loopless;
    fn.walk([&](linalg::LinalgOp op) {
      if (!inParallelLoop(op) && op.getNumParallelLoops() == 0)
        loopless.push_back(op);
    });
    for (linalg::LinalgOp op : loopless) {
      if (!op.hasPureBufferSemantics())
        return op->emitOpError("kiln-lower-gpu: expected a bufferized linalg op");
      OpBuilder b(op);
      Location loc = op.getLoc();
      Value zero = arith::ConstantIndexOp::create(b, loc, 0);
      Value one = arith::ConstantIndexOp::create(b, loc, 1);
      auto loop = scf::ParallelOp::create(b, loc, ValueRange{zero}, ValueRange{one},
                                          ValueRange{one});
      op->moveBefore(loop.getBody()->getTerminator());
    }
    return success();
  }

  LogicalResult stageHostLoads(func::FuncOp fn) {
    SmallVector<memref::LoadOp> loads;
    WalkResult walk = fn.walk([&](Operation *op) {
      if (inParallelLoop(op))
        return WalkResult::advance();
      if (auto load = dyn_cast<memref::LoadOp>(op)) {
        if (!isHostStackBuffer(load.getMemRef()))
          loads.push_back(load);
      } else if (auto store = dyn_cast<memref::StoreOp>(op)) {
        if (!isHostStackBuffer(store.getMemRef())) {
          store.emitOpError("kiln-lower-gpu: a host store into a device buffer is not "
                            "supported");
          return WalkResult::interrupt();
        }
      }
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();
    for (memref::LoadOp load : loads) {
      MemRefType type = load.getMemRefType();
      int64_t bytes = type.hasStaticShape()
                          ? type.getNumElements() * type.getElementTypeBitWidth() / 8
                          : -1;
      if (!type.getLayout().isIdentity() || bytes < 0 || bytes > kMaxStagedBytes)
        return load.emitOpError("kiln-lower-gpu: the host would read a device buffer here; "
                                "only identity-layout buffers of at most ")
               << kMaxStagedBytes << " bytes are copied to the host, got " << type;
      OpBuilder b(load);
      Value host = memref::AllocaOp::create(b, load.getLoc(), type);
      gpu::MemcpyOp::create(b, load.getLoc(), Type(), ValueRange{}, host, load.getMemRef());
      load.getMemrefMutable().assign(host);
    }
    return success();
  }
};

} // namespace
