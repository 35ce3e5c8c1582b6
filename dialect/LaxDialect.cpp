//===- LaxDialect.cpp - the lax dialect -----------------------------------===//
#include "dialect/LaxDialect.h"
#include "dialect/LaxControlFlowOps.h"
#include "dialect/LaxIndexingOps.h"
#include "dialect/LaxOps.h"

#include "mlir/Transforms/InliningUtils.h"

using namespace mlir;
using namespace kiln::lax;

#include "dialect/LaxDialect.cpp.inc"

namespace {
/// Every lax op is a pure function of its operands (scan of its region), so
/// any of them may be inlined anywhere, e.g. when a pjit'd function is
/// inlined into its caller.
struct LaxInlinerInterface : DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final {
    return true;
  }
  bool isLegalToInline(Region *, Region *, bool, IRMapping &) const final {
    return true;
  }
};
} // namespace

void LaxDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialect/LaxOps.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "dialect/LaxControlFlowOps.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "dialect/LaxIndexingOps.cpp.inc"
      >();
  addInterfaces<LaxInlinerInterface>();
}

Operation *LaxDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                           Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}
