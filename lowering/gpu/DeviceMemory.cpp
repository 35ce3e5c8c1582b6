//===- DeviceMemory.cpp - --kiln-gpu-device-memory ------------------------===//
//
// Host buffers of a GPU executable move to device memory. Sound because,
// after --kiln-gpu-host-ops-to-kernels and kernel outlining, a host function
// only passes buffers to kernels, to the runtime GEMM (which takes device
// pointers) and to copies: the pass checks that, and reports any other host
// access at its op. Dynamically shaped allocations (the bookkeeping arrays
// of buffer deallocation; Kiln's tensors are static) stay on the host.
//
//===----------------------------------------------------------------------===//
#include "lowering/gpu/BufferRoot.h"
#include "lowering/gpu/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace kiln {
#define GEN_PASS_DEF_GPUDEVICEMEMORY
#include "lowering/gpu/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

bool inKernel(Operation *op) {
  return op->getParentOfType<gpu::LaunchOp>() || op->getParentOfType<gpu::GPUModuleOp>();
}

struct DeviceMemoryPass : kiln::impl::GpuDeviceMemoryBase<DeviceMemoryPass> {
  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    if (fn.isExternal())
      return;
    if (failed(allocsToDevice(fn)))
      return signalPassFailure();
    // The frees kiln-gpu-host-ops-to-kernels placed (loop carries).
    fn.walk([&](memref::DeallocOp dealloc) {
      if (inKernel(dealloc) || !dealloc.getMemref().getType().hasStaticShape())
        return;
      OpBuilder b(dealloc);
      gpu::DeallocOp::create(b, dealloc.getLoc(), Type(), ValueRange{}, dealloc.getMemref());
      dealloc.erase();
    });
    globalsToDevice(fn);
    if (failed(checkNoHostAccess(fn)))
      signalPassFailure();
  }

  /// Each static host allocation becomes a device allocation, freed where
  /// its block ends (before the return, for the function's top level),
  /// unless the function returns it. Sound: one-shot bufferization ran
  /// without deallocation, so nothing else frees these buffers; a buffer
  /// that only views die with its block is dead once the block ends (kernels
  /// launched on it are ordered before the free by gpu-async-region).
  LogicalResult allocsToDevice(func::FuncOp fn) {
    SmallVector<memref::AllocOp> allocs;
    fn.walk([&](memref::AllocOp op) {
      if (!inKernel(op) && op.getType().hasStaticShape())
        allocs.push_back(op);
    });
    for (memref::AllocOp alloc : allocs) {
      OpBuilder b(alloc);
      auto device = gpu::AllocOp::create(b, alloc.getLoc(), alloc.getType(), Type(),
                                         ValueRange{}, ValueRange{}, ValueRange{});
      bool freedAlready = alloc->hasAttr(kiln::kGpuFreedAttr);
      alloc.replaceAllUsesWith(device.getMemref());
      alloc.erase();
      if (freedAlready)
        continue;
      bool returned = false, escapes = false;
      kiln::forEachViewUser(device.getMemref(), [&](Operation *user) {
        if (isa<func::ReturnOp>(user))
          returned = true;
        else if (user->hasTrait<OpTrait::IsTerminator>())
          escapes = true;
      });
      if (escapes)
        return device.emitOpError("kiln-lower-gpu: a buffer that leaves its block (yielded by "
                                  "a loop) is not supported");
      if (returned)
        continue;
      Block *block = device->getBlock();
      OpBuilder db(block->getTerminator());
      gpu::DeallocOp::create(db, device.getLoc(), Type(), ValueRange{}, device.getMemref());
    }
    return success();
  }

  /// Constants are host globals: each gets a device copy, made at the
  /// function's start (get_global has no operands, so it can move there)
  /// and freed before every return, unless the copy is itself returned.
  void globalsToDevice(func::FuncOp fn) {
    SmallVector<memref::GetGlobalOp> globals;
    fn.walk([&](memref::GetGlobalOp op) {
      if (!inKernel(op))
        globals.push_back(op);
    });
    Block &entry = fn.front();
    for (memref::GetGlobalOp global : globals) {
      global->moveBefore(&entry, entry.begin());
      OpBuilder b(&entry, std::next(entry.begin()));
      Location loc = global.getLoc();
      auto device = gpu::AllocOp::create(b, loc, global.getType(), Type(), ValueRange{},
                                         ValueRange{}, ValueRange{});
      auto copy = gpu::MemcpyOp::create(b, loc, Type(), ValueRange{}, device.getMemref(),
                                        global.getResult());
      global.getResult().replaceAllUsesExcept(device.getMemref(), copy);
      bool returned = false;
      kiln::forEachViewUser(device.getMemref(), [&](Operation *user) {
        returned |= isa<func::ReturnOp>(user);
      });
      if (returned)
        continue;
      fn.walk([&](func::ReturnOp ret) {
        OpBuilder rb(ret);
        gpu::DeallocOp::create(rb, ret.getLoc(), Type(), ValueRange{}, device.getMemref());
      });
    }
  }

  /// Whether the host may touch the buffer `value` views.
  static bool isHostBuffer(Value value) {
    Operation *root = kiln::bufferRoot(value);
    if (auto alloc = dyn_cast_or_null<memref::AllocOp>(root))
      return !alloc.getType().hasStaticShape();
    return isa_and_nonnull<memref::AllocaOp>(root);
  }

  /// The ops that read or write a buffer's elements (everything else on the
  /// host only passes buffers on).
  static bool accessesElements(Operation *op) {
    return isa<memref::LoadOp, memref::StoreOp, memref::CopyOp, linalg::LinalgOp,
               vector::TransferReadOp, vector::TransferWriteOp, vector::LoadOp, vector::StoreOp,
               vector::MaskedLoadOp, vector::MaskedStoreOp>(op);
  }

  LogicalResult checkNoHostAccess(func::FuncOp fn) {
    WalkResult walk = fn.walk([&](Operation *op) {
      if (inKernel(op) || !accessesElements(op))
        return WalkResult::advance();
      for (Value operand : op->getOperands())
        if (isa<MemRefType>(operand.getType()) && !isHostBuffer(operand)) {
          op->emitOpError("kiln-lower-gpu: would access a device buffer on the host (only "
                          "kernels, the runtime GEMM and copies may)");
          return WalkResult::interrupt();
        }
      return WalkResult::advance();
    });
    return failure(walk.wasInterrupted());
  }
};

} // namespace
