//===- LaxToLinalgElementwise.cpp - elementwise lax -> linalg.generic -----===//
//
// Every elementwise lax op becomes one linalg.generic with identity indexing
// maps (all operands share the result's shape, which the lax verifiers
// guarantee) whose body is the scalar arith/math computation.
//
//===----------------------------------------------------------------------===//
#include "lowering/LaxToLinalg.h"
#include "lowering/ScalarizeElementwise.h"

#include "dialect/LaxOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <atomic>

using namespace mlir;
namespace kiln::lowering {

bool isSupportedElement(Type t) { return isa<IntegerType, FloatType>(t); }

LogicalResult checkStaticTensors(Operation *op, ConversionPatternRewriter &rewriter) {
  for (Type t :
       llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes())) {
    auto rt = dyn_cast<RankedTensorType>(t);
    if (!rt || !rt.hasStaticShape() || !isSupportedElement(rt.getElementType()))
      return rewriter.notifyMatchFailure(
          op, "needs static shapes and signless integer or float elements");
  }
  return success();
}

Value bufferReadHere(OpBuilder &b, Location loc, MemRefType type, Value tensor) {
  static std::atomic<uint64_t> nextReadPoint{0};
  auto toBuffer = bufferization::ToBufferOp::create(b, loc, type, tensor, /*read_only=*/true);
  toBuffer->setAttr("kiln.read_point", b.getI64IntegerAttr(int64_t(nextReadPoint++)));
  return toBuffer;
}

MemRefType dynamicMemRef3(Type element) {
  int64_t d = ShapedType::kDynamic;
  return MemRefType::get({d, d, d}, element,
                         StridedLayoutAttr::get(element.getContext(), d, {d, d, d}));
}

Value runtimeBuffer3(OpBuilder &b, Location loc, Value tensor) {
  auto t = cast<RankedTensorType>(tensor.getType());
  MemRefType dynamic = dynamicMemRef3(t.getElementType());
  Value m = bufferReadHere(
      b, loc, MemRefType::get(t.getShape(), t.getElementType(), dynamic.getLayout()), tensor);
  return memref::CastOp::create(b, loc, dynamic, m);
}

void declareRuntimeFunction(OpBuilder &b, ModuleOp module, StringRef name, FunctionType type) {
  if (module.lookupSymbol<func::FuncOp>(name))
    return;
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(module.getBody());
  auto fn = func::FuncOp::create(b, module.getLoc(), name, type);
  fn.setPrivate();
  fn->setAttr("llvm.emit_c_interface", b.getUnitAttr());
}

SmallVector<Value> callRuntimeOn3(OpBuilder &b, Location loc, ModuleOp module, StringRef callee,
                                  ValueRange operands, ArrayRef<RankedTensorType> results,
                                  ArrayRef<int64_t> flags) {
  SmallVector<Value> args;
  // Every operand's tensor first, then the buffers (bufferReadHere).
  for (Value v : operands)
    args.push_back(runtimeBuffer3(b, loc, v));
  SmallVector<Value> buffers;
  for (RankedTensorType r : results) {
    Value buffer =
        memref::AllocOp::create(b, loc, MemRefType::get(r.getShape(), r.getElementType()));
    buffers.push_back(buffer);
    args.push_back(memref::CastOp::create(b, loc, dynamicMemRef3(r.getElementType()), buffer));
  }
  SmallVector<Type> types = llvm::to_vector(ValueRange(args).getTypes());
  for (int64_t f : flags) {
    args.push_back(arith::ConstantIntOp::create(b, loc, b.getI64Type(), f));
    types.push_back(b.getI64Type());
  }
  declareRuntimeFunction(b, module, callee, b.getFunctionType(types, {}));
  func::CallOp::create(b, loc, callee, TypeRange{}, args);
  SmallVector<Value> tensors;
  for (auto [r, buffer] : llvm::zip(results, buffers))
    tensors.push_back(bufferization::ToTensorOp::create(b, loc, r, buffer, /*restrict=*/true,
                                                        /*writable=*/true));
  return tensors;
}

LogicalResult replaceByEmptyResults(Operation *op, ConversionPatternRewriter &rewriter) {
  if (op->getNumResults() == 0 || op->getNumRegions() != 0 || !isPure(op))
    return failure();
  SmallVector<Value> empties;
  for (Type t : op->getResultTypes()) {
    auto rt = dyn_cast<RankedTensorType>(t);
    if (!rt || !rt.hasStaticShape() || rt.getNumElements() != 0)
      return failure();
    empties.push_back(emptyTensor(rewriter, op->getLoc(), signlessTensor(rt)));
  }
  // An empty tensor has no element to compute: nothing of the op is lost.
  rewriter.replaceOp(op, empties);
  return success();
}

