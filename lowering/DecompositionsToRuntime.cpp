//===- DecompositionsToRuntime.cpp - cholesky, triangular_solve -> runtime ===//
//
// lax.cholesky and lax.triangular_solve become calls of the CPU runtime's
// loops (runtime/cpu/KilnLinalg.cpp: kiln_rt_{s,d}cholesky,
// kiln_rt_{s,d}trsm) on [batch, m, m] views of their operands: the batch
// dimensions collapse into one, and the call writes a fresh buffer, which
// becomes the result tensor. f32 and f64 (JAX's CPU lowering, LAPACK, has
// no f16/bf16 either); the GPU pipeline has no such runtime functions, so a
// program with them compiles for the CPU only.
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

/// `type` with its batch dimensions collapsed: [B, rows, cols].
RankedTensorType batched3(RankedTensorType type) {
  int64_t rank = type.getRank(), batch = 1;
  for (int64_t d : type.getShape().drop_back(2))
    batch *= d;
  return RankedTensorType::get({batch, type.getDimSize(rank - 2), type.getDimSize(rank - 1)},
                               type.getElementType());
}

/// Calls `name` (runtime prefix s/d chosen by the element type) on the
/// [B, ., .] views of `operands` and a fresh buffer of `resultType`'s,
/// followed by `flags` as i64; the buffer, reshaped, replaces `op`.
LogicalResult callRuntime(Operation *op, ConversionPatternRewriter &rewriter, StringRef name,
                          ValueRange operands, RankedTensorType resultType,
                          ArrayRef<bool> flags) {
  Type elt = resultType.getElementType();
  if (!elt.isF32() && !elt.isF64())
    return rewriter.notifyMatchFailure(op, "the CPU runtime has f32 and f64 only");
  Location loc = op->getLoc();
  SmallVector<Value> args;
  for (Value v : operands)
    args.push_back(reshapeTensor(rewriter, loc, v, batched3(cast<RankedTensorType>(v.getType()))));
  // Every operand's tensor first, then the buffers (bufferReadHere).
  for (Value &v : args)
    v = runtimeBuffer3(rewriter, loc, v);
  RankedTensorType out3 = batched3(resultType);
  Value out = memref::AllocOp::create(rewriter, loc, MemRefType::get(out3.getShape(), elt));
  auto dynamic = cast<MemRefType>(args.front().getType());
  args.push_back(memref::CastOp::create(rewriter, loc, dynamic, out));
  SmallVector<Type> types(args.size(), dynamic);
  for (bool f : flags) {
    args.push_back(arith::ConstantIntOp::create(rewriter, loc, rewriter.getI64Type(), f));
    types.push_back(rewriter.getI64Type());
  }
  std::string callee = ("kiln_rt_" + Twine(elt.isF32() ? "s" : "d") + name).str();
  declareRuntimeFunction(rewriter, op->getParentOfType<ModuleOp>(), callee,
                         rewriter.getFunctionType(types, {}));
  func::CallOp::create(rewriter, loc, callee, TypeRange{}, args);
  Value result = bufferization::ToTensorOp::create(rewriter, loc, out3, out, /*restrict=*/true,
                                                   /*writable=*/true);
  rewriter.replaceOp(op, reshapeTensor(rewriter, loc, result, resultType));
  return success();
}

struct CholeskyPattern : StaticTensorPattern<lax::CholeskyOp> {
  using StaticTensorPattern::StaticTensorPattern;
  LogicalResult rewriteStatic(lax::CholeskyOp op, OpAdaptor adaptor,
                              ConversionPatternRewriter &rewriter) const override {
    return callRuntime(op, rewriter, "cholesky", adaptor.getOperand(), op.getType(), {});
  }
};

struct TriangularSolvePattern : StaticTensorPattern<lax::TriangularSolveOp> {
  using StaticTensorPattern::StaticTensorPattern;
  LogicalResult rewriteStatic(lax::TriangularSolveOp op, OpAdaptor adaptor,
                              ConversionPatternRewriter &rewriter) const override {
    return callRuntime(op, rewriter, "trsm", {adaptor.getA(), adaptor.getB()},
                       cast<RankedTensorType>(op.getType()),
                       {op.getLeftSide(), op.getLower(), op.getTransposeA(),
                        op.getUnitDiagonal()});
  }
};

} // namespace

void populateDecompositionPatterns(RewritePatternSet &patterns) {
  patterns.add<CholeskyPattern, TriangularSolvePattern>(patterns.getContext());
}

} // namespace kiln::lowering
