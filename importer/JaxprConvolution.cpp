//===- JaxprConvolution.cpp - conv_general_dilated as lax ops -------------===//
//
// conv_general_dilated becomes one dot_general over patches (im2col): the
// input brought to [N, spatial..., C] and padded with zeros; for each offset
// of the kernel window, the strided slice of the input that offset reads at
// every output position ([N, out spatial..., C]); the slices concatenated
// along C (offsets major, channels minor) against the kernel reshaped to
// [window * C, O] in the same order; the result transposed to out_spec.
// Where the output has fewer positions than the window has offsets (kernel
// gradients, whose window is the output's spatial size), the slices are
// taken per output position instead (its receptive field as one row): the
// same contraction from fewer, larger slices.
// Each output is the same sum of products XLA's convolution computes, in
// another order (a float result differs by rounding, as XLA's own
// algorithms do from one another).
//
// lhs dilation (transposed convolutions, input gradients of strided ones)
// is interior zero padding of the input, which XLA's definition applies
// before the edge padding (negative edges remove elements), so both are one
// padTensor. feature_group_count = G (grouped and depthwise convolutions)
// splits the C input channels into G groups of C / G and the O kernel
// features into G groups of O / G, group g of the output reading group g
// of the input only: the patches, [.., window, G, C / G], meet the kernel,
// [window, C / G, G, O / G], in one dot_general batched over G.
// batch_group_count = B (the kernel gradient of a grouped convolution)
// is the same with the input's batch split into B blocks instead. Any
// window strides and rhs (atrous) dilation, any rank and layout.
//
//===----------------------------------------------------------------------===//
#include "importer/JaxprPrimitives.h"

#include "dialect/LaxOps.h"

using namespace mlir;
using namespace kiln::jaxpr;
using namespace kiln::lax;
using llvm::SmallVector;

