//===- LaxTotalOrder.cpp - floats as integers in their total order --------===//
#include "dialect/LaxTotalOrder.h"

#include "dialect/LaxOps.h"

using namespace mlir;

namespace {

/// bits ^ ((bits >> (width - 1)) & INT_MAX): every bit but the sign flipped
/// where the sign is set. Its own inverse (the sign bit stays).
Value flipNegativeMagnitudes(OpBuilder &b, Location loc, Value bits) {
  using namespace kiln::lax;
  auto type = cast<RankedTensorType>(bits.getType());
  unsigned width = type.getElementTypeBitWidth();
  Value shift = ConstantOp::create(b, loc, DenseElementsAttr::get(type, APInt(width, width - 1)));
  Value magnitude =
      ConstantOp::create(b, loc, DenseElementsAttr::get(type, APInt::getSignedMaxValue(width)));
  Value sign = ShiftRightArithmeticOp::create(b, loc, bits, shift);
  return XorOp::create(b, loc, bits, AndOp::create(b, loc, sign, magnitude));
}

} // namespace

Value kiln::lax::buildTotalOrderKey(OpBuilder &b, Location loc, Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  auto floatType = dyn_cast<FloatType>(type.getElementType());
  if (!floatType)
    return x;
  auto intType = type.clone(b.getIntegerType(floatType.getWidth()));
  return flipNegativeMagnitudes(b, loc, BitcastConvertTypeOp::create(b, loc, intType, x));
}

Value kiln::lax::buildFloatOfTotalOrderKey(OpBuilder &b, Location loc, Value key,
                                           Type floatElement) {
  auto type = cast<RankedTensorType>(key.getType());
  return BitcastConvertTypeOp::create(b, loc, type.clone(floatElement),
                                      flipNegativeMagnitudes(b, loc, key));
}