bool isUnsignedElement(Type t) {
  auto i = dyn_cast<IntegerType>(getElementTypeOrSelf(t));
  return i && i.isUnsigned();
}

Type signless(Type t) {
  if (auto rt = dyn_cast<RankedTensorType>(t))
    return rt.clone(signless(rt.getElementType()));
  if (auto i = dyn_cast<IntegerType>(t); i && !i.isSignless())
    return IntegerType::get(t.getContext(), i.getWidth());
  return t;
}

RankedTensorType signlessTensor(Type t) {
  return cast<RankedTensorType>(signless(t));
}

Value emptyTensor(OpBuilder &b, Location loc, RankedTensorType type) {
  return tensor::EmptyOp::create(b, loc, type.getShape(),
                                 type.getElementType());
}

Value filledTensor(OpBuilder &b, Location loc, RankedTensorType type,
                   Value value) {
  Value empty = emptyTensor(b, loc, type);
  return linalg::FillOp::create(b, loc, value, empty).getResult(0);
}

Value parallelGeneric(OpBuilder &b, Location loc, RankedTensorType type,
                      ValueRange inputs, ArrayRef<AffineMap> inputMaps,
                      function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  unsigned rank = type.getRank();
  SmallVector<AffineMap> maps(inputMaps);
  maps.push_back(b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{type}, inputs, ValueRange{emptyTensor(b, loc, type)}, maps, iters,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        // The last argument is the output's element, which no body reads.
        linalg::YieldOp::create(nb, nloc, body(nb, nloc, args.drop_back()));
      });
  return generic.getResult(0);
}

namespace {

/// Builds an elementwise linalg.generic over `inputs` (all of `resultType`'s
/// shape, or rank 0 for a scalar broadcast operand) yielding `body`'s value.
Value buildElementwise(
    OpBuilder &b, Location loc, RankedTensorType resultType, ValueRange inputs,
    function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  unsigned rank = resultType.getRank();
  MLIRContext *ctx = b.getContext();
  AffineMap identity = b.getMultiDimIdentityMap(rank);
  SmallVector<AffineMap> maps;
  for (Value in : inputs) {
    // A rank-0 operand (select_n's scalar predicate) reads the same element
    // at every point.
    if (cast<RankedTensorType>(in.getType()).getRank() == 0 && rank != 0)
      maps.push_back(AffineMap::get(rank, 0, {}, ctx));
    else
      maps.push_back(identity);
  }
  return parallelGeneric(b, loc, resultType, inputs, maps, body);
}

/// Every elementwise lax op: one linalg.generic whose body is the op's
/// scalar computation (ScalarizeElementwise.cpp, shared with the parallel
/// scan loops).
struct ElementwisePattern : ConversionPattern {
  ElementwisePattern(MLIRContext *ctx)
      : ConversionPattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}
  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isScalarizable(op))
      return failure();
    if (failed(checkStaticTensors(op, rewriter)))
      return failure();
    auto type = signlessTensor(op->getResult(0).getType());
    // A conversion between types that are the same once signless (i32 <->
    // ui32) keeps the bits.
    if (isa<lax::ConvertElementTypeOp, lax::BitcastConvertTypeOp>(op) &&
        signless(op->getOperand(0).getType()) == type) {
      rewriter.replaceOp(op, operands[0]);
      return success();
    }
    if (auto select = dyn_cast<lax::SelectNOp>(op)) {
      auto whichType = cast<RankedTensorType>(select.getWhich().getType());
      if (whichType.getRank() != 0 && whichType.getShape() != type.getShape())
        return rewriter.notifyMatchFailure(op, "which must be scalar or match the cases");
    }
    Value r = buildElementwise(rewriter, op->getLoc(), type, operands,
                               [&](OpBuilder &b, Location, ValueRange args) {
                                 return scalarizeElementwise(b, op, args);
                               });
    rewriter.replaceOp(op, r);
    return success();
  }
};

} // namespace

void populateElementwisePatterns(RewritePatternSet &patterns) {
  patterns.add<ElementwisePattern>(patterns.getContext());
}

} // namespace kiln::lowering
