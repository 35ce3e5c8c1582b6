//===- LaxDialect.cpp - the lax dialect -----------------------------------===//
#include "dialect/LaxDialect.h"
#include "dialect/LaxOps.h"

using namespace mlir;
using namespace kiln::lax;

#include "dialect/LaxDialect.cpp.inc"

void LaxDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialect/LaxOps.cpp.inc"
      >();
}

Operation *LaxDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                           Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}
