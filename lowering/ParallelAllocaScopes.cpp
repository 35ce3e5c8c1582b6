//===- ParallelAllocaScopes.cpp - --kiln-parallel-alloca-scopes -----------===//
//
// Sound: a stack save/restore pair (what an alloca_scope lowers to) only
// bounds the lifetime of the stack allocations made between them, which for
// an alloca_scope is its body; every
// alloca in an scf.parallel body already dies with its iteration
// (scf.parallel is an automatic allocation scope), so making that explicit
// changes nothing but what the sequential lowering keeps.
//
//===----------------------------------------------------------------------===//
#include "lowering/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace kiln {
#define GEN_PASS_DEF_PARALLELALLOCASCOPES
#include "lowering/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

struct ParallelAllocaScopesPass
    : kiln::impl::ParallelAllocaScopesBase<ParallelAllocaScopesPass> {
  void runOnOperation() override {
    getOperation().walk([](scf::ParallelOp loop) {
      Block *body = loop.getBody();
      bool hasAlloca =
          body->walk([](memref::AllocaOp) { return WalkResult::interrupt(); }).wasInterrupted();
      if (!hasAlloca)
        return;
      // llvm.intr.stacksave before the body's first op and stackrestore
      // before its terminator: what an alloca_scope lowers to, emitted
      // directly because an alloca_scope must stay one block, which
      // convert-scf-to-cf breaks before memref-to-llvm could lower it.
      OpBuilder b(&body->front());
      Value saved = LLVM::StackSaveOp::create(
          b, loop.getLoc(), LLVM::LLVMPointerType::get(loop.getContext()));
      b.setInsertionPoint(body->getTerminator());
      LLVM::StackRestoreOp::create(b, loop.getLoc(), saved);
    });
    // The same for an alloca_scope: its body between the pair, in place.
    SmallVector<memref::AllocaScopeOp> scopes;
    getOperation().walk([&](memref::AllocaScopeOp scope) {
      if (scope.getNumResults() == 0)
        scopes.push_back(scope);
    });
    for (memref::AllocaScopeOp scope : scopes) {
      OpBuilder b(scope);
      Value saved = LLVM::StackSaveOp::create(b, scope.getLoc(),
                                              LLVM::LLVMPointerType::get(scope.getContext()));
      Block &body = scope.getBodyRegion().front();
      body.getTerminator()->erase();
      scope->getBlock()->getOperations().splice(Block::iterator(scope), body.getOperations());
      LLVM::StackRestoreOp::create(b, scope.getLoc(), saved);
      scope.erase();
    }
  }
};

} // namespace
