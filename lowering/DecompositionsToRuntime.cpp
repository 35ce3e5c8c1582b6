//===- DecompositionsToRuntime.cpp - matrix decompositions -> runtime ----===//
//
// lax.cholesky, lax.lu, lax.triangular_solve, lax.geqrf,
// lax.householder_product, lax.svd, lax.eigh and lax.eig become calls of the CPU
// runtime's loops (runtime/cpu/KilnLinalg.cpp: kiln_rt_{s,d}cholesky,
// kiln_rt_{s,d}lu, kiln_rt_{s,d}trsm, ...) on [batch, m, n] views of their operands: the batch
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

/// `type` with its batch dimensions collapsed: [B, rows, cols] for
/// matrices, [B, 1, size] for vectors (`matrixRank` 1: pivots).
RankedTensorType batched3(RankedTensorType type, int64_t matrixRank = 2) {
  int64_t rank = type.getRank(), batch = 1;
  for (int64_t d : type.getShape().drop_back(matrixRank))
    batch *= d;
  int64_t rows = matrixRank == 2 ? type.getDimSize(rank - 2) : 1;
  return RankedTensorType::get({batch, rows, type.getDimSize(rank - 1)}, type.getElementType());
}

/// A result of a runtime call: its type and whether it is a batch of
/// matrices (2) or of vectors (1).
struct RuntimeResult {
  RankedTensorType type;
  int64_t matrixRank = 2;
};

/// Calls `name` (runtime prefix s/d chosen by `elt`) on the [B, ., .] views
/// of `operands` and of a fresh buffer per result, followed by `flags` as
/// i64; the buffers, reshaped, replace `op`'s results.
LogicalResult callRuntime(Operation *op, ConversionPatternRewriter &rewriter, StringRef name,
                          Type elt, ValueRange operands, ArrayRef<RuntimeResult> results,
                          ArrayRef<bool> flags, ArrayRef<int64_t> operandMatrixRanks = {}) {
  if (!elt.isF32() && !elt.isF64())
    return rewriter.notifyMatchFailure(op, "the CPU runtime has f32 and f64 only");
  Location loc = op->getLoc();
  SmallVector<Value> operands3;
  for (auto [i, v] : llvm::enumerate(operands)) {
    int64_t matrixRank = i < operandMatrixRanks.size() ? operandMatrixRanks[i] : 2;
    operands3.push_back(reshapeTensor(rewriter, loc, v,
                                      batched3(cast<RankedTensorType>(v.getType()), matrixRank)));
  }
  SmallVector<RankedTensorType> results3;
  for (const RuntimeResult &r : results)
    results3.push_back(batched3(r.type, r.matrixRank));
  SmallVector<int64_t> flags64(flags.begin(), flags.end());
  std::string callee = ("kiln_rt_" + Twine(elt.isF32() ? "s" : "d") + name).str();
  SmallVector<Value> tensors = callRuntimeOn3(
      rewriter, loc, op->getParentOfType<ModuleOp>(), callee, operands3, results3, flags64);
  SmallVector<Value> replacements;
  for (auto [r, t] : llvm::zip(results, tensors))
    replacements.push_back(reshapeTensor(rewriter, loc, t, r.type));
  rewriter.replaceOp(op, replacements);
  return success();
}

struct CholeskyPattern : StaticTensorPattern<lax::CholeskyOp> {
  using StaticTensorPattern::StaticTensorPattern;
  LogicalResult rewriteStatic(lax::CholeskyOp op, OpAdaptor adaptor,
                              ConversionPatternRewriter &rewriter) const override {
    return callRuntime(op, rewriter, "cholesky", op.getType().getElementType(),
                       adaptor.getOperand(), {{op.getType()}}, {});
  }
};

struct TriangularSolvePattern : StaticTensorPattern<lax::TriangularSolveOp> {
  using StaticTensorPattern::StaticTensorPattern;
  LogicalResult rewriteStatic(lax::TriangularSolveOp op, OpAdaptor adaptor,
                              ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    return callRuntime(op, rewriter, "trsm", type.getElementType(),
                       {adaptor.getA(), adaptor.getB()}, {{type}},
                       {op.getLeftSide(), op.getLower(), op.getTransposeA(),
                        op.getUnitDiagonal()});
  }
};

