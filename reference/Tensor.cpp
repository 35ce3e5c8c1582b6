//===- Tensor.cpp - host tensors of the reference interpreter -------------===//
#include "reference/Tensor.h"

#include "llvm/ADT/APFloat.h"

#include <random>

using namespace mlir;
using namespace kiln::interp;

Tensor::Tensor(RankedTensorType type, bool roundFloats)
    : type(type), numElements(type.getNumElements()),
      floating(isa<FloatType>(type.getElementType())),
      unsigned64(type.getElementType().isUnsignedInteger(64)), roundFloats(roundFloats) {
  if (floating)
    floats.assign(numElements, 0.0);
  else
    ints.assign(numElements, 0);
}

double Tensor::round(double v) const {
  Type element = getElementType();
  if (element.isF64())
    return v;
  if (element.isF32())
    return double(float(v));
  // f16 / bf16: round to nearest even through APFloat.
  llvm::APFloat f(v);
  bool lost = false;
  f.convert(cast<FloatType>(element).getFloatSemantics(), llvm::APFloat::rmNearestTiesToEven,
            &lost);
  f.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven, &lost);
  return f.convertToDouble();
}

int64_t Tensor::wrap(int64_t v) const {
  unsigned width = getElementType().getIntOrFloatBitWidth();
  if (width == 64)
    return v;
  if (width == 1)
    return v != 0;
  uint64_t mask = (uint64_t(1) << width) - 1;
  uint64_t bits = uint64_t(v) & mask;
  if (getElementType().isUnsignedInteger())
    return int64_t(bits);
  // Sign-extend from `width` bits.
  uint64_t sign = uint64_t(1) << (width - 1);
  return int64_t((bits ^ sign) - sign);
}

SmallVector<int64_t> Tensor::strides() const {
  SmallVector<int64_t> s(rank(), 1);
  for (int64_t d = rank() - 2; d >= 0; --d)
    s[d] = s[d + 1] * shape()[d + 1];
  return s;
}

Tensor Tensor::reshaped(RankedTensorType newType) const {
  Tensor t = *this;
  t.type = newType;
  return t;
}

Tensor Tensor::fromAttr(ElementsAttr attr, bool roundFloats) {
  auto type = cast<RankedTensorType>(attr.getType());
  Tensor t(type, roundFloats);
  auto dense = dyn_cast<DenseElementsAttr>(attr);
  if (t.floating) {
    int64_t i = 0;
    if (dense && dense.isSplat()) {
      double v = dense.getSplatValue<APFloat>().convertToDouble();
      for (int64_t k = 0; k < t.numElements; ++k)
        t.setFloat(k, v);
      return t;
    }
    for (APFloat v : attr.getValues<APFloat>())
      t.setFloat(i++, v.convertToDouble());
  } else {
    bool isUnsigned = type.getElementType().isUnsignedInteger() ||
                      type.getElementType().isInteger(1);
    int64_t i = 0;
    for (APInt v : attr.getValues<APInt>())
      t.setInt(i++, isUnsigned ? int64_t(v.getZExtValue()) : v.getSExtValue());
  }
  return t;
}

Tensor Tensor::random(RankedTensorType type, uint64_t seed, bool positive) {
  Tensor t(type);
  std::mt19937_64 rng(seed);
  if (t.floating) {
    std::uniform_real_distribution<double> dist(positive ? 0.5 : -1.0, positive ? 1.5 : 1.0);
    for (int64_t i = 0; i < t.numElements; ++i)
      t.setFloat(i, dist(rng));
  } else if (type.getElementType().isInteger(1)) {
    for (int64_t i = 0; i < t.numElements; ++i)
      t.setInt(i, rng() & 1);
  } else {
    std::uniform_int_distribution<int64_t> dist(positive ? 1 : -3, positive ? 4 : 3);
    if (type.getElementType().isUnsignedInteger())
      dist = std::uniform_int_distribution<int64_t>(positive ? 1 : 0, positive ? 4 : 6);
    for (int64_t i = 0; i < t.numElements; ++i)
      t.setInt(i, dist(rng));
  }
  return t;
}
