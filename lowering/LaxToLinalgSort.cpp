//===- LaxToLinalgSort.cpp - lax.sort and lax.top_k -> runtime sort -------===//
//
// What kiln-expand-sort leaves: sorts and top_ks along long axes, on integer
// keys (floats there became integers ordered as the floats). Each key
// becomes a signed i32 (up to 32 bits) or i64 in the same order (signed
// ints sign-extend, unsigned and booleans zero-extend, a full-width
// unsigned key flips its top bit; top_k complements its key, so that the
// ascending order is the largest first). The runtime (runtime/cpu/
// KilnSort.cpp) then orders each line's positions, one key after another
// from the least significant: a stable sort by key j of the order the
// previous keys left is the lexicographic order of keys j, j+1, ...; the
// first pass (kiln_rt_sort_positions_*) starts from the positions in
// order, the later ones (kiln_rt_sort_order_*) from the order left, so
// ties end in input order, as the ops define. The results read each
// operand at the sorted positions (tensor.extract in a linalg.generic:
// values move bit for bit).
//
//===----------------------------------------------------------------------===//
#include "lowering/LaxToLinalg.h"

#include "dialect/LaxIndexingOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
namespace kiln::lowering {

namespace {

/// The shape of a sort along `axis` of `shape`: [outer, n, inner].
RankedTensorType lines3(RankedTensorType type, int64_t axis) {
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < type.getRank(); ++d)
    (d < axis ? outer : inner) *= d == axis ? 1 : type.getDimSize(d);
  return RankedTensorType::get({outer, type.getDimSize(axis), inner}, type.getElementType());
}

/// `key` (signless, of the lax type `laxType`) as a signed i32 (keys of at
/// most 32 bits) or i64 in the same order, complemented for a descending
/// order.
Value signedKey(OpBuilder &b, Location loc, Value key, Type laxType, bool descending) {
  auto type = cast<RankedTensorType>(key.getType());
  unsigned width = type.getElementTypeBitWidth();
  bool isUnsigned = isUnsignedElement(laxType) || width == 1;
  unsigned wide = width <= 32 ? 32 : 64;
  if (width == wide && !isUnsigned && !descending) // already such a key: no copy
    return key;
  Type wideType = b.getIntegerType(wide);
  return parallelGeneric(
      b, loc, type.clone(wideType), key, {b.getMultiDimIdentityMap(type.getRank())},
      [&](OpBuilder &b, Location l, ValueRange args) -> Value {
        Value x = args[0];
        if (width < wide)
          x = isUnsigned ? arith::ExtUIOp::create(b, l, wideType, x).getResult()
                         : arith::ExtSIOp::create(b, l, wideType, x).getResult();
        else if (isUnsigned) // the top bit flipped orders an unsigned key as signed
          x = arith::XOrIOp::create(
              b, l, x,
              arith::ConstantOp::create(
                  b, l, b.getIntegerAttr(wideType, APInt::getSignedMinValue(wide))));
        if (descending) // ~x reverses a signed order
          x = arith::XOrIOp::create(
              b, l, x, arith::ConstantOp::create(b, l, b.getIntegerAttr(wideType, -1)));
        return x;
      });
}

/// The positions along `axis` in the order of `keys` (signedKey's, most
/// significant first), the first `length` of each line (all of them for a
/// sort).
Value sortedPositions(OpBuilder &b, Location loc, ModuleOp module, ArrayRef<Value> keys,
                      int64_t axis, int64_t length) {
  auto type = cast<RankedTensorType>(keys[0].getType());
  SmallVector<int64_t> outShape(type.getShape());
  outShape[axis] = length;
  auto outType = RankedTensorType::get(outShape, b.getI32Type());
  auto orderType = type.clone(b.getI32Type());
  Value order;
  for (auto [i, key] : llvm::enumerate(llvm::reverse(keys))) {
    auto keyType = cast<RankedTensorType>(key.getType());
    std::string width = keyType.getElementTypeBitWidth() == 32 ? "i32" : "i64";
    auto resultType = i + 1 == keys.size() ? outType : orderType;
    SmallVector<Value> operands{reshapeTensor(b, loc, key, lines3(keyType, axis))};
    if (order)
      operands.push_back(reshapeTensor(b, loc, order, lines3(orderType, axis)));
    std::string callee = (order ? "kiln_rt_sort_order_" : "kiln_rt_sort_positions_") + width;
    Value sorted3 =
        callRuntimeOn3(b, loc, module, callee, operands, {lines3(resultType, axis)}, {})[0];
    order = reshapeTensor(b, loc, sorted3, resultType);
  }
  return order;
}

/// `operand` read at `order`'s positions along `axis`: a tensor of
/// `order`'s shape.
Value takeAlongAxis(OpBuilder &b, Location loc, Value operand, Value order, int64_t axis) {
  auto orderType = cast<RankedTensorType>(order.getType());
  auto type = orderType.clone(cast<RankedTensorType>(operand.getType()).getElementType());
  return parallelGeneric(
      b, loc, type, order, {b.getMultiDimIdentityMap(type.getRank())},
      [&](OpBuilder &b, Location l, ValueRange args) -> Value {
        SmallVector<Value> at;
        for (int64_t d = 0; d < type.getRank(); ++d)
          at.push_back(d == axis ? arith::IndexCastOp::create(b, l, b.getIndexType(), args[0])
                                       .getResult()
                                 : linalg::IndexOp::create(b, l, d).getResult());
        return tensor::ExtractOp::create(b, l, operand, at);
      });
}

bool hasIntegerElements(Type t) {
  return isa<IntegerType>(cast<RankedTensorType>(t).getElementType());
}

struct SortPattern : StaticTensorPattern<lax::SortOp> {
  using StaticTensorPattern::StaticTensorPattern;
  LogicalResult rewriteStatic(lax::SortOp op, OpAdaptor adaptor,
                              ConversionPatternRewriter &rewriter) const override {
    int64_t numKeys = op.getNumKeys(), axis = op.getDimension();
    OperandRange laxKeys = op.getOperands().take_front(numKeys);
    if (!llvm::all_of(laxKeys.getTypes(), hasIntegerElements))
      return rewriter.notifyMatchFailure(op, "float keys: kiln-expand-sort makes them integers");
    Location loc = op.getLoc();
    SmallVector<Value> keys;
    for (auto [key, laxKey] : llvm::zip(adaptor.getOperands().take_front(numKeys), laxKeys))
      keys.push_back(signedKey(rewriter, loc, key, laxKey.getType(), /*descending=*/false));
    auto type = cast<RankedTensorType>(laxKeys[0].getType());
    Value order = sortedPositions(rewriter, loc, op->getParentOfType<ModuleOp>(), keys, axis,
                                  type.getDimSize(axis));
    SmallVector<Value> results;
    for (Value v : adaptor.getOperands())
      results.push_back(takeAlongAxis(rewriter, loc, v, order, axis));
    rewriter.replaceOp(op, results);
    return success();
  }
};

struct TopKPattern : StaticTensorPattern<lax::TopKOp> {
  using StaticTensorPattern::StaticTensorPattern;
  LogicalResult rewriteStatic(lax::TopKOp op, OpAdaptor adaptor,
                              ConversionPatternRewriter &rewriter) const override {
    if (!hasIntegerElements(op.getOperand().getType()))
      return rewriter.notifyMatchFailure(op, "floats: kiln-expand-sort makes them integers");
    Location loc = op.getLoc();
    int64_t axis = op.getAxis();
    Value key = signedKey(rewriter, loc, adaptor.getOperand(), op.getOperand().getType(),
                        /*descending=*/true);
    Value order =
        sortedPositions(rewriter, loc, op->getParentOfType<ModuleOp>(), {key}, axis, op.getK());
    Value values = takeAlongAxis(rewriter, loc, adaptor.getOperand(), order, axis);
    rewriter.replaceOp(op, {values, order});
    return success();
  }
};

} // namespace

void populateSortPatterns(RewritePatternSet &patterns) {
  patterns.add<SortPattern, TopKPattern>(patterns.getContext());
}

} // namespace kiln::lowering
