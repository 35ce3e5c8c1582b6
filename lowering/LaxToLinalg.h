//===- LaxToLinalg.h - lax -> linalg pattern sets ---------------*- C++ -*-===//
//
// Internal to rewrites/lowering: the pattern populators of the lax-to-linalg
// conversion, one per op family, and the helpers they share.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LOWERING_LAXTOLINALG_H
#define KILN_LOWERING_LAXTOLINALG_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

namespace kiln::lowering {

void populateElementwisePatterns(mlir::RewritePatternSet &patterns);
void populateStructurePatterns(mlir::RewritePatternSet &patterns);
void populateReductionPatterns(mlir::RewritePatternSet &patterns);
/// lax.while and lax.cond to scf (LaxToScfControlFlow.cpp).
void populateControlFlowPatterns(mlir::RewritePatternSet &patterns,
                                 mlir::TypeConverter &converter);
/// lax.gather and lax.scatter (LaxToLinalgIndexing.cpp).
void populateIndexingPatterns(mlir::RewritePatternSet &patterns);
/// `converter` makes unsigned tensor types signless (the scan body's
/// arguments are converted with it).
void populateScanPatterns(mlir::RewritePatternSet &patterns,
                          const mlir::TypeConverter &converter);
/// dot_general: the linalg.generic fallback (benefit 1) and, with
/// `useRuntimeGemm`, the runtime-GEMM call (benefit 2) for contractions of at
/// least `minMacs` multiply-adds.
void populateDotGeneralPatterns(mlir::RewritePatternSet &patterns,
                                bool useRuntimeGemm, int64_t minMacs);

/// lax.cholesky and lax.triangular_solve as calls of the CPU runtime's
/// loops (f32, f64).
void populateDecompositionPatterns(mlir::RewritePatternSet &patterns);
/// lax.sort and lax.top_k with integer keys (what kiln-expand-sort leaves)
/// as calls of the CPU runtime's sort (LaxToLinalgSort.cpp).
void populateSortPatterns(mlir::RewritePatternSet &patterns);
/// lax.host_callback as a call of the CPU runtime (HostCallbackToRuntime.cpp).
void populateHostCallbackPatterns(mlir::RewritePatternSet &patterns);

/// The linalg.generic fallback for every dot_general (benefit 1).
void populateDotGeneralGenericPattern(mlir::RewritePatternSet &patterns);

/// `tensor.empty` of `type` (static shapes only).
mlir::Value emptyTensor(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::RankedTensorType type);
/// linalg.fill of a fresh tensor of `type` with `value`.
mlir::Value filledTensor(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::RankedTensorType type, mlir::Value value);
/// A linalg.generic over all-parallel loops writing a fresh tensor of `type`
/// (at the identity map): `inputs` are read through `inputMaps`, and `body`
/// computes the result element from the inputs' elements.
mlir::Value parallelGeneric(
    mlir::OpBuilder &b, mlir::Location loc, mlir::RankedTensorType type,
    mlir::ValueRange inputs, llvm::ArrayRef<mlir::AffineMap> inputMaps,
    llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location, mlir::ValueRange)>
        body);
/// Reshape `value` to `type` (same element count, row-major) with
/// collapse_shape/expand_shape.
mlir::Value reshapeTensor(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value value, mlir::RankedTensorType type);
/// The buffer of `tensor` as `type`, for reads by code emitted right after
/// it (a runtime call, a loop over memrefs), before bufferization.
///
/// One-shot bufferization counts the tensor's read at the to_buffer, not at
/// the reads of the buffer; so the to_buffer must stay where it is built,
/// after every write the reads must see. to_buffer is Pure: CSE merged a
/// GEMM's to_buffer of a tensor into an earlier one of the same tensor,
/// before a tanh whose result then shared that tensor's buffer (their two
/// tensor.empty were one value after CSE) and overwrote it before the call
/// read it (`h = x + x @ W1; h.T @ tanh(h @ W2)`: 4089 of 4096 elements
/// wrong; tests/differential/regressions/gemm-operand-read-point.mlir). A
/// unique `kiln.read_point` attribute keeps each to_buffer distinct, so
/// nothing merges it with another and its read stays here.
mlir::Value bufferReadHere(mlir::OpBuilder &b, mlir::Location loc, mlir::MemRefType type,
                           mlir::Value tensor);

