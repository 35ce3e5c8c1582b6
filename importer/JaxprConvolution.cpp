//===- JaxprConvolution.cpp - conv_general_dilated as lax ops -------------===//
//
// conv_general_dilated becomes one dot_general over patches (im2col): the
// input brought to [N, spatial..., C] and padded with zeros; for each offset
// of the kernel window, the strided slice of the input that offset reads at
// every output position ([N, out spatial..., C]); the slices concatenated
// along C (offsets major, channels minor) against the kernel reshaped to
// [window * C, O] in the same order; the result transposed to out_spec.
// Each output is the same sum of products XLA's convolution computes, in
// another order (a float result differs by rounding, as XLA's own
// algorithms do from one another).
//
// Supported: feature_group_count = batch_group_count = 1, no lhs
// (transposed-convolution) dilation, explicit non-negative padding; any
// window strides and rhs (atrous) dilation, any rank and layout. The rest
// is a located error naming the parameter.
//
//===----------------------------------------------------------------------===//
#include "importer/JaxprPrimitives.h"

#include "dialect/LaxOps.h"

using namespace mlir;
using namespace kiln::jaxpr;
using namespace kiln::lax;
using llvm::SmallVector;

namespace {

EmitResult emitConvGeneralDilated(PrimitiveEmitter &e) {
  EmitResult operands = e.operands(2, 2);
  FailureOr<llvm::StringMap<SmallVector<int64_t>>> specs =
      dimensionNumbers(e, "ConvDimensionNumbers", {"lhs_spec", "rhs_spec", "out_spec"}, {});
  FailureOr<SmallVector<int64_t>> strides = e.builder.intListParam(e.eqn, "window_strides");
  FailureOr<Type> preferred = e.builder.dtypeParam(e.eqn, "preferred_element_type", true);
  if (failed(operands) || failed(specs) || failed(strides) || failed(preferred))
    return failure();
  Value lhs = (*operands)[0], rhs = (*operands)[1];
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  auto rhsType = cast<RankedTensorType>(rhs.getType());
  int64_t rank = lhsType.getRank(), spatial = rank - 2;
  SmallVector<int64_t> lhsSpec = (*specs)["lhs_spec"], rhsSpec = (*specs)["rhs_spec"],
                       outSpec = (*specs)["out_spec"];
  auto where = e.eqn.primitiveLoc;
  if (rhsType.getRank() != rank || int64_t(lhsSpec.size()) != rank ||
      int64_t(rhsSpec.size()) != rank || int64_t(outSpec.size()) != rank ||
      int64_t(strides->size()) != spatial)
    return e.builder.emitError(where)
           << "conv_general_dilated: operands, specs and window_strides disagree on the rank";
  FailureOr<SmallVector<int64_t>> lhsDilation =
      e.builder.intListParam(e.eqn, "lhs_dilation", SmallVector<int64_t>(spatial, 1));
  FailureOr<SmallVector<int64_t>> rhsDilation =
      e.builder.intListParam(e.eqn, "rhs_dilation", SmallVector<int64_t>(spatial, 1));
  FailureOr<int64_t> featureGroups = e.builder.intParam(e.eqn, "feature_group_count", 1);
  FailureOr<int64_t> batchGroups = e.builder.intParam(e.eqn, "batch_group_count", 1);
  if (failed(lhsDilation) || failed(rhsDilation) || failed(featureGroups) || failed(batchGroups))
    return failure();
  if (*featureGroups != 1 || *batchGroups != 1)
    return e.builder.emitError(where) << "conv_general_dilated: only feature_group_count = "
                                         "batch_group_count = 1 is supported";
  if (llvm::any_of(*lhsDilation, [](int64_t d) { return d != 1; }))
    return e.builder.emitError(where)
           << "conv_general_dilated: lhs_dilation (a transposed convolution) is not supported";
  if (int64_t(rhsDilation->size()) != spatial ||
      llvm::any_of(*rhsDilation, [](int64_t d) { return d < 1; }) ||
      llvm::any_of(*strides, [](int64_t s) { return s < 1; }))
    return e.builder.emitError(where)
           << "conv_general_dilated: strides and rhs_dilation must be positive, one per "
              "spatial dimension";
  const Param *padding = e.builder.requireParam(e.eqn, "padding");
  if (!padding)
    return failure();
  SmallVector<std::pair<int64_t, int64_t>> pads;
  if (padding->value.kind != ParamValue::Kind::List ||
      int64_t(padding->value.items.size()) != spatial)
    return e.builder.emitError(padding->value.loc)
           << "conv_general_dilated: padding must be one (low, high) pair per spatial dimension";
  for (const ParamValue &pair : padding->value.items) {
    FailureOr<SmallVector<int64_t>> lh = e.builder.intList(pair, "a padding pair");
    if (failed(lh))
      return failure();
    if (lh->size() != 2 || (*lh)[0] < 0 || (*lh)[1] < 0)
      return e.builder.emitError(pair.loc)
             << "conv_general_dilated: padding pairs must be (low, high) with both >= 0";
    pads.push_back({(*lh)[0], (*lh)[1]});
  }

  // The input as [N, S..., C], the kernel as [S..., I, O].
  SmallVector<int64_t> lhsPerm{lhsSpec[0]}, rhsPerm;
  for (int64_t i = 0; i < spatial; ++i) {
    lhsPerm.push_back(lhsSpec[2 + i]);
    rhsPerm.push_back(rhsSpec[2 + i]);
  }
  lhsPerm.push_back(lhsSpec[1]);
  rhsPerm.push_back(rhsSpec[1]);
  rhsPerm.push_back(rhsSpec[0]);
  FailureOr<Value> input = e.built(TransposeOp::create(e.b, e.loc, e.placeholder, lhs, lhsPerm));
  FailureOr<Value> kernel = e.built(TransposeOp::create(e.b, e.loc, e.placeholder, rhs, rhsPerm));
  if (failed(input) || failed(kernel))
    return failure();
  auto inType = cast<RankedTensorType>(input->getType());
  auto kType = cast<RankedTensorType>(kernel->getType());
  Type element = inType.getElementType();
  int64_t channels = inType.getDimSize(rank - 1);
  if (kType.getDimSize(spatial) != channels)
    return e.builder.emitError(where) << "conv_general_dilated: the kernel's input features ("
                                      << kType.getDimSize(spatial)
                                      << ") differ from the input's (" << channels << ")";

  // Zero padding, one spatial dimension at a time.
  Value zero = ConstantOp::create(e.b, e.loc, RankedTensorType::get({}, element), 0.0);
  Value padded = *input;
  for (int64_t i = 0; i < spatial; ++i) {
    for (int side = 0; side < 2; ++side) {
      int64_t amount = side ? pads[i].second : pads[i].first;
      if (amount == 0)
        continue;
      SmallVector<int64_t> shape(cast<RankedTensorType>(padded.getType()).getShape());
      shape[1 + i] = amount;
      FailureOr<Value> block =
          e.built(BroadcastInDimOp::create(e.b, e.loc, zero, shape, ArrayRef<int64_t>{}));
      if (failed(block))
        return failure();
      SmallVector<Value> parts = side ? SmallVector<Value>{padded, *block}
                                      : SmallVector<Value>{*block, padded};
      FailureOr<Value> joined =
          e.built(ConcatenateOp::create(e.b, e.loc, e.placeholder, parts, 1 + i));
      if (failed(joined))
        return failure();
      padded = *joined;
    }
  }

  // Output positions per spatial dimension: the window's extent is
  // (k - 1) * dilation + 1.
  auto paddedShape = cast<RankedTensorType>(padded.getType()).getShape();
  SmallVector<int64_t> window, outSize;
  int64_t windowSize = 1;
  for (int64_t i = 0; i < spatial; ++i) {
    int64_t k = kType.getDimSize(i), extent = (k - 1) * (*rhsDilation)[i] + 1;
    int64_t out = paddedShape[1 + i] < extent ? 0 : (paddedShape[1 + i] - extent) / (*strides)[i] + 1;
    window.push_back(k);
    outSize.push_back(out);
    windowSize *= k;
  }

  // One strided slice per window offset, offsets in row-major order.
  SmallVector<Value> patches;
  SmallVector<int64_t> offset(spatial, 0);
  for (int64_t w = 0; w < windowSize; ++w) {
    SmallVector<int64_t> start(rank, 0), limit(paddedShape), step(rank, 1);
    for (int64_t i = 0; i < spatial; ++i) {
      start[1 + i] = offset[i] * (*rhsDilation)[i];
      limit[1 + i] = outSize[i] == 0 ? start[1 + i]
                                     : start[1 + i] + (outSize[i] - 1) * (*strides)[i] + 1;
      step[1 + i] = (*strides)[i];
    }
    FailureOr<Value> patch =
        e.built(SliceOp::create(e.b, e.loc, e.placeholder, padded, start, limit, step));
    if (failed(patch))
      return failure();
    patches.push_back(*patch);
    for (int64_t i = spatial - 1; i >= 0; --i) { // next offset, last dimension fastest
      if (++offset[i] < window[i])
        break;
      offset[i] = 0;
    }
  }
  FailureOr<Value> columns =
      patches.size() == 1
          ? FailureOr<Value>(patches[0])
          : e.built(ConcatenateOp::create(e.b, e.loc, e.placeholder, patches, rank - 1));
  int64_t features = kType.getDimSize(spatial + 1);
  FailureOr<Value> weights = e.built(ReshapeOp::create(e.b, e.loc,
                           RankedTensorType::get({windowSize * channels, features},
                                                 kType.getElementType()),
                           *kernel));
  if (failed(columns) || failed(weights))
    return failure();
  TypeAttr preferredAttr = *preferred ? TypeAttr::get(*preferred) : TypeAttr();
  FailureOr<Value> product = e.built(DotGeneralOp::create(e.b, e.loc, e.placeholder, *columns, *weights,
                              SmallVector<int64_t>{rank - 1}, SmallVector<int64_t>{0},
                              SmallVector<int64_t>{}, SmallVector<int64_t>{}, preferredAttr));
  if (failed(product))
    return failure();
  // [N, S..., O] to out_spec's layout.
  SmallVector<int64_t> outPerm(rank);
  outPerm[outSpec[0]] = 0;
  outPerm[outSpec[1]] = rank - 1;
  for (int64_t i = 0; i < spatial; ++i)
    outPerm[outSpec[2 + i]] = 1 + i;
  return e.finish(TransposeOp::create(e.b, e.loc, e.placeholder, *product, outPerm));
}

} // namespace

void kiln::jaxpr::registerConvolutionPrimitives(PrimitiveTable &table) {
  addPrimitives(table, {{"conv_general_dilated", emitConvGeneralDilated}});
}
