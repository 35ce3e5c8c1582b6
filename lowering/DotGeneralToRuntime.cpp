//===- DotGeneralToRuntime.cpp - GEMM-shaped dot_general -> runtime call
//---===//
//
// A dot_general of f64, or of f32/f16/bf16 (16-bit operands widened to f32,
// a 16-bit result rounded from the f32 sums), is viewed as a
// batched GEMM C[B,M,N] = A[B,M,K] * B[B,K,N]: lhs dims group into (batch,
// free, contracting), rhs dims into (batch, contracting, free), the result is
// (batch, lhs free, rhs free) - JAX's result order, i.e. row-major [B,M,N].
// A group collapses to one dimension when its dims are adjacent and in order
// in the operand; an operand stored as [batch, contracting, free] (lhs) or
// [batch, free, contracting] (rhs) is passed as is with a transpose flag, any
// other order is materialised with one linalg.transpose. The runtime
// (runtime/cpu, Eigen) receives memref descriptors and honours their strides.
//
//===----------------------------------------------------------------------===//
#include "lowering/LaxToLinalg.h"
#include "lowering/CpuCostModel.h"
#include "lowering/Passes.h"

#include "dialect/LaxOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
namespace kiln::lowering {

namespace {

/// `first`/`second` are the non-batch groups in the order the GEMM wants.
/// Returns whether the operand is stored transposed (second group before
/// first), and sets `needsTranspose` when neither order is contiguous.
bool classify(RankedTensorType t, ArrayRef<int64_t> batch,
              ArrayRef<int64_t> first, ArrayRef<int64_t> second,
              bool &needsTranspose) {
  SmallVector<int64_t> plain(batch), swapped(batch);
  plain.append(first.begin(), first.end());
  plain.append(second.begin(), second.end());
  swapped.append(second.begin(), second.end());
  swapped.append(first.begin(), first.end());
  auto identity = [&](ArrayRef<int64_t> o) {
    for (auto [i, d] : llvm::enumerate(o))
      if ((int64_t)i != d)
        return false;
    return true;
  };
  needsTranspose = false;
  if (identity(plain))
    return false;
  if (identity(swapped))
    return true;
  needsTranspose = true;
  return false;
}

int64_t product(RankedTensorType t, ArrayRef<int64_t> dims) {
  int64_t p = 1;
  for (int64_t d : dims)
    p *= t.getDimSize(d);
  return p;
}

/// Prepares one operand: transposed to `plain` order when needed and
/// reshaped to 3-D [B, X, Y] (X, Y in storage order).
Value gemmOperand(ConversionPatternRewriter &rewriter, Location loc, Value v,
                  ArrayRef<int64_t> batch, ArrayRef<int64_t> first,
                  ArrayRef<int64_t> second, bool &trans) {
  auto t = cast<RankedTensorType>(v.getType());
  bool needsTranspose;
  trans = classify(t, batch, first, second, needsTranspose);
  int64_t b = product(t, batch), f = product(t, first), s = product(t, second);
  if (needsTranspose) {
    SmallVector<int64_t> perm(batch);
    perm.append(first.begin(), first.end());
    perm.append(second.begin(), second.end());
    SmallVector<int64_t> shape;
    for (int64_t d : perm)
      shape.push_back(t.getDimSize(d));
    auto tt = RankedTensorType::get(shape, t.getElementType());
    v = linalg::TransposeOp::create(rewriter, loc, v,
                                    emptyTensor(rewriter, loc, tt), perm)
            .getResult()[0];
  }
  SmallVector<int64_t> shape3 =
      trans ? SmallVector<int64_t>{b, s, f} : SmallVector<int64_t>{b, f, s};
  auto t3 = RankedTensorType::get(shape3, t.getElementType());
  return reshapeTensor(rewriter, loc, v, t3);
}

/// `v` with its float elements converted to `elt`: extended when `elt` is
/// wider, rounded when narrower (unchanged when they are `elt`).
Value withFloatElements(OpBuilder &b, Location loc, Value v, Type elt) {
  auto type = cast<RankedTensorType>(v.getType());
  Type from = type.getElementType();
  if (from == elt)
    return v;
  bool wider = elt.getIntOrFloatBitWidth() > from.getIntOrFloatBitWidth();
  return parallelGeneric(b, loc, type.clone(elt), v, {b.getMultiDimIdentityMap(type.getRank())},
                         [&](OpBuilder &b, Location l, ValueRange args) -> Value {
                           if (wider)
                             return arith::ExtFOp::create(b, l, elt, args[0]);
                           return arith::TruncFOp::create(b, l, elt, args[0]);
                         });
}

struct DotGeneralRuntimePattern : OpConversionPattern<lax::DotGeneralOp> {
  DotGeneralRuntimePattern(MLIRContext *ctx, int64_t minMacs)
      : OpConversionPattern(ctx, /*benefit=*/2), minMacs(minMacs) {}
  int64_t minMacs;
  LogicalResult
  matchAndRewrite(lax::DotGeneralOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = signlessTensor(op.getType());
    auto lt = cast<RankedTensorType>(op.getLhs().getType());
    auto rt = cast<RankedTensorType>(op.getRhs().getType());
    // The GEMM's element type: f64 throughout, or f32 for operands and
    // results of f32, f16 and bf16. A 16-bit operand widens to f32 exactly,
    // and the product of two such operands (at most 11 + 11 significand
    // bits) is exact in f32, so the f32 GEMM computes what the generic
    // lowering does (products widened, sums in f32, a 16-bit result
    // rounded once: XLA's accumulation), in another order of the sums,
    // which the contraction's reassoc allows.
    auto isGemm32 = [](Type t) { return t.isF32() || t.isF16() || t.isBF16(); };
    Type resultElt = type.getElementType();
    Type elt = resultElt.isF64() ? resultElt : Float32Type::get(op.getContext());
    bool all64 = resultElt.isF64() && lt.getElementType().isF64() && rt.getElementType().isF64();
    bool all32 = isGemm32(resultElt) && isGemm32(lt.getElementType()) &&
                 isGemm32(rt.getElementType());
    if (!all64 && !all32)
      return rewriter.notifyMatchFailure(
          op, "runtime GEMM needs f64 throughout, or f32/f16/bf16 throughout");
    if (!type.hasStaticShape() || !lt.hasStaticShape() || !rt.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    if (op.getLhsContractingDimensions().empty())
      return rewriter.notifyMatchFailure(op, "outer product: no contraction");
    if (type.getNumElements() == 0 || lt.getNumElements() == 0 ||
        rt.getNumElements() == 0)
      return rewriter.notifyMatchFailure(op, "empty operand");
    // Small contractions stay in linalg, where they fuse, vectorize and
    // need no call: below `minMacs` multiply-adds
    // (CpuCostModel::runtimeGemmMinMacs by default) the call and Eigen's
    // dispatch cost more than the arithmetic.
    int64_t macs = type.getNumElements();
    for (int64_t d : op.getLhsContractingDimensions())
      macs *= lt.getDimSize(d);
    if (macs < minMacs)
      return rewriter.notifyMatchFailure(op, "too small for a runtime call");

    Location loc = op.getLoc();
    auto freeDims = [](RankedTensorType t, ArrayRef<int64_t> b,
                       ArrayRef<int64_t> c) {
      SmallVector<int64_t> f;
      for (int64_t d = 0; d < t.getRank(); ++d)
        if (!llvm::is_contained(b, d) && !llvm::is_contained(c, d))
          f.push_back(d);
      return f;
    };
    ArrayRef<int64_t> lb = op.getLhsBatchDimensions(),
                      rb = op.getRhsBatchDimensions();
    ArrayRef<int64_t> lc = op.getLhsContractingDimensions(),
                      rc = op.getRhsContractingDimensions();
    SmallVector<int64_t> lf = freeDims(lt, lb, lc), rf = freeDims(rt, rb, rc);
    int64_t B = product(lt, lb), M = product(lt, lf), N = product(rt, rf);

    bool transA, transB;
    Value lhs = withFloatElements(rewriter, loc, adaptor.getLhs(), elt);
    Value rhs = withFloatElements(rewriter, loc, adaptor.getRhs(), elt);
    Value lhs3 = gemmOperand(rewriter, loc, lhs, lb, lf, lc, transA);
    Value rhs3 = gemmOperand(rewriter, loc, rhs, rb, rc, rf, transB);
    // Both operands' tensors first, then their buffers, right before the
    // call (callRuntimeOn3). One-shot bufferization counts a tensor's read
    // at its to_buffer, not at the call that reads the buffer: with A's
    // buffer taken before B's transpose, the two transposes' tensor.empty
    // (one value after CSE when their shapes agree) became one buffer, B's
    // transpose overwrote A's, and the call multiplied B by itself (a
    // dot_general contracting [0, 2] x [2, 0]: 3995 for 187.9;
    // tests/lowering/runtime-gemm-operands.mlir). With both to_buffer ops
    // after both writes, sharing is a read-after-write conflict and the
    // analysis keeps the buffers apart.
    StringRef name = elt.isF32() ? kRuntimeSgemm : kRuntimeDgemm;
    Value result = callRuntimeOn3(rewriter, loc, op->getParentOfType<ModuleOp>(), name,
                                  {lhs3, rhs3}, {RankedTensorType::get({B, M, N}, elt)},
                                  {transA, transB})[0];
    // A 16-bit result: the f32 sums rounded once.
    result = reshapeTensor(rewriter, loc, result, type.clone(elt));
    rewriter.replaceOp(op, withFloatElements(rewriter, loc, result, resultElt));
    return success();
  }
};

} // namespace

void populateDotGeneralPatterns(RewritePatternSet &patterns,
                                bool useRuntimeGemm, int64_t minMacs) {
  populateDotGeneralGenericPattern(patterns);
  if (useRuntimeGemm)
    patterns.add<DotGeneralRuntimePattern>(patterns.getContext(), minMacs);
}

} // namespace kiln::lowering
