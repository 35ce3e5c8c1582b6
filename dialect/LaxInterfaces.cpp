//===- LaxInterfaces.cpp - facts every layer reads ------------------------===//
#include "dialect/LaxInterfaces.h"
#include "dialect/LaxOps.h"

#include "llvm/ADT/StringMap.h"

#include <vector>

using namespace mlir;
using namespace kiln::lax;

#include "dialect/LaxInterfaces.cpp.inc"

namespace {
/// The facts of `OpT`, appended to `out` if it is an elementwise primitive.
template <typename OpT> void collect(std::vector<ElementwisePrimitive> &out) {
  if constexpr (OpT::template hasTrait<ElementwisePrimitiveOpInterface::Trait>()) {
    constexpr bool unary = OpT::template hasTrait<mlir::OpTrait::OneOperand>();
    static_assert(unary || OpT::template hasTrait<mlir::OpTrait::NOperands<2>::Impl>(),
                  "an elementwise primitive has one or two operands");
    out.push_back({OpT::getJaxPrimitive(), OpT::getOperationName(), unary ? 1u : 2u,
                   OpT::kOperandKinds, OpT::template hasTrait<kiln::lax::LibraryMath>(),
                   OpT::template hasTrait<kiln::lax::CorrectlyRounded>()});
  }
}

template <typename... Ops> std::vector<ElementwisePrimitive> collectAll() {
  std::vector<ElementwisePrimitive> out;
  (collect<Ops>(out), ...);
  return out;
}
} // namespace

llvm::ArrayRef<ElementwisePrimitive> kiln::lax::elementwisePrimitives() {
  static const std::vector<ElementwisePrimitive> primitives = collectAll<
#define GET_OP_LIST
#include "dialect/LaxOps.cpp.inc"
      >();
  return primitives;
}

const ElementwisePrimitive *kiln::lax::findElementwisePrimitive(llvm::StringRef jaxName) {
  static const llvm::StringMap<const ElementwisePrimitive *> byName = [] {
    llvm::StringMap<const ElementwisePrimitive *> map;
    for (const ElementwisePrimitive &p : elementwisePrimitives())
      map[p.jaxName] = &p;
    return map;
  }();
  return byName.lookup(jaxName);
}

bool kiln::lax::isApproximate(Operation *op) {
  return op->hasTrait<kiln::lax::LibraryMath>() && !op->hasTrait<kiln::lax::CorrectlyRounded>();
}