/// A rank-3 memref of `element` with dynamic sizes, strides and offset: the
/// type of the runtime's `KilnMemRef3` arguments.
mlir::MemRefType dynamicMemRef3(mlir::Type element);
/// bufferReadHere of a rank-3 tensor, as a dynamicMemRef3.
mlir::Value runtimeBuffer3(mlir::OpBuilder &b, mlir::Location loc, mlir::Value tensor);
/// `name` declared private in `module` with `type`, once, with the C
/// interface (memref descriptors passed by pointer), so that the runtime
/// needs no MLIR headers.
void declareRuntimeFunction(mlir::OpBuilder &b, mlir::ModuleOp module, llvm::StringRef name,
                            mlir::FunctionType type);

/// Calls the runtime function `callee` (declared in `module` on first use)
/// with the rank-3 tensors `operands` (runtimeBuffer3 each), a fresh buffer
/// per type of `results` (rank 3) that the call writes, and `flags` as i64;
/// returns those buffers as tensors.
llvm::SmallVector<mlir::Value> callRuntimeOn3(mlir::OpBuilder &b, mlir::Location loc,
                                              mlir::ModuleOp module, llvm::StringRef callee,
                                              mlir::ValueRange operands,
                                              llvm::ArrayRef<mlir::RankedTensorType> results,
                                              llvm::ArrayRef<int64_t> flags);

/// Whether the lowering handles element type `t` (ints, floats).
bool isSupportedElement(mlir::Type t);
/// Succeeds when every operand and result of `op` is a tensor of static
/// shape with supported elements; otherwise a match failure saying so.
mlir::LogicalResult checkStaticTensors(mlir::Operation *op,
                                       mlir::ConversionPatternRewriter &rewriter);
/// Whether `t` (a tensor or scalar) has an unsigned integer element type.
bool isUnsignedElement(mlir::Type t);
/// `t` (a tensor or scalar type) with unsigned integers made signless: the
/// type the lowered code uses (arith is signless; the patterns pick unsigned
/// operations by looking at the lax op's original types).
mlir::Type signless(mlir::Type t);
/// signless() of a ranked tensor type.
mlir::RankedTensorType signlessTensor(mlir::Type t);

/// Replaces a pure, region-free `op` whose results all have no elements by
/// tensor.empty (a slice that ends at an axis' end, `x[:, 2:]` of a 2-wide x,
/// has offset == size, which tensor.extract_slice's verifier rejects even
/// for a size of 0). Fails (changing nothing) otherwise.
mlir::LogicalResult replaceByEmptyResults(mlir::Operation *op,
                                          mlir::ConversionPatternRewriter &rewriter);

/// A conversion pattern for a lax op whose tensors must have static shapes:
/// matchAndRewrite checks them (checkStaticTensors), lowers an op with empty
/// results to tensor.empty (replaceByEmptyResults), then calls
/// rewriteStatic.
template <typename OpTy>
struct StaticTensorPattern : mlir::OpConversionPattern<OpTy> {
  using mlir::OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  mlir::LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  mlir::ConversionPatternRewriter &rewriter) const final {
    if (mlir::failed(checkStaticTensors(op, rewriter)))
      return mlir::failure();
    if (mlir::succeeded(replaceByEmptyResults(op, rewriter)))
      return mlir::success();
    return rewriteStatic(op, adaptor, rewriter);
  }

  virtual mlir::LogicalResult
  rewriteStatic(OpTy op, OpAdaptor adaptor,
                mlir::ConversionPatternRewriter &rewriter) const = 0;
};

} // namespace kiln::lowering

#endif // KILN_LOWERING_LAXTOLINALG_H
