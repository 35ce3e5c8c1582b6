//===- JaxprIndexing.cpp - gather and scatter -----------------------------===//
//
// gather and scatter, scatter-add, scatter-sub, scatter-mul, scatter-min,
// scatter-max as lax.gather / lax.scatter. Their dimension_numbers print as
// `GatherDimensionNumbers(offset_dims=(1,), ...)` (a Call with keyed items);
// JAX before 0.4.31 printed no batching dimensions (then empty).
//
// A scatter's update_jaxpr must be the one its primitive implies (None or
// `(a, b) -> b` for scatter, `a + b` for scatter-add, ...): a custom one
// (x.at[i].apply(f) prints `scatter` with f's jaxpr) is rejected.
// scatter-sub imports as a scatter-add of the negated updates: IEEE a - b
// and a + (-b) are the same number, and the same integer modulo 2^n.
//
//===----------------------------------------------------------------------===//
#include "importer/JaxprPrimitives.h"

#include "dialect/LaxIndexingOps.h"

#include "llvm/ADT/StringSwitch.h"

#include <cmath>
#include <cstdlib>

using namespace mlir;
using namespace kiln::jaxpr;
using namespace kiln::lax;
using llvm::SmallVector;
using llvm::StringRef;

namespace {

/// mode=GatherScatterMode.CLIP (also the bare name or JAX's enum value).
FailureOr<GatherScatterMode> modeParam(PrimitiveEmitter &e) {
  const Param *p = e.builder.requireParam(e.eqn, "mode");
  if (!p)
    return failure();
  StringRef text = p->value.text;
  text.consume_front("GatherScatterMode.");
  std::optional<GatherScatterMode> mode =
      llvm::StringSwitch<std::optional<GatherScatterMode>>(text)
          .Cases({"CLIP", "0"}, GatherScatterMode::Clip)
          .Cases({"FILL_OR_DROP", "1"}, GatherScatterMode::FillOrDrop)
          .Cases({"PROMISE_IN_BOUNDS", "2"}, GatherScatterMode::PromiseInBounds)
          .Default(std::nullopt);
  if (!mode)
    return e.builder.emitError(p->value.loc)
           << "unsupported mode '" << p->value.spelling << "' of '" << e.primitive()
           << "' (expected CLIP, FILL_OR_DROP or PROMISE_IN_BOUNDS)";
  return *mode;
}

/// Parameters that cannot change a result: sortedness and uniqueness hints
/// (they promise what the indices hold) and placements.
bool isHint(StringRef name) {
  return name == "indices_are_sorted" || name == "unique_indices" ||
         name.ends_with("sharding");
}

/// Rejects parameters that are neither in `known` nor hints.
LogicalResult checkParams(PrimitiveEmitter &e, ArrayRef<StringRef> known) {
  for (const Param &p : e.eqn.params)
    if (!llvm::is_contained(known, p.name) && !isHint(p.name))
      return e.builder.emitError(p.loc)
             << "unknown parameter '" << p.name << "' of '" << e.primitive() << "'";
  return success();
}

/// The scalar `fill_value` as an attribute of `element`; null for None.
FailureOr<TypedAttr> fillValueParam(PrimitiveEmitter &e, Type element) {
  const Param *p = e.eqn.findParam("fill_value");
  if (!p)
    return TypedAttr();
  const ParamValue *v = &p->value;
  // np.float32(1.0) and friends.
  while (v->kind == ParamValue::Kind::Call && v->items.size() == 1 &&
         StringRef(v->text).starts_with("np."))
    v = &v->items.front();
  StringRef text = v->text;
  if (v->kind == ParamValue::Kind::Name && text == "None")
    return TypedAttr();
  bool isBool = v->kind == ParamValue::Kind::Name && (text == "True" || text == "False");
  bool isNumber = v->kind == ParamValue::Kind::Number ||
                  (v->kind == ParamValue::Kind::Name && (text == "nan" || text == "inf"));
  if (!isBool && !isNumber)
    return e.builder.emitError(v->loc)
           << "fill_value of '" << e.primitive() << "' must be a number, got '"
           << p->value.spelling << "'";
  if (auto f = dyn_cast<FloatType>(element)) {
    double value = isBool ? double(text == "True") : std::strtod(text.str().c_str(), nullptr);
    return TypedAttr(FloatAttr::get(f, value));
  }
  int64_t value;
  if (isBool) {
    value = text == "True";
  } else if (text.getAsInteger(10, value)) {
    // An integer operand filled with a float: truncate like a C cast.
    double d = std::strtod(text.str().c_str(), nullptr);
    if (!std::isfinite(d))
      return e.builder.emitError(v->loc)
             << "fill_value " << text << " does not fit element type " << element;
    value = (int64_t)d;
  }
  unsigned width = element.getIntOrFloatBitWidth();
  return TypedAttr(IntegerAttr::get(element, APInt(width, (uint64_t)value,
                                                   /*isSigned=*/true,
                                                   /*implicitTrunc=*/true)));
}

EmitResult emitGather(PrimitiveEmitter &e) {
  EmitResult x = e.operands(2, 2);
  if (failed(x) ||
      failed(checkParams(e, {"dimension_numbers", "slice_sizes", "mode", "fill_value"})))
    return failure();
  auto dims = dimensionNumbers(e, "GatherDimensionNumbers",
                               {"offset_dims", "collapsed_slice_dims", "start_index_map"},
                               {"operand_batching_dims", "start_indices_batching_dims"});
  FailureOr<SmallVector<int64_t>> sliceSizes = e.builder.intListParam(e.eqn, "slice_sizes");
  FailureOr<GatherScatterMode> mode = modeParam(e);
  if (failed(dims) || failed(sliceSizes) || failed(mode))
    return failure();
  Value operand = (*x)[0];
  // fill_value means something only in mode FILL_OR_DROP (JAX ignores it
  // otherwise); the op takes it only there.
  TypedAttr fill;
  if (*mode == GatherScatterMode::FillOrDrop) {
    FailureOr<TypedAttr> parsed =
        fillValueParam(e, cast<RankedTensorType>(operand.getType()).getElementType());
    if (failed(parsed))
      return failure();
    fill = *parsed;
  }
  auto &d = *dims;
  return e.finish(GatherOp::create(
      e.b, e.loc, e.placeholder, operand, (*x)[1], d["offset_dims"],
      d["collapsed_slice_dims"], d["start_index_map"], d["operand_batching_dims"],
      d["start_indices_batching_dims"], *sliceSizes, *mode, fill));
}

/// Whether `jaxpr` is `{ lambda ; a b. let c = <primitive> a b in (c,) }`
/// (or with `b a` for a commutative one); with an empty `primitive`,
/// whether it is `{ lambda ; a b. let in (b,) }`.
bool isUpdateJaxpr(const Jaxpr &jaxpr, StringRef primitive) {
  if (!jaxpr.constvars.empty() || jaxpr.invars.size() != 2 || jaxpr.outs.size() != 1 ||
      jaxpr.outs[0].isLiteral())
    return false;
  StringRef a = jaxpr.invars[0].name, b = jaxpr.invars[1].name;
  StringRef out = jaxpr.outs[0].name;
  if (primitive.empty())
    return jaxpr.equations.empty() && out == b;
  if (jaxpr.equations.size() != 1)
    return false;
  const Equation &eqn = jaxpr.equations[0];
  if (eqn.primitive != primitive || eqn.outs.size() != 1 || eqn.outs[0].name != out ||
      eqn.ins.size() != 2 || eqn.ins[0].isLiteral() || eqn.ins[1].isLiteral())
    return false;
  // JAX prints no parameter of `mul` while out_dtype is None, but has it.
  if (llvm::any_of(eqn.params, [](const Param &p) {
        return !(p.value.kind == ParamValue::Kind::Name && p.value.text == "None");
      }))
    return false;
  StringRef x = eqn.ins[0].name, y = eqn.ins[1].name;
  bool commutative = primitive != "sub";
  return (x == a && y == b) || (commutative && x == b && y == a);
}

/// The update computation of a scatter primitive.
struct ScatterForm {
  ScatterKind kind;
  StringRef updatePrimitive; // what update_jaxpr must apply ("" for set)
  bool negateUpdates = false;
};

std::optional<ScatterForm> scatterForm(StringRef primitive) {
  return llvm::StringSwitch<std::optional<ScatterForm>>(primitive)
      .Case("scatter", ScatterForm{ScatterKind::Set, ""})
      .Case("scatter-add", ScatterForm{ScatterKind::Add, "add"})
      .Case("scatter-sub", ScatterForm{ScatterKind::Add, "sub", /*negateUpdates=*/true})
      .Case("scatter-mul", ScatterForm{ScatterKind::Mul, "mul"})
      .Case("scatter-min", ScatterForm{ScatterKind::Min, "min"})
      .Case("scatter-max", ScatterForm{ScatterKind::Max, "max"})
      .Default(std::nullopt);
}

EmitResult emitScatter(PrimitiveEmitter &e) {
  ScatterForm form = *scatterForm(e.primitive());
  EmitResult x = e.operands(3, 3);
  if (failed(x) || failed(checkParams(e, {"dimension_numbers", "mode", "update_jaxpr",
                                          "update_consts"})))
    return failure();
  auto dims = dimensionNumbers(
      e, "ScatterDimensionNumbers",
      {"update_window_dims", "inserted_window_dims", "scatter_dims_to_operand_dims"},
      {"operand_batching_dims", "scatter_indices_batching_dims"});
  FailureOr<GatherScatterMode> mode = modeParam(e);
  if (failed(dims) || failed(mode))
    return failure();

  if (const Param *consts = e.eqn.findParam("update_consts");
      consts && !(consts->value.kind == ParamValue::Kind::List && consts->value.items.empty()))
    return e.builder.emitError(consts->loc)
           << "unsupported '" << e.primitive() << "' with update_consts";
  if (const Param *update = e.eqn.findParam("update_jaxpr");
      update && !(update->value.kind == ParamValue::Kind::Name && update->value.text == "None")) {
    FailureOr<const Jaxpr *> jaxpr = e.builder.jaxprParam(e.eqn, {"update_jaxpr"});
    if (failed(jaxpr))
      return failure();
    if (!isUpdateJaxpr(**jaxpr, form.updatePrimitive))
      return e.builder.emitError(update->loc)
             << "unsupported '" << e.primitive()
             << "' with a custom update_jaxpr (only the update computation of '"
             << e.primitive() << "' itself is supported)";
  }

  Value updates = (*x)[2];
  if (form.negateUpdates) {
    Operation *neg = NegOp::create(e.b, e.loc, updates.getType(), updates);
    if (failed(e.builder.finishOp(neg)))
      return failure();
    updates = neg->getResult(0);
  }
  auto &d = *dims;
  return e.finish(ScatterOp::create(
      e.b, e.loc, e.placeholder, form.kind, (*x)[0], (*x)[1], updates,
      d["update_window_dims"], d["inserted_window_dims"],
      d["scatter_dims_to_operand_dims"], d["operand_batching_dims"],
      d["scatter_indices_batching_dims"], *mode));
}

} // namespace

