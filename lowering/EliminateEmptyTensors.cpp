//===- EliminateEmptyTensors.cpp - --kiln-eliminate-empty-tensors ---------===//
//
// Upstream's empty-tensor elimination with one more check: the values that
// the replacement subset extraction needs must dominate the use of the
// tensor.empty it replaces. MLIR 22's own check asks whether their defining
// op dominates the insertion point, which an op also does for the ops
// nested in its regions: a dynamic_update_slice into a lax.cond's result of
// a value computed in that cond's branch had the tensor.empty in the branch
// replaced by a slice of the cond's own result, used inside the cond
// ("operand #0 does not dominate this use";
// tests/differential/regressions/cond-update-own-result.mlir,
// tests/lowering/eliminate-empty-tensors.mlir). An empty tensor left in
// place costs an allocation, nothing else.
//
// First, each use of a tensor.empty gets a tensor.empty of its own. CSE
// merges the identical empties of a program into one (an unrolled loop's
// hundreds of elementwise ops all write into one `outs`), which made every
// result alias every other in the One-Shot analysis: its conflict checks
// scan the alias set, and compile time grew as the cube of the program
// (6,400 equations: 400 s in this pass and bufferization). Sound: an empty
// tensor's contents are undefined, so no use can observe whether it shares
// one with another use; bufferization gives each its own buffer anyway
// unless it can write in place, which a private empty still allows.
//
//===----------------------------------------------------------------------===//
#include "lowering/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotModuleBufferize.h"
#include "mlir/Dialect/Bufferization/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dominance.h"

namespace kiln {
#define GEN_PASS_DEF_ELIMINATEEMPTYTENSORS
#include "lowering/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {
struct EliminateEmptyTensorsPass
    : kiln::impl::EliminateEmptyTensorsBase<EliminateEmptyTensorsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<tensor::EmptyOp> empties;
    module.walk([&](tensor::EmptyOp empty) { empties.push_back(empty); });
    for (tensor::EmptyOp empty : empties) {
      SmallVector<OpOperand *> uses;
      for (OpOperand &use : empty->getUses())
        uses.push_back(&use);
      if (uses.size() < 2)
        continue;
      OpBuilder builder(empty);
      builder.setInsertionPointAfter(empty);
      for (OpOperand *use : llvm::drop_begin(uses))
        use->set(builder.clone(*empty)->getResult(0));
    }
    // The analysis upstream's eliminateEmptyTensors(rewriter, module) runs.
    bufferization::OneShotBufferizationOptions options;
    options.allowReturnAllocsFromLoops = true;
    options.bufferizeFunctionBoundaries = true;
    bufferization::OneShotAnalysisState state(module, options);
    if (failed(bufferization::analyzeModuleOp(module, state)))
      return signalPassFailure();
    DominanceInfo dominance;
    auto extract = [&](RewriterBase &rewriter, SubsetInsertionOpInterface op,
                       tensor::EmptyOp empty, Operation *user) -> Value {
      // The Value overload: a result of an op does not dominate the ops in
      // that op's regions.
      for (Value needed : op.getValuesNeededToBuildSubsetExtraction())
        if (!dominance.properlyDominates(needed, user))
          return Value();
      return bufferization::buildSubsetExtraction(rewriter, op, empty, user);
    };
    IRRewriter rewriter(module.getContext());
    if (failed(bufferization::eliminateEmptyTensors(rewriter, module, state, extract)))
      signalPassFailure();
  }
};
} // namespace