namespace {

/// `v` reshaped to `shape` (row-major, as lax.reshape).
FailureOr<Value> reshapeTo(PrimitiveEmitter &e, Value v, ArrayRef<int64_t> shape) {
  return e.built(ReshapeOp::create(
      e.b, e.loc, RankedTensorType::get(shape, cast<RankedTensorType>(v.getType()).getElementType()),
      v));
}

/// Calls `body` with each index of `extents` in row-major order (the last
/// dimension fastest); stops at the first failure.
LogicalResult forEachIndex(ArrayRef<int64_t> extents,
                           llvm::function_ref<LogicalResult(ArrayRef<int64_t>)> body) {
  int64_t count = 1;
  for (int64_t n : extents)
    count *= n;
  SmallVector<int64_t> index(extents.size(), 0);
  for (int64_t k = 0; k < count; ++k) {
    if (failed(body(index)))
      return failure();
    for (int64_t i = int64_t(extents.size()) - 1; i >= 0; --i) {
      if (++index[i] < extents[i])
        break;
      index[i] = 0;
    }
  }
  return success();
}

/// The strided slices of `padded` ([N, S..., C]) at each index of `places`
/// (row-major): starting at index * `placeStep` on the spatial dimensions,
/// `size` elements `step` apart in each (all of N, C); each reshaped to
/// `rowShape` unless it is empty; concatenated along `axis`. The two im2col
/// layouts are the two ways round: places = window offsets (size = output
/// positions) or places = output positions (size = the window).
FailureOr<Value> concatenatedSlices(PrimitiveEmitter &e, Value padded, ArrayRef<int64_t> places,
                                    ArrayRef<int64_t> placeStep, ArrayRef<int64_t> size,
                                    ArrayRef<int64_t> step, ArrayRef<int64_t> rowShape,
                                    int64_t axis) {
  auto shape = cast<RankedTensorType>(padded.getType()).getShape();
  SmallVector<Value> slices;
  if (failed(forEachIndex(places, [&](ArrayRef<int64_t> place) -> LogicalResult {
        SmallVector<int64_t> lo(shape.size(), 0), hi(shape), strides(shape.size(), 1);
        for (size_t i = 0; i < place.size(); ++i) {
          lo[1 + i] = place[i] * placeStep[i];
          hi[1 + i] = size[i] == 0 ? lo[1 + i] : lo[1 + i] + (size[i] - 1) * step[i] + 1;
          strides[1 + i] = step[i];
        }
        FailureOr<Value> slice =
            e.built(SliceOp::create(e.b, e.loc, e.placeholder, padded, lo, hi, strides));
        if (succeeded(slice) && !rowShape.empty())
          slice = reshapeTo(e, *slice, rowShape);
        if (failed(slice))
          return failure();
        slices.push_back(*slice);
        return success();
      })))
    return failure();
  if (slices.size() == 1)
    return slices[0];
  return e.built(ConcatenateOp::create(e.b, e.loc, e.placeholder, slices, axis));
}

/// columns [N, S..., window * C] . kernel [S..., C, O] -> [N, S..., O].
FailureOr<Value> contractPatches(PrimitiveEmitter &e, Value columns, Value kernel,
                                 int64_t windowSize, int64_t channels, int64_t features,
                                 TypeAttr preferred) {
  FailureOr<Value> weights = reshapeTo(e, kernel, {windowSize * channels, features});
  if (failed(weights))
    return failure();
  int64_t last = cast<RankedTensorType>(columns.getType()).getRank() - 1;
  return e.built(DotGeneralOp::create(e.b, e.loc, e.placeholder, columns, *weights,
                                      SmallVector<int64_t>{last}, SmallVector<int64_t>{0},
                                      SmallVector<int64_t>{}, SmallVector<int64_t>{}, preferred));
}

/// The grouped contraction: columns [N, S..., window * G * Cg] (channel
/// c = g * Cg + cg) and kernel [S..., Cg, G * Og] (feature o = g * Og + og)
/// as [G, M, window * Cg] . [G, window * Cg, Og] batched over G (M = N times
/// the output positions), back to [N, S..., G * Og].
FailureOr<Value> contractGroupedPatches(PrimitiveEmitter &e, Value columns, Value kernel,
                                        int64_t windowSize, int64_t groups,
                                        int64_t groupChannels, int64_t groupFeatures,
                                        TypeAttr preferred) {
  auto cType = cast<RankedTensorType>(columns.getType());
  ArrayRef<int64_t> lead = cType.getShape().drop_back(); // N, S...
  int64_t positions = 1;
  for (int64_t d : lead)
    positions *= d;
  auto transpose = [&](FailureOr<Value> v, ArrayRef<int64_t> perm) -> FailureOr<Value> {
    if (failed(v))
      return failure();
    return e.built(TransposeOp::create(e.b, e.loc, e.placeholder, *v, perm));
  };
  // [M, window, G, Cg] -> [G, M, window, Cg] -> [G, M, window * Cg].
  FailureOr<Value> lhs = transpose(reshapeTo(e, columns, {positions, windowSize, groups, groupChannels}),
                                   {2, 0, 1, 3});
  if (failed(lhs))
    return failure();
  lhs = reshapeTo(e, *lhs, {groups, positions, windowSize * groupChannels});
  // [window, Cg, G, Og] -> [G, window, Cg, Og] -> [G, window * Cg, Og].
  FailureOr<Value> rhs = transpose(
      reshapeTo(e, kernel, {windowSize, groupChannels, groups, groupFeatures}), {2, 0, 1, 3});
  if (failed(rhs) || failed(lhs))
    return failure();
  rhs = reshapeTo(e, *rhs, {groups, windowSize * groupChannels, groupFeatures});
  if (failed(rhs))
    return failure();
  // [G, M, Og] -> [M, G, Og] -> [N, S..., G * Og].
  FailureOr<Value> product = e.built(DotGeneralOp::create(
      e.b, e.loc, e.placeholder, *lhs, *rhs, SmallVector<int64_t>{2}, SmallVector<int64_t>{1},
      SmallVector<int64_t>{0}, SmallVector<int64_t>{0}, preferred));
  product = transpose(product, {1, 0, 2});
  if (failed(product))
    return failure();
  SmallVector<int64_t> outShape(lead);
  outShape.push_back(groups * groupFeatures);
  return reshapeTo(e, *product, outShape);
}

/// batch_group_count = B (the kernel gradient of a grouped convolution):
/// the input batch is B blocks of N / B, and output feature o reads block
/// o / (O / B) (XLA's definition), so columns [N, S..., K] (K = window * C)
/// become [B, M, K] (M = N / B times the output positions) against the
/// kernel [K, O] as [B, K, O / B], batched over B, back to
/// [N / B, S..., O].
FailureOr<Value> contractBatchGroupedPatches(PrimitiveEmitter &e, Value columns, Value kernel,
                                             int64_t depth, int64_t groups,
                                             int64_t groupFeatures, TypeAttr preferred) {
  auto cType = cast<RankedTensorType>(columns.getType());
  int64_t positions = 1;
  for (int64_t d : cType.getShape().drop_back())
    positions *= d;
  FailureOr<Value> lhs = reshapeTo(e, columns, {groups, positions / groups, depth});
  FailureOr<Value> rhs = reshapeTo(e, kernel, {depth, groups, groupFeatures});
  if (failed(lhs) || failed(rhs))
    return failure();
  rhs = e.built(TransposeOp::create(e.b, e.loc, e.placeholder, *rhs, ArrayRef<int64_t>{1, 0, 2}));
  if (failed(rhs))
    return failure();
  FailureOr<Value> product = e.built(DotGeneralOp::create(
      e.b, e.loc, e.placeholder, *lhs, *rhs, SmallVector<int64_t>{2}, SmallVector<int64_t>{1},
      SmallVector<int64_t>{0}, SmallVector<int64_t>{0}, preferred));
  if (failed(product))
    return failure();
  product = e.built(
      TransposeOp::create(e.b, e.loc, e.placeholder, *product, ArrayRef<int64_t>{1, 0, 2}));
  if (failed(product))
    return failure();
  SmallVector<int64_t> outShape(cType.getShape().drop_back());
  outShape[0] /= groups;
  outShape.push_back(groups * groupFeatures);
  return reshapeTo(e, *product, outShape);
}

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
  if (*featureGroups < 1 || *batchGroups < 1 || (*featureGroups > 1 && *batchGroups > 1))
    return e.builder.emitError(where)
           << "conv_general_dilated: feature_group_count and batch_group_count must be >= 1, "
              "one of them 1";
  if (int64_t(rhsDilation->size()) != spatial || int64_t(lhsDilation->size()) != spatial ||
      llvm::any_of(*rhsDilation, [](int64_t d) { return d < 1; }) ||
      llvm::any_of(*lhsDilation, [](int64_t d) { return d < 1; }) ||
      llvm::any_of(*strides, [](int64_t s) { return s < 1; }))
    return e.builder.emitError(where)
           << "conv_general_dilated: strides, lhs_dilation and rhs_dilation must be positive, "
              "one per spatial dimension";
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
    if (lh->size() != 2)
      return e.builder.emitError(pair.loc)
             << "conv_general_dilated: padding pairs must be (low, high)";
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
  int64_t channels = inType.getDimSize(rank - 1), groups = *featureGroups;
  int64_t features = kType.getDimSize(spatial + 1);
  if (channels % groups != 0 || features % groups != 0)
    return e.builder.emitError(where)
           << "conv_general_dilated: feature_group_count " << groups
           << " must divide the input's features (" << channels << ") and the kernel's ("
           << features << ")";
  int64_t batchGroupCount = *batchGroups, batch = inType.getDimSize(0);
  if (batch % batchGroupCount != 0 || features % batchGroupCount != 0)
    return e.builder.emitError(where)
           << "conv_general_dilated: batch_group_count " << batchGroupCount
           << " must divide the input's batch (" << batch << ") and the kernel's features ("
           << features << ")";
  int64_t groupChannels = channels / groups;
  if (kType.getDimSize(spatial) != groupChannels)
    return e.builder.emitError(where) << "conv_general_dilated: the kernel's input features ("
                                      << kType.getDimSize(spatial) << ") differ from the input's ("
                                      << channels << ") / feature_group_count (" << groups << ")";