namespace {

/// equinox's maybe_set[i_static=None i_treedef=PyTreeDef(*) kwargs=()] pred
/// xs x i (its checkpointed while loops' buffer writes): outside vmap its
/// implementation is xs.at[i].set(x), whatever pred (equinox's
/// select_if_vmap is x there). .at[i].set wraps a negative i once and drops
/// an update still out of bounds; here: i' = i < 0 ? i + n : i, the update
/// as a dynamic_update_slice at (i', 0, ...) (which would clamp), kept only
/// where 0 <= i' < n.
EmitResult emitMaybeSet(PrimitiveEmitter &e) {
  EmitResult x = e.operands(4, 4);
  if (failed(x))
    return failure();
  for (StringRef name : {"i_static", "kwargs"}) {
    const Param *p = e.eqn.findParam(name);
    bool empty = !p || p->value.text == "None" ||
                 (p->value.kind == ParamValue::Kind::List && p->value.items.empty());
    if (!empty)
      return e.builder.emitError(p->value.loc)
             << "unsupported 'maybe_set' with " << name << " (only a single dynamic index)";
  }
  const Param *treedef = e.eqn.findParam("i_treedef");
  if (treedef && treedef->value.spelling.str().find("PyTreeDef(*)") == std::string::npos)
    return e.builder.emitError(treedef->value.loc)
           << "unsupported 'maybe_set' index structure (only a single dynamic index)";
  Value xs = (*x)[1], value = (*x)[2], index = (*x)[3];
  auto xsType = cast<RankedTensorType>(xs.getType());
  auto valueType = cast<RankedTensorType>(value.getType());
  auto indexType = cast<RankedTensorType>(index.getType());
  if (xsType.getRank() < 1 || valueType.getShape() != xsType.getShape().drop_front() ||
      indexType.getRank() != 0 || !isa<IntegerType>(indexType.getElementType()))
    return e.builder.emitError(e.eqn.primitiveLoc)
           << "'maybe_set' expects xs, an element of xs and a scalar integer index";
  Type indexElement = indexType.getElementType();
  unsigned width = indexElement.getIntOrFloatBitWidth();
  auto scalar = [&](int64_t v) {
    return ConstantOp::create(e.b, e.loc, DenseElementsAttr::get(indexType, APInt(width, v, true)));
  };
  Value zero = scalar(0), n = scalar(xsType.getDimSize(0));
  FailureOr<Value> negative =
      e.built(CompareOp::create(e.b, e.loc, e.placeholder, ComparisonDirection::LT, index, zero));
  FailureOr<Value> wrapped = e.built(AddOp::create(e.b, e.loc, e.placeholder, index, n));
  if (failed(negative) || failed(wrapped))
    return failure();
  FailureOr<Value> i = e.built(
      SelectNOp::create(e.b, e.loc, e.placeholder, *negative, ValueRange{index, *wrapped}));
  if (failed(i))
    return failure();
  FailureOr<Value> low =
      e.built(CompareOp::create(e.b, e.loc, e.placeholder, ComparisonDirection::GE, *i, zero));
  FailureOr<Value> high =
      e.built(CompareOp::create(e.b, e.loc, e.placeholder, ComparisonDirection::LT, *i, n));
  if (failed(low) || failed(high))
    return failure();
  FailureOr<Value> inBounds = e.built(AndOp::create(e.b, e.loc, e.placeholder, *low, *high));
  SmallVector<int64_t> rowShape{1};
  rowShape.append(valueType.getShape().begin(), valueType.getShape().end());
  Value row = ReshapeOp::create(e.b, e.loc, valueType.clone(rowShape), value);
  SmallVector<Value> starts{*i};
  for (int64_t d = 1; d < xsType.getRank(); ++d)
    starts.push_back(zero);
  FailureOr<Value> updated = e.built(
      DynamicUpdateSliceOp::create(e.b, e.loc, e.placeholder, xs, row, starts));
  if (failed(inBounds) || failed(updated))
    return failure();
  FailureOr<Value> keep = e.built(BroadcastInDimOp::create(e.b, e.loc, *inBounds,
                                                           xsType.getShape(), ArrayRef<int64_t>{}));
  if (failed(keep))
    return failure();
  return e.finish(SelectNOp::create(e.b, e.loc, e.placeholder, *keep, ValueRange{xs, *updated}));
}

} // namespace

void kiln::jaxpr::registerIndexingPrimitives(PrimitiveTable &table) {
  addPrimitives(table, {
      {"gather", emitGather},
      {"maybe_set", emitMaybeSet},
      {"scatter", emitScatter},
      {"scatter-add", emitScatter},
      {"scatter-sub", emitScatter},
      {"scatter-mul", emitScatter},
      {"scatter-min", emitScatter},
      {"scatter-max", emitScatter},
  });
}
