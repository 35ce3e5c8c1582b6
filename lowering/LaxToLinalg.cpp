//===- LaxToLinalg.cpp - the --kiln-lax-to-linalg pass --------------------===//
#include "lowering/LaxToLinalg.h"
#include "lowering/Passes.h"

#include "dialect/LaxDialect.h"
#include "dialect/LaxOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

#include <functional>

namespace kiln {
#define GEN_PASS_DEF_LAXTOLINALG
#include "lowering/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {
/// A call that closes a cycle of calls (a function calling itself, directly
/// or not), or null. JAX programs have no recursion; compiled, a recursive
/// call never returns (LLVM turns the self tail call into a loop: kiln-run
/// hung). The interpreter reports it too (calls nested deeper than 256).
func::CallOp findRecursion(ModuleOp module) {
  llvm::DenseMap<StringRef, SmallVector<func::CallOp>> calls;
  module.walk([&](func::CallOp call) {
    if (auto f = call->getParentOfType<func::FuncOp>())
      calls[f.getSymName()].push_back(call);
  });
  llvm::DenseMap<StringRef, int> state; // 1: on the stack, 2: done
  std::function<func::CallOp(StringRef)> visit = [&](StringRef f) -> func::CallOp {
    state[f] = 1;
    for (func::CallOp call : calls.lookup(f)) {
      StringRef callee = call.getCallee();
      int s = state.lookup(callee);
      if (s == 1)
        return call;
      if (s == 0)
        if (func::CallOp found = visit(callee))
          return found;
    }
    state[f] = 2;
    return nullptr;
  };
  for (auto f : module.getOps<func::FuncOp>())
    if (!state.lookup(f.getSymName()))
      if (func::CallOp found = visit(f.getSymName()))
        return found;
  return nullptr;
}

struct LaxToLinalgPass : kiln::impl::LaxToLinalgBase<LaxToLinalgPass> {
  using LaxToLinalgBase::LaxToLinalgBase;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    if (auto module = dyn_cast<ModuleOp>(getOperation().getOperation()))
      if (func::CallOp call = findRecursion(module)) {
        call.emitError() << "recursive call of @" << call.getCallee()
                         << ": the CPU pipeline does not compile recursion "
                            "(the call would never return)";
        return signalPassFailure();
      }
    RewritePatternSet patterns(ctx);
    kiln::lowering::populateElementwisePatterns(patterns);
    kiln::lowering::populateStructurePatterns(patterns);
    kiln::lowering::populateReductionPatterns(patterns);
    // Unsigned element types (ui32) become signless; function signatures,
    // calls and returns follow. The lax patterns choose unsigned arith ops
    // from the original lax types.
    TypeConverter converter;
    converter.addConversion([](Type t) { return kiln::lowering::signless(t); });
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                   converter);
    populateCallOpTypeConversionPattern(patterns, converter);
    populateReturnOpTypeConversionPattern(patterns, converter);
    kiln::lowering::populateScanPatterns(patterns, converter);
    kiln::lowering::populateControlFlowPatterns(patterns, converter);
    kiln::lowering::populateIndexingPatterns(patterns);
    kiln::lowering::populateDecompositionPatterns(patterns);
    kiln::lowering::populateSortPatterns(patterns);
    kiln::lowering::populateHostCallbackPatterns(patterns);
    kiln::lowering::populateDotGeneralPatterns(patterns, useRuntimeGemm,
                                               runtimeGemmMinMacs);

    // Every lax op must go; types are unchanged (tensors stay tensors), so
    // no type converter is needed. An op no pattern handles is reported at
    // its location by the conversion driver and the pass fails.
    ConversionTarget target(*ctx);
    target.addIllegalDialect<kiln::lax::LaxDialect>();
    target.addLegalDialect<
        arith::ArithDialect, bufferization::BufferizationDialect,
        func::FuncDialect, linalg::LinalgDialect, math::MathDialect,
        memref::MemRefDialect, scf::SCFDialect, tensor::TensorDialect>();
    target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp op) {
      return converter.isSignatureLegal(op.getFunctionType()) &&
             converter.isLegal(&op.getBody());
    });
    target.addDynamicallyLegalOp<func::CallOp, func::ReturnOp>(
        [&](Operation *op) { return converter.isLegal(op); });
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
