//===- FunctionDedup.cpp - jax-ml/jax#7155 ---------------------------------------===//
//
// An outer function calling an inner jitted function ten times imports as ten
// pjit calls. The importer already shares one function between identical
// pjit bodies; this pass also merges private functions that became identical
// later (after canonicalization or rewrites), so each body is compiled once.
// Merging is sound because the functions compute the same thing: same type,
// and bodies equivalent op by op (OperationEquivalence, ignoring locations).
//
//===----------------------------------------------------------------------===//
#include "transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/Inliner.h"
#include "mlir/Transforms/InliningUtils.h"

namespace kiln {
#define GEN_PASS_DEF_DEDUPFUNCTIONS
#include "transforms/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln;

namespace {

bool sameFunction(func::FuncOp a, func::FuncOp b) {
  if (a.getFunctionType() != b.getFunctionType() || a.isExternal() || b.isExternal())
    return false;
  return OperationEquivalence::isRegionEquivalentTo(
      &a.getBody(), &b.getBody(), OperationEquivalence::IgnoreLocations);
}

/// Number of ops in a function body, terminators included.
int64_t sizeOf(func::FuncOp f) {
  int64_t n = 0;
  f.getBody().walk([&](Operation *) { ++n; });
  return n;
}

struct DedupFunctionsPass : kiln::impl::DedupFunctionsBase<DedupFunctionsPass> {
  using DedupFunctionsBase::DedupFunctionsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    mergeIdentical(module);
    if (inlineMaxOps > 0 && failed(inlineSmall(module)))
      signalPassFailure();
  }

  /// Keeps the first of each group of identical private functions.
  void mergeIdentical(ModuleOp module) {
    SmallVector<func::FuncOp> kept;
    for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>())) {
      if (!func.isPrivate()) 
        continue;
      auto twin = llvm::find_if(kept, [&](func::FuncOp k) { return sameFunction(k, func); });
      if (twin == kept.end()) {
        kept.push_back(func);
        continue;
      }
      if (failed(SymbolTable::replaceAllSymbolUses(func, twin->getSymNameAttr(), module)))
        continue;
      func.erase();
    }
  }

  /// Inlines calls of private functions of at most `inlineMaxOps` ops, then
  /// erases the functions no call refers to any more.
  LogicalResult inlineSmall(ModuleOp module) {
    SymbolTable symbols(module);
    InlinerInterface inliner(&getContext());
    SmallVector<func::CallOp> calls;
    module.walk([&](func::CallOp call) { calls.push_back(call); });
    for (func::CallOp call : calls) {
      auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
      if (!callee || !callee.isPrivate() || callee.isExternal() ||
          sizeOf(callee) > inlineMaxOps)
        continue;
      InlinerConfig config;
      if (failed(inlineCall(inliner, config.getCloneCallback(), call, callee,
                            &callee.getBody(), /*shouldCloneInlinedRegion=*/true)))
        continue;
      call.erase();
    }
    for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
      if (func.isPrivate() && SymbolTable::symbolKnownUseEmpty(func, module))
        func.erase();
    return success();
  }
};

} // namespace
