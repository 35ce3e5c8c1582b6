//===- JaxprContraction.cpp - contraction primitives ----------------------===//
//
// dot_general.
//
//===----------------------------------------------------------------------===//
#include "importer/JaxprPrimitives.h"

#include "dialect/LaxOps.h"

using namespace mlir;
using namespace kiln::jaxpr;
using namespace kiln::lax;
using llvm::SmallVector;

namespace {

bool isPair(const ParamValue &p) {
  return p.kind == ParamValue::Kind::List && p.items.size() == 2;
}

/// dimension_numbers = ((lhs_contracting, rhs_contracting),
/// (lhs_batch, rhs_batch)), as four lists in that order.
FailureOr<SmallVector<SmallVector<int64_t>>>
dotDimensionNumbers(JaxprBuilder &builder, const ParamValue &v) {
  if (!isPair(v) || !isPair(v.items[0]) || !isPair(v.items[1]))
    return builder.emitError(v.loc) << "dimension_numbers must be ((lhs_contracting, "
                                       "rhs_contracting), (lhs_batch, rhs_batch))";
  SmallVector<SmallVector<int64_t>> dims;
  for (const ParamValue &group : v.items)
    for (const ParamValue &list : group.items) {
      FailureOr<SmallVector<int64_t>> d = builder.intList(list, "each dimension list");
      if (failed(d))
        return failure();
      dims.push_back(*d);
    }
  return dims;
}

EmitResult emitDotGeneral(PrimitiveEmitter &e) {
  EmitResult x = e.operands(2, 2);
  const Param *numbers = e.builder.requireParam(e.eqn, "dimension_numbers");
  FailureOr<Type> preferred =
      e.builder.dtypeParam(e.eqn, "preferred_element_type", true);
  if (failed(x) || !numbers || failed(preferred))
    return failure();
  FailureOr<SmallVector<SmallVector<int64_t>>> dims =
      dotDimensionNumbers(e.builder, numbers->value);
  if (failed(dims))
    return failure();
  TypeAttr preferredAttr = *preferred ? TypeAttr::get(*preferred) : TypeAttr();
  auto &d = *dims;
  return e.finish(DotGeneralOp::create(e.b, e.loc, e.placeholder, (*x)[0], (*x)[1],
                                       d[0], d[1], d[2], d[3], preferredAttr));
}

} // namespace

void kiln::jaxpr::registerContractionPrimitives(PrimitiveTable &table) {
  addPrimitives(table, {
      {"dot_general", emitDotGeneral},
  });
}
