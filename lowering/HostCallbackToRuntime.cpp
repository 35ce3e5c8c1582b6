//===- HostCallbackToRuntime.cpp - lax.host_callback -> runtime call ------===//
//
// lax.host_callback becomes a call of the CPU runtime's
// kiln_rt_host_callback(index, pointers) (runtime/cpu/KilnGuardedCall.cpp),
// which runs the handler the caller installed. `pointers` is a stack table
// of addresses: each operand's data, dense and row-major (a
// strided view is copied by the identity-layout to_buffer), then a fresh
// buffer per result, which the callback fills and which becomes the result
// tensor. The call is an opaque func.call, so nothing moves it, removes it
// or merges it with another; the results' buffers escape to it through
// their addresses, so LLVM assumes it writes them.
//
//===----------------------------------------------------------------------===//
#include "lowering/LaxToLinalg.h"

#include "dialect/LaxOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
namespace kiln::lowering {

namespace {

struct HostCallbackPattern : OpConversionPattern<lax::HostCallbackOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(lax::HostCallbackOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    // Not replaceByEmptyResults: a callback without results (a print) or
    // with empty ones still runs.
    if (failed(checkStaticTensors(op, rewriter)))
      return failure();
    Location loc = op.getLoc();
    auto dense = [](Type t) {
      auto tensor = cast<RankedTensorType>(t);
      return MemRefType::get(tensor.getShape(), signless(tensor.getElementType()));
    };
    SmallVector<Value> addresses;
    for (Value v : adaptor.getOperands()) {
      Value buffer = bufferReadHere(rewriter, loc, dense(v.getType()), v);
      addresses.push_back(memref::ExtractAlignedPointerAsIndexOp::create(rewriter, loc, buffer));
    }
    SmallVector<Value> results;
    for (Type t : op.getResultTypes()) {
      Value buffer = memref::AllocOp::create(rewriter, loc, dense(t));
      addresses.push_back(memref::ExtractAlignedPointerAsIndexOp::create(rewriter, loc, buffer));
      results.push_back(buffer);
    }
    // The table lives on the stack for the call only: an alloca scope
    // (stacksave/stackrestore) keeps a callback in a loop from growing it.
    int64_t n = addresses.size();
    auto scope = memref::AllocaScopeOp::create(rewriter, loc, TypeRange{});
    {
      OpBuilder::InsertionGuard guard(rewriter);
      Block *body = rewriter.createBlock(&scope.getBodyRegion());
      rewriter.setInsertionPointToStart(body);
      Value table = memref::AllocaOp::create(
          rewriter, loc, MemRefType::get({n}, rewriter.getIndexType()));
      for (auto [i, address] : llvm::enumerate(addresses))
        memref::StoreOp::create(rewriter, loc, address, table,
                                ValueRange{arith::ConstantIndexOp::create(rewriter, loc, i)});
      auto dynamic = MemRefType::get({ShapedType::kDynamic}, rewriter.getIndexType());
      Value tableArg = memref::CastOp::create(rewriter, loc, dynamic, table);
      Value index = arith::ConstantIntOp::create(rewriter, loc, rewriter.getI64Type(),
                                                 op.getIndex());
      StringRef callee = "kiln_rt_host_callback";
      declareRuntimeFunction(rewriter, op->getParentOfType<ModuleOp>(), callee,
                             rewriter.getFunctionType({rewriter.getI64Type(), dynamic}, {}));
      func::CallOp::create(rewriter, loc, callee, TypeRange{}, ValueRange{index, tableArg});
      memref::AllocaScopeReturnOp::create(rewriter, loc, ValueRange{});
    }
    SmallVector<Value> replacements;
    for (auto [buffer, t] : llvm::zip(results, op.getResultTypes()))
      replacements.push_back(bufferization::ToTensorOp::create(
          rewriter, loc, signless(t), buffer, /*restrict=*/true, /*writable=*/true));
    rewriter.replaceOp(op, replacements);
    return success();
  }
};

} // namespace

void populateHostCallbackPatterns(RewritePatternSet &patterns) {
  patterns.add<HostCallbackPattern>(patterns.getContext());
}

} // namespace kiln::lowering