struct LuPattern : StaticTensorPattern<lax::LuOp> {
  using StaticTensorPattern::StaticTensorPattern;
  LogicalResult rewriteStatic(lax::LuOp op, OpAdaptor adaptor,
                              ConversionPatternRewriter &rewriter) const override {
    auto lu = cast<RankedTensorType>(op.getLu().getType());
    return callRuntime(op, rewriter, "lu", lu.getElementType(), adaptor.getOperand(),
                       {{lu},
                        {cast<RankedTensorType>(op.getPivots().getType()), 1},
                        {cast<RankedTensorType>(op.getPermutation().getType()), 1}},
                       {});
  }
};

RankedTensorType tensorType(Value v) { return cast<RankedTensorType>(v.getType()); }

struct GeqrfPattern : StaticTensorPattern<lax::GeqrfOp> {
  using StaticTensorPattern::StaticTensorPattern;
  LogicalResult rewriteStatic(lax::GeqrfOp op, OpAdaptor adaptor,
                              ConversionPatternRewriter &rewriter) const override {
    RankedTensorType packed = tensorType(op.getPacked());
    return callRuntime(op, rewriter, "geqrf", packed.getElementType(), adaptor.getOperand(),
                       {{packed}, {tensorType(op.getTaus()), 1}}, {});
  }
};

struct HouseholderProductPattern : StaticTensorPattern<lax::HouseholderProductOp> {
  using StaticTensorPattern::StaticTensorPattern;
  LogicalResult rewriteStatic(lax::HouseholderProductOp op, OpAdaptor adaptor,
                              ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = tensorType(op.getResult());
    return callRuntime(op, rewriter, "householder_product", type.getElementType(),
                       {adaptor.getOperand(), adaptor.getTaus()}, {{type}}, {}, {2, 1});
  }
};

struct SvdPattern : StaticTensorPattern<lax::SvdOp> {
  using StaticTensorPattern::StaticTensorPattern;
  LogicalResult rewriteStatic(lax::SvdOp op, OpAdaptor adaptor,
                              ConversionPatternRewriter &rewriter) const override {
    SmallVector<RuntimeResult> results{{tensorType(op.getResults()[0]), 1}};
    if (op.getComputeUv()) {
      results.push_back({tensorType(op.getResults()[1])});
      results.push_back({tensorType(op.getResults()[2])});
      return callRuntime(op, rewriter, "svd", results[0].type.getElementType(),
                         adaptor.getOperand(), results, {op.getFullMatrices()});
    }
    return callRuntime(op, rewriter, "svd_values", results[0].type.getElementType(),
                       adaptor.getOperand(), results, {});
  }
};

struct EighPattern : StaticTensorPattern<lax::EighOp> {
  using StaticTensorPattern::StaticTensorPattern;
  LogicalResult rewriteStatic(lax::EighOp op, OpAdaptor adaptor,
                              ConversionPatternRewriter &rewriter) const override {
    RankedTensorType vectors = tensorType(op.getVectors());
    return callRuntime(op, rewriter, "eigh", vectors.getElementType(), adaptor.getOperand(),
                       {{vectors}, {tensorType(op.getValues()), 1}}, {op.getLower()});
  }
};

struct EigPattern : StaticTensorPattern<lax::EigOp> {
  using StaticTensorPattern::StaticTensorPattern;
  LogicalResult rewriteStatic(lax::EigOp op, OpAdaptor adaptor,
                              ConversionPatternRewriter &rewriter) const override {
    SmallVector<RuntimeResult> results;
    for (auto [i, r] : llvm::enumerate(op.getResults()))
      results.push_back({tensorType(r), i < 2 ? 1 : 2});
    return callRuntime(op, rewriter, op.getComputeVectors() ? "eig" : "eig_values",
                       results[0].type.getElementType(), adaptor.getOperand(), results, {});
  }
};

} // namespace

void populateDecompositionPatterns(RewritePatternSet &patterns) {
  patterns.add<CholeskyPattern, LuPattern, TriangularSolvePattern, GeqrfPattern,
               HouseholderProductPattern, SvdPattern, EighPattern, EigPattern>(
      patterns.getContext());
}

} // namespace kiln::lowering
