//===- OutputsInPlace.cpp - --kiln-outputs-in-place -----------------------===//
//
// kiln::Compiler's entry copies each result into a caller-owned memref
// (memref.copy of bufferization.to_buffer). When the result's producer chain
// is private to it, the chain's tensor.empty becomes the output memref
// itself, so the result is computed in place (see Passes.td).
//
//===----------------------------------------------------------------------===//
#include "rewrites/lowering/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"

namespace kiln {
#define GEN_PASS_DEF_KILNOUTPUTSINPLACE
#include "rewrites/lowering/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

/// The init operand fed by a tensor.empty at the bottom of `v`'s
/// destination chain, when every value on the way has exactly one use.
OpOperand *privateEmptyInit(Value v) {
  while (true) {
    if (!v.hasOneUse())
      return nullptr;
    auto dps = v.getDefiningOp<DestinationStyleOpInterface>();
    if (!dps)
      return nullptr;
    OpOperand *init = dps.getTiedOpOperand(cast<OpResult>(v));
    if (!init)
      return nullptr;
    if (init->get().getDefiningOp<tensor::EmptyOp>())
      return init;
    v = init->get();
  }
}

struct OutputsInPlacePass
    : kiln::impl::KilnOutputsInPlaceBase<OutputsInPlacePass> {
  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    if (fn.isExternal())
      return;
    SmallVector<memref::CopyOp> copies;
    fn.walk([&](memref::CopyOp c) { copies.push_back(c); });
    for (memref::CopyOp copy : copies) {
      auto out = dyn_cast<BlockArgument>(copy.getTarget());
      auto outType = dyn_cast<MemRefType>(copy.getTarget().getType());
      auto toBuffer =
          copy.getSource().getDefiningOp<bufferization::ToBufferOp>();
      if (!out || out.getOwner() != &fn.getBody().front() || !out.hasOneUse() ||
          !outType || !outType.getLayout().isIdentity() || !toBuffer ||
          !toBuffer->hasOneUse())
        continue;
      Value result = toBuffer.getTensor();
      auto tensorType =
          RankedTensorType::get(outType.getShape(), outType.getElementType());
      if (result.getType() != tensorType)
        continue;
      // The copy's to_buffer is the result's only use besides the chain.
      OpOperand *init = privateEmptyInit(result);
      if (!init)
        continue;
      OpBuilder b(fn.getContext());
      b.setInsertionPointToStart(&fn.getBody().front());
      Value dest = bufferization::ToTensorOp::create(
          b, copy.getLoc(), tensorType, out, /*restrict=*/true,
          /*writable=*/true);
      init->set(dest);
    }
  }
};

} // namespace