  // Zero padding: lhs dilation's interior zeros, then the edges.
  Value zero = ConstantOp::create(e.b, e.loc, RankedTensorType::get({}, element), 0.0);
  SmallVector<Padding> dims(rank);
  for (int64_t i = 0; i < spatial; ++i)
    dims[1 + i] = {pads[i].first, pads[i].second, (*lhsDilation)[i] - 1};
  FailureOr<Value> paddedOr = padTensor(e, *input, zero, dims, padding->value.loc);
  if (failed(paddedOr))
    return failure();
  Value padded = *paddedOr;

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

  int64_t positions = 1;
  for (int64_t o : outSize)
    positions *= o;
  TypeAttr preferredAttr = *preferred ? TypeAttr::get(*preferred) : TypeAttr();
  FailureOr<Value> product = failure();
  if (groups == 1 && batchGroupCount == 1 && positions > 0 && positions < windowSize) {
    // Fewer output positions than window offsets (the kernel gradient of a
    // convolution is one whose window is the output's spatial size): one
    // slice per output position instead, its whole receptive field
    // [N, window..., C] as a row [N, 1, window * C] of the same
    // (offsets major, channels minor) order, the rows concatenated to
    // [N, positions, window * C]. The contraction is the same dot_general
    // over the same K in the same order; 9 slices where there were 196.
    FailureOr<Value> columns =
        concatenatedSlices(e, padded, outSize, *strides, window, *rhsDilation,
                           {batch, 1, windowSize * channels}, /*axis=*/1);
    if (failed(columns))
      return failure();
    product = contractPatches(e, *columns, *kernel, windowSize, channels, features, preferredAttr);
    if (failed(product))
      return failure();
    SmallVector<int64_t> outShape{batch};
    llvm::append_range(outShape, outSize);
    outShape.push_back(features);
    product = reshapeTo(e, *product, outShape);
  } else {
    // One strided slice per window offset, offsets in row-major order.
    FailureOr<Value> columns = concatenatedSlices(e, padded, window, *rhsDilation, outSize,
                                                  *strides, /*rowShape=*/{}, rank - 1);
    if (failed(columns))
      return failure();
    product = groups > 1
                  ? contractGroupedPatches(e, *columns, *kernel, windowSize, groups,
                                           groupChannels, features / groups, preferredAttr)
              : batchGroupCount > 1
                  ? contractBatchGroupedPatches(e, *columns, *kernel, windowSize * channels,
                                                batchGroupCount, features / batchGroupCount,
                                                preferredAttr)
                  : contractPatches(e, *columns, *kernel, windowSize, channels, features,
                                    preferredAttr);
  }
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
