//===- OutputsInPlace.cpp - --kiln-outputs-in-place -----------------------===//
//
// kiln::Compiler's entry copies each result into a caller-owned memref
// (memref.copy of bufferization.to_buffer). When the result's producer chain
// is private to it, the chain's tensor.empty becomes the output memref
// itself; when the copy's source is a memref.alloc used only before it
// (what kiln-scan-to-parallel-loops and a runtime GEMM write), the output
// memref replaces the alloc. Either way the result is
// computed in place (see Passes.td).
//
//===----------------------------------------------------------------------===//
#include "lowering/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace kiln {
#define GEN_PASS_DEF_OUTPUTSINPLACE
#include "lowering/Passes.h.inc"
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

/// The memref.alloc whose contents `copy` copies: its source itself, or
/// through a to_buffer of reshapes (each used once) of a `to_tensor
/// restrict` of it (a runtime call's result, as kiln-lax-to-linalg writes
/// GEMMs). `toTensor` is set to that to_tensor.
memref::AllocOp copiedAlloc(memref::CopyOp copy, Operation *&toTensor) {
  Value source = copy.getSource();
  if (auto alloc = source.getDefiningOp<memref::AllocOp>())
    return alloc;
  auto toBuffer = source.getDefiningOp<bufferization::ToBufferOp>();
  if (!toBuffer || !toBuffer->hasOneUse())
    return {};
  Value t = toBuffer.getTensor();
  while (t.hasOneUse()) {
    if (auto collapse = t.getDefiningOp<tensor::CollapseShapeOp>())
      t = collapse.getSrc();
    else if (auto expand = t.getDefiningOp<tensor::ExpandShapeOp>())
      t = expand.getSrc();
    else
      break;
  }
  auto op = t.getDefiningOp<bufferization::ToTensorOp>();
  if (!op || !op.getRestrict() || !t.hasOneUse())
    return {};
  toTensor = op;
  return op.getBuffer().getDefiningOp<memref::AllocOp>();
}

/// Whether `alloc` is only read and written before `copy` (its last use,
/// through views too), never freed and made into no tensor but `toTensor`,
/// so the copy's target can stand in for it.
bool onlyUsedBefore(memref::AllocOp alloc, memref::CopyOp copy, Operation *toTensor) {
  SmallVector<Value> worklist = {alloc.getResult()};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (user == copy || user == toTensor)
        continue;
      if (isa<memref::DeallocOp, bufferization::ToTensorOp>(user))
        return false;
      Operation *ancestor = copy->getBlock()->findAncestorOpInBlock(*user);
      if (!ancestor || !ancestor->isBeforeInBlock(copy))
        return false;
      if (isa<ViewLikeOpInterface>(user))
        llvm::append_range(worklist, user->getResults());
    }
  }
  return true;
}

struct OutputsInPlacePass
    : kiln::impl::OutputsInPlaceBase<OutputsInPlacePass> {
  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    if (fn.isExternal())
      return;
    SmallVector<memref::CopyOp> copies;
    fn.walk([&](memref::CopyOp c) { copies.push_back(c); });
    for (memref::CopyOp copy : copies) {
      auto out = dyn_cast<BlockArgument>(copy.getTarget());
      auto outType = dyn_cast<MemRefType>(copy.getTarget().getType());
      if (!out || out.getOwner() != &fn.getBody().front() || !out.hasOneUse() ||
          !outType || !outType.getLayout().isIdentity())
        continue;
      // A buffer written in place (kiln-scan-to-parallel-loops' results, a
      // runtime GEMM's): the output memref takes its place, seen with the
      // buffer's shape when only reshapes lie between them (both are
      // row-major and contiguous), and the copy goes.
      Operation *toTensor = nullptr;
      memref::AllocOp alloc = copiedAlloc(copy, toTensor);
      if (alloc && onlyUsedBefore(alloc, copy, toTensor)) {
        MemRefType allocType = alloc.getType();
        Value replacement;
        if (allocType == outType) {
          replacement = out;
        } else if (allocType.hasStaticShape() && allocType.getLayout().isIdentity() &&
                   allocType.getElementType() == outType.getElementType() &&
                   allocType.getNumElements() == outType.getNumElements()) {
          OpBuilder b = OpBuilder::atBlockBegin(&fn.getBody().front());
          replacement = memref::ReinterpretCastOp::create(
              b, copy.getLoc(), allocType, out, /*offset=*/0, allocType.getShape(),
              computeStrides(allocType.getShape()));
        }
        if (replacement) {
          auto toBuffer = copy.getSource().getDefiningOp<bufferization::ToBufferOp>();
          alloc.getResult().replaceAllUsesWith(replacement);
          alloc.erase();
          copy.erase();
          if (toBuffer && toBuffer->use_empty())
            toBuffer.erase();
          continue;
        }
      }
      auto toBuffer =
          copy.getSource().getDefiningOp<bufferization::ToBufferOp>();
      if (!toBuffer || !toBuffer->hasOneUse())
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
