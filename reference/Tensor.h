//===- Tensor.h - host tensors of the reference interpreter -----*- C++ -*-===//
//
// A statically shaped tensor on the host: its MLIR type and flat row-major
// storage, doubles for float element types and int64 for integers (i1,
// i8/i16/i32/i64, ui8/ui16/ui32/ui64; a ui64 above 2^63 - 1 is held as its
// two's complement bits, so its readers compare and divide as unsigned). Every write rounds to the declared element type (floats)
// or wraps to its width (integers), so arithmetic happens "in the declared
// type" as JAX would; `roundFloats = false` keeps full double precision (the
// interpreter's float64 reference mode).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_REFERENCE_TENSOR_H
#define KILN_REFERENCE_TENSOR_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

#include <cstdint>
#include <vector>

namespace kiln::interp {

class Tensor {
public:
  Tensor() = default;
  /// A zero-filled tensor of `type`.
  explicit Tensor(mlir::RankedTensorType type, bool roundFloats = true);

  mlir::RankedTensorType getType() const { return type; }
  mlir::Type getElementType() const { return type.getElementType(); }
  llvm::ArrayRef<int64_t> shape() const { return type.getShape(); }
  int64_t rank() const { return type.getRank(); }
  int64_t size() const { return numElements; }
  bool isFloat() const { return floating; }

  double getFloat(int64_t i) const { return floats[i]; }
  int64_t getInt(int64_t i) const { return ints[i]; }
  /// Element i as a double, whatever the element type.
  double asDouble(int64_t i) const {
    return floating ? floats[i] : unsigned64 ? double(uint64_t(ints[i])) : double(ints[i]);
  }
  void setFloat(int64_t i, double v) { floats[i] = roundFloats ? round(v) : v; }
  void setInt(int64_t i, int64_t v) { ints[i] = wrap(v); }
  /// Copies element `from` of `other` (same element type) to element `to`.
  void copyElement(int64_t to, const Tensor &other, int64_t from) {
    if (floating)
      floats[to] = other.floats[from];
    else
      ints[to] = other.ints[from];
  }

  /// Row-major strides of the shape.
  llvm::SmallVector<int64_t> strides() const;
  /// This tensor's data with another shape (same element count and type).
  Tensor reshaped(mlir::RankedTensorType newType) const;

  static Tensor fromAttr(mlir::ElementsAttr attr, bool roundFloats = true);
  /// Deterministic pseudo-random values: floats uniform in [-1, 1] (or
  /// [0.5, 1.5] when `positive`), integers in [-3, 3] ([1, 4] when positive),
  /// booleans 0/1.
  static Tensor random(mlir::RankedTensorType type, uint64_t seed, bool positive = false);

  bool roundsFloats() const { return roundFloats; }

private:
  double round(double v) const;
  int64_t wrap(int64_t v) const;

  mlir::RankedTensorType type;
  int64_t numElements = 0;
  bool floating = false;
  bool unsigned64 = false; // ui64: ints hold the bits
  bool roundFloats = true;
  std::vector<double> floats;
  std::vector<int64_t> ints;
};

} // namespace kiln::interp

#endif // KILN_REFERENCE_TENSOR_H
