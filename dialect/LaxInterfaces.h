//===- LaxInterfaces.h - facts every layer reads ----------------*- C++ -*-===//
//
// The elementwise-primitive interface and the traits of LaxInterfaces.td,
// and elementwisePrimitives(): every such op's facts as plain data, for
// code that works by name (the importer, the generator, the Python side).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DIALECT_LAXINTERFACES_H
#define KILN_DIALECT_LAXINTERFACES_H

#include "mlir/IR/OpDefinition.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace kiln::lax {
/// Lax_LibraryMath of LaxInterfaces.td.
template <typename ConcreteType>
class LibraryMath : public mlir::OpTrait::TraitBase<ConcreteType, LibraryMath> {};
/// Lax_CorrectlyRounded of LaxInterfaces.td.
template <typename ConcreteType>
class CorrectlyRounded : public mlir::OpTrait::TraitBase<ConcreteType, CorrectlyRounded> {};

/// Which element types an op's operands may have (its ODS type constraint).
struct ElementKinds {
  bool floats = false, ints = false, preds = false;
};

/// One elementwise primitive's facts, from its ODS definition.
struct ElementwisePrimitive {
  llvm::StringRef jaxName; // "erf_inv"
  llvm::StringRef opName;  // "lax.erf_inv"
  unsigned arity;          // 1 or 2
  ElementKinds operands;
  bool libraryMath;
  bool correctlyRounded;
  /// Not correctly rounded: the JIT and the interpreter may differ within
  /// the error model, and it costs a polynomial per element.
  bool isApproximate() const { return libraryMath && !correctlyRounded; }
};

/// Every op implementing ElementwisePrimitiveOpInterface, by op name.
llvm::ArrayRef<ElementwisePrimitive> elementwisePrimitives();
/// The primitive named `jaxName` in a jaxpr, or null.
const ElementwisePrimitive *findElementwisePrimitive(llvm::StringRef jaxName);

/// Whether `op` is a library-math op that is not correctly rounded (see
/// ElementwisePrimitive::isApproximate).
bool isApproximate(mlir::Operation *op);
} // namespace kiln::lax

#include "dialect/LaxInterfaces.h.inc"

#endif // KILN_DIALECT_LAXINTERFACES_H
