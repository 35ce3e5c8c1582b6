//===- ParallelScanEmitter.cpp - batch-parallel scans as loops ------------===//
//
// See ParallelScanEmitter.h. With vector lanes over strided xs/ys (jax-ml/jax#2491:
// one system per row), the step loop runs in blocks of `lanes` steps: before
// a block, each strided xs has its lanes x lanes block of rows transposed
// into a small tile (TileTranspose.h), the block's steps read whole vectors
// from it, and strided ys leave the same way after the block. Small tiles
// keep the iteration's stack in L1 and let the out-of-order core overlap the
// shuffles with the step chain's latency; the rows of the iteration
// `prefetch-distance` ahead (CpuCostModel::scanPrefetchDistance by default,
// the next one: two iterations' rows would not fit in L1) are prefetched a
// block at a time, one prefetch per cache line (CpuCostModel::cacheLineBytes):
// the hardware prefetcher does not follow `lanes` interleaved rows.
//
// Exact: a block reads and writes the same elements at the same steps as
// the plain step loop, in the same order of steps (blocks in reverse order
// for a reverse scan, steps within a block too); prefetches have no effect
// on values.
//
//===----------------------------------------------------------------------===//
#include "lowering/ParallelScanEmitter.h"
#include "lowering/LaxToLinalg.h"
#include "lowering/ScalarizeElementwise.h"
#include "lowering/TileTranspose.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace kiln::lax;
using namespace kiln::parallel_scan;

namespace kiln::parallel_scan {

OuterKind classifyOuter(Value v, ArrayRef<int64_t> batchShape) {
  RankedTensorType type = tensorTypeOf(v);
  if (!type || type.getElementType().isUnsignedInteger())
    return OuterKind::Unsupported;
  if (auto c = v.getDefiningOp<ConstantOp>(); c && isa<SplatElementsAttr>(c.getValue()))
    return OuterKind::SplatConstant;
  if (type.getShape() == batchShape)
    return OuterKind::PerElement;
  if (type.getRank() == 0)
    return OuterKind::Scalar;
  return OuterKind::Unsupported;
}

std::optional<std::string> whyNotBatchParallel(ScanOp scan, ArrayRef<int64_t> batch) {
  Block &body = scan.getBodyBlock();
  auto batchTyped = [&](Value v) {
    RankedTensorType t = tensorTypeOf(v);
    return t && t.getShape() == batch && !t.getElementType().isUnsignedInteger();
  };
  for (BlockArgument arg : body.getArguments().drop_front(scan.getNumConsts()))
    if (!batchTyped(arg))
      return std::string("a carry or xs slice does not have the batch shape");
  for (auto [arg, c] : llvm::zip(scan.getConstArgs(), scan.getConsts()))
    if (classifyOuter(c, batch) == OuterKind::Unsupported)
      return std::string("a const is neither batch-shaped, scalar nor a splat");
  for (Operation &op : body.without_terminator()) {
    if (op.getNumRegions() != 0)
      return std::string("the body has an op with regions");
    if (auto c = dyn_cast<ConstantOp>(op)) {
      if (!isa<SplatElementsAttr>(c.getValue()))
        return std::string("the body has a non-splat constant");
      continue;
    }
    if (!kiln::lowering::isScalarizable(&op))
      return "'" + op.getName().getStringRef().str() + "' is not elementwise";
    if (!llvm::all_of(op.getResults(), batchTyped))
      return std::string("a body value does not have the batch shape");
    for (Value operand : op.getOperands()) {
      if (batchTyped(operand) || (isa<SelectNOp>(op) && tensorTypeOf(operand).getRank() == 0 &&
                                  operand.getParentBlock() != &body))
        continue;
      if (operand.getParentBlock() == &body ||
          classifyOuter(operand, batch) == OuterKind::Unsupported)
        return std::string("an operand does not have the batch shape");
    }
  }
  // What the body yields is stored per batch element: batch-shaped values
  // of the body (a ys slice of another shape, or a value from outside the
  // body, has no per-element scalar to store).
  for (Value v : cast<YieldOp>(body.getTerminator()).getValues())
    if (!batchTyped(v) || v.getParentBlock() != &body)
      return std::string("a yielded value is not a batch-shaped value of the body");
  return std::nullopt;
}

/// Index list of a stacked tensor: the batch element `p` with `step` inserted
/// at the scan axis.
static SmallVector<Value> stackedIndices(ValueRange p, Value step, int64_t axis) {
  SmallVector<Value> indices(p);
  indices.insert(indices.begin() + axis, step);
  return indices;
}

SmallVector<Value> ElementAccess::indices(ValueRange p, Value step) const {
  // A scalar scratch's step axis is `axis` too (scratchFor); vector lanes
  // use tiles instead.
  return stackedIndices(p, step, axis);
}

ElementAccess globalAccess(Value buffer, int64_t axis) {
  ElementAccess access;
  access.buffer = buffer;
  access.axis = axis;
  access.elementType = cast<MemRefType>(buffer.getType()).getElementType();
  return access;
}

} // namespace kiln::parallel_scan

Value ParallelScanEmitter::bufferOf(Value tensor) {
  auto [it, inserted] = buffers.try_emplace(tensor);
  if (inserted) {
    auto type = cast<RankedTensorType>(tensor.getType());
    it->second = kiln::lowering::bufferReadHere(
        rewriter, loc, MemRefType::get(type.getShape(), type.getElementType()), tensor);
  }
  return it->second;
}

Value ParallelScanEmitter::allocFor(Type tensorType) {
  auto type = cast<RankedTensorType>(tensorType);
  return memref::AllocOp::create(rewriter, loc,
                                 MemRefType::get(type.getShape(), type.getElementType()));
}

ElementAccess ParallelScanEmitter::scratchFor(Type elementType, int64_t length) {
  ElementAccess access;
  access.scratch = true;
  access.elementType = elementType;
  if (laneCount > 1) {
    access.scratchSlot = numScratchSlots++;
    return access;
  }
  SmallVector<int64_t> shape(batch);
  access.axis = stepMajorScratch ? 0 : int64_t(batch.size());
  shape.insert(shape.begin() + access.axis, length);
  access.buffer = memref::AllocOp::create(rewriter, loc, MemRefType::get(shape, elementType));
  return access;
}

Value ParallelScanEmitter::allocTile(OpBuilder &b, Type elementType, int64_t rows) {
  assert(tileArena && "tiles exist only in the body of a vectorized parallel loop");
  // The tiles of one iteration are views of one stack buffer, each at a
  // multiple of a cache line: the code addresses them all from one pointer
  // (separate allocas each took a register, and with 8-12 of them the
  // block copies spilled and reloaded them).
  int64_t offset = llvm::alignTo(tileArenaBytes, costModel.cacheLineBytes);
  tileArenaBytes = offset + rows * laneCount * ((elementType.getIntOrFloatBitWidth() + 7) / 8);
  auto view = memref::ViewOp::create(b, loc, MemRefType::get({rows, laneCount}, elementType),
                                     tileArena, constantIndex(b, offset), ValueRange{});
  tileViews.push_back(view);
  return view;
}

SmallVector<ElementAccess>
ParallelScanEmitter::withScratchTiles(OpBuilder &b, ArrayRef<ElementAccess> accesses,
                                      SmallVectorImpl<Value> &tiles, int64_t length) {
  SmallVector<ElementAccess> result(accesses);
  for (ElementAccess &a : result) {
    if (a.scratchSlot < 0)
      continue;
    if (tiles.size() <= size_t(a.scratchSlot))
      tiles.resize(a.scratchSlot + 1);
    if (!tiles[a.scratchSlot])
      tiles[a.scratchSlot] = allocTile(b, a.elementType, length);
    a.tile = tiles[a.scratchSlot];
  }
  return result;
}

Value ParallelScanEmitter::constantIndex(OpBuilder &b, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

Value ParallelScanEmitter::splatConstant(OpBuilder &b, Attribute value, const Lanes &lanes) {
  auto typed = cast<TypedAttr>(value);
  if (lanes.isVector())
    typed = DenseElementsAttr::get(cast<VectorType>(lanes.typeOf(typed.getType())), typed);
  return arith::ConstantOp::create(b, loc, typed);
}

/// Loads element p (the lanes from p: contiguous in `buffer`, those past the
/// batch masked) of `buffer` at `indices`.
Value ParallelScanEmitter::load(OpBuilder &b, Value buffer, ValueRange indices,
                                const Lanes &lanes) {
  if (!lanes.isVector())
    return memref::LoadOp::create(b, loc, buffer, indices);
  Type elementType = cast<MemRefType>(buffer.getType()).getElementType();
  return vector::MaskedLoadOp::create(b, loc, cast<VectorType>(lanes.typeOf(elementType)), buffer,
                                      indices, lanes.mask,
                                      splatConstant(b, b.getZeroAttr(elementType), lanes));
}

/// Stores `value` as element p (the lanes from p) of `buffer`, as `load`.
void ParallelScanEmitter::store(OpBuilder &b, Value value, Value buffer, ValueRange indices,
                                const Lanes &lanes) {
  if (!lanes.isVector())
    memref::StoreOp::create(b, loc, value, buffer, indices);
  else
    vector::MaskedStoreOp::create(b, loc, buffer, indices, lanes.mask, value);
}

Value ParallelScanEmitter::loadAccess(OpBuilder &b, const ElementAccess &access, ValueRange p,
                                      Value step, Value local, const Lanes &lanes) {
  if (access.tile) // whole vectors: a lane past the batch holds garbage, never stored
    return vector::LoadOp::create(b, loc, cast<VectorType>(lanes.typeOf(access.elementType)),
                                  access.tile,
                                  ValueRange{access.blockTile ? local : step, constantIndex(b, 0)});
  return load(b, access.buffer, access.indices(p, step), lanes);
}

void ParallelScanEmitter::storeAccess(OpBuilder &b, Value value, const ElementAccess &access,
                                      ValueRange p, Value step, Value local, const Lanes &lanes) {
  if (access.tile) {
    vector::StoreOp::create(b, loc, value, access.tile,
                            ValueRange{access.blockTile ? local : step, constantIndex(b, 0)});
    return;
  }
  store(b, value, access.buffer, access.indices(p, step), lanes);
}

/// Element p (the lanes from p) of a tensor defined outside the loops.
Value ParallelScanEmitter::elementOf(OpBuilder &b, Value v, ValueRange p, const Lanes &lanes) {
  switch (classifyOuter(v, batch)) {
  case OuterKind::SplatConstant:
    return splatConstant(
        b, cast<SplatElementsAttr>(v.getDefiningOp<ConstantOp>().getValue()).getSplatValue<Attribute>(),
        lanes);
  case OuterKind::PerElement:
    return load(b, bufferOf(v), p, lanes);
  case OuterKind::Scalar: {
    Value scalar = tensor::ExtractOp::create(b, loc, v, ValueRange{});
    if (!lanes.isVector())
      return scalar;
    return vector::BroadcastOp::create(b, loc, lanes.typeOf(scalar.getType()), scalar);
  }
  case OuterKind::Unsupported:
    break;
  }
  llvm_unreachable("checked by whyNotBatchParallel");
}

void ParallelScanEmitter::prepareInputs(ScanOp scan) {
  for (Value v : outerValues(scan))
    if (classifyOuter(v, batch) == OuterKind::PerElement)
      bufferOf(v);
}

llvm::SetVector<Value> ParallelScanEmitter::outerValues(ScanOp scan) {
  llvm::SetVector<Value> outer;
  Block &body = scan.getBodyBlock();
  for (Operation &op : body.without_terminator())
    for (Value operand : op.getOperands())
      if (operand.getParentBlock() != &body)
        outer.insert(operand);
  for (Value v : llvm::concat<Value>(scan.getConsts(), scan.getInits()))
    outer.insert(v);
  return outer;
}

void ParallelScanEmitter::emitLoop(OpBuilder &b, ScanOp scan, ArrayRef<LaneGroup> groups,
                                   ArrayRef<SmallVector<ElementAccess>> xsAccess,
                                   ArrayRef<SmallVector<ElementAccess>> ysAccess,
                                   ArrayRef<Value> carryOut) {
  Block &body = scan.getBodyBlock();
  size_t numGroups = groups.size(), numCarry = scan.getNumCarry();
  // Vector lanes over strided xs/ys (one system per row in jax-ml/jax#2491): the
  // rows go through block tiles (see the file comment), so the step loop
  // reads and writes whole vectors instead of gathering and scattering.
  SmallVector<SmallVector<ElementAccess>> xs(xsAccess), ys(ysAccess);
  bool blocked = false;
  for (size_t g = 0; g < numGroups; ++g)
    if (groups[g].lanes.isVector())
      for (ElementAccess &a : llvm::concat<ElementAccess>(xs[g], ys[g]))
        if (isStridedGlobal(a)) {
          a.tile = allocTile(b, a.elementType, laneCount);
          a.blockTile = blocked = true;
        }
  SmallVector<IRMapping> outerScalars(numGroups);
  SmallVector<Value> inits; // group by group
  for (auto [g, group] : llvm::enumerate(groups)) {
    for (Value v : outerValues(scan))
      outerScalars[g].map(v, elementOf(b, v, group.p, group.lanes));
    for (Value v : scan.getInits())
      inits.push_back(outerScalars[g].lookup(v));
  }

  // One step of every group, op by op across the groups: their chains are
  // independent, so each op of one group can issue while the same op of
  // the others waits on latency.
  auto emitStep = [&](OpBuilder &fb, Value step, Value local,
                      ValueRange carries) -> SmallVector<Value> {
    SmallVector<IRMapping> scalars(outerScalars);
    for (size_t g = 0; g < numGroups; ++g) {
      for (auto [arg, c] : llvm::zip(scan.getConstArgs(), scan.getConsts()))
        scalars[g].map(arg, outerScalars[g].lookup(c));
      for (auto [arg, carry] :
           llvm::zip(scan.getCarryArgs(), carries.slice(g * numCarry, numCarry)))
        scalars[g].map(arg, carry);
      for (auto [arg, access] : llvm::zip(scan.getXSliceArgs(), xs[g]))
        scalars[g].map(arg, loadAccess(fb, access, groups[g].p, step, local, groups[g].lanes));
    }
    for (Operation &op : body.without_terminator()) {
      if (auto c = dyn_cast<ConstantOp>(op)) { // one splat serves every group
        Value splat = splatConstant(
            fb, cast<SplatElementsAttr>(c.getValue()).getSplatValue<Attribute>(),
            groups.front().lanes);
        for (IRMapping &groupScalars : scalars)
          groupScalars.map(op.getResult(0), splat);
        continue;
      }
      for (IRMapping &groupScalars : scalars)
        groupScalars.map(op.getResult(0),
                         kiln::lowering::scalarizeElementwise(fb, &op, llvm::map_to_vector(op.getOperands(), [&](Value v) {
                                                return groupScalars.lookup(v);
                                              })));
    }
    ValueRange yielded = cast<YieldOp>(body.getTerminator()).getValues();
    SmallVector<Value> next;
    for (size_t g = 0; g < numGroups; ++g) {
      for (auto [v, access] : llvm::zip(yielded.drop_front(numCarry), ys[g]))
        if (access.buffer || access.tile)
          storeAccess(fb, scalars[g].lookup(v), access, groups[g].p, step, local, groups[g].lanes);
      for (Value v : yielded.take_front(numCarry))
        next.push_back(scalars[g].lookup(v));
    }
    return next;
  };

  SmallVector<Value> finals;
  if (blocked) {
    finals = emitBlocks(b, scan, groups, xs, ys, inits, emitStep);
  } else {
    Value last = constantIndex(b, scan.getLength() - 1);
    auto loop = scf::ForOp::create(
        b, loc, constantIndex(b, 0), constantIndex(b, scan.getLength()), constantIndex(b, 1), inits,
        [&](OpBuilder &fb, Location fl, Value iv, ValueRange carries) {
          Value step = scan.getReverse() ? (Value)arith::SubIOp::create(fb, fl, last, iv) : iv;
          scf::YieldOp::create(fb, fl, emitStep(fb, step, step, carries));
        });
    finals = SmallVector<Value>(loop.getResults());
  }
  for (auto [g, group] : llvm::enumerate(groups))
    for (auto [result, out] :
         llvm::zip(ArrayRef<Value>(finals).slice(g * numCarry, numCarry), carryOut))
      if (out)
        store(b, result, out, group.p, group.lanes);
}

SmallVector<Value> ParallelScanEmitter::emitBlocks(OpBuilder &b, ScanOp scan,
                                                   ArrayRef<LaneGroup> groups,
                                                   ArrayRef<SmallVector<ElementAccess>> xs,
                                                   ArrayRef<SmallVector<ElementAccess>> ys,
                                                   ValueRange inits, StepFn step) {
  int64_t length = scan.getLength();
  int64_t numFull = length / laneCount, rest = length % laneCount;
  bool reverse = scan.getReverse();
  SmallVector<Value> allValid = llvm::map_to_vector(groups, [&](const LaneGroup &group) -> Value {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, group.lanes.valid,
                                 constantIndex(b, laneCount));
  });
  // Steps [start, start + n): copy in, prefetch ahead, run, copy out.
  auto block = [&](OpBuilder &bb, Value start, int64_t n, ValueRange carries) {
    for (auto [g, group] : llvm::enumerate(groups))
      for (const ElementAccess &a : xs[g])
        if (a.blockTile)
          copyBlock(bb, a, group.p, group.lanes, allValid[g], start, n, /*toTile=*/true);
    // The groups' rows are consecutive (group g starts g * lanes rows after
    // group 0), so the iteration ahead reads one contiguous range of each
    // buffer: one prefetch stream per buffer, from group 0's first row.
    for (auto [accesses, forWrite] : {std::pair(ArrayRef(xs[0]), false), std::pair(ArrayRef(ys[0]), true)})
      for (const ElementAccess &a : accesses)
        if (a.blockTile)
          prefetchAhead(bb, a, groups[0].p, start, n, length, forWrite);
    auto inner = scf::ForOp::create(
        bb, loc, constantIndex(bb, 0), constantIndex(bb, n), constantIndex(bb, 1), carries,
        [&](OpBuilder &ib, Location il, Value i, ValueRange innerCarries) {
          Value local =
              reverse ? (Value)arith::SubIOp::create(ib, il, constantIndex(ib, n - 1), i) : i;
          Value global = arith::AddIOp::create(ib, il, start, local);
          scf::YieldOp::create(ib, il, step(ib, global, local, innerCarries));
        });
    for (auto [g, group] : llvm::enumerate(groups))
      for (const ElementAccess &a : ys[g])
        if (a.blockTile)
          copyBlock(bb, a, group.p, group.lanes, allValid[g], start, n, /*toTile=*/false);
    return SmallVector<Value>(inner.getResults());
  };
  auto wholeBlocks = [&](ValueRange carries) -> SmallVector<Value> {
    if (numFull == 0)
      return llvm::to_vector(carries);
    auto loop = scf::ForOp::create(
        b, loc, constantIndex(b, 0), constantIndex(b, numFull), constantIndex(b, 1), carries,
        [&](OpBuilder &lb, Location ll, Value j, ValueRange loopCarries) {
          Value index =
              reverse ? (Value)arith::SubIOp::create(lb, ll, constantIndex(lb, numFull - 1), j) : j;
          Value start = arith::MulIOp::create(lb, ll, index, constantIndex(lb, laneCount));
          scf::YieldOp::create(lb, ll, block(lb, start, laneCount, loopCarries));
        });
    return SmallVector<Value>(loop.getResults());
  };
  auto restBlock = [&](ValueRange carries) -> SmallVector<Value> {
    if (rest == 0)
      return llvm::to_vector(carries);
    return block(b, constantIndex(b, numFull * laneCount), rest, carries);
  };
  // A reverse scan starts at the last step: the partial block comes first.
  return reverse ? wholeBlocks(restBlock(inits)) : restBlock(wholeBlocks(inits));
}

void ParallelScanEmitter::copyBlock(OpBuilder &b, const ElementAccess &a, ValueRange p,
                                    const Lanes &lanes, Value allValid, Value start, int64_t n,
                                    bool toTile) {
  int64_t rank = cast<MemRefType>(a.buffer.getType()).getRank();
  // Each element's steps contiguous right after its lane dimension: a whole
  // block with all lanes valid goes through registers. (The partial last
  // block goes element by element: transposing it too, under a mask, was no
  // faster and doubled the transpose code; docs/performance.md.)
  bool transposable = n == laneCount && a.axis == rank - 1 && a.laneDim(batch.size()) == rank - 2;
  if (!transposable) {
    copyBlockScalar(b, a, p, lanes.valid, start, n, toTile);
    return;
  }
  scf::IfOp::create(
      b, loc, allValid,
      [&](OpBuilder &tb, Location) {
        int64_t registerElements = laneCount >= costModel.pairedTransposeMinLanes
                                       ? registerBits / a.elementType.getIntOrFloatBitWidth()
                                       : 0;
        copyTileBlock(tb, loc, a.buffer, stackedIndices(p, start, a.axis), a.tile, laneCount,
                      toTile, registerElements);
        scf::YieldOp::create(tb, loc);
      },
      [&](OpBuilder &eb, Location) {
        copyBlockScalar(eb, a, p, lanes.valid, start, n, toTile);
        scf::YieldOp::create(eb, loc);
      });
}

void ParallelScanEmitter::copyBlockScalar(OpBuilder &b, const ElementAccess &a, ValueRange p,
                                          Value valid, Value start, int64_t n, bool toTile) {
  Value zero = constantIndex(b, 0), one = constantIndex(b, 1);
  scf::ForOp::create(
      b, loc, zero, valid, one, ValueRange{}, [&](OpBuilder &lb, Location, Value l, ValueRange) {
        SmallVector<Value> element(p);
        element.back() = arith::AddIOp::create(lb, loc, p.back(), l);
        scf::ForOp::create(
            lb, loc, zero, constantIndex(lb, n), one, ValueRange{},
            [&](OpBuilder &sb, Location, Value i, ValueRange) {
              Value step = arith::AddIOp::create(sb, loc, start, i);
              SmallVector<Value> global = stackedIndices(element, step, a.axis);
              SmallVector<Value> tile = {i, l};
              if (toTile)
                memref::StoreOp::create(sb, loc, memref::LoadOp::create(sb, loc, a.buffer, global),
                                        a.tile, tile);
              else
                memref::StoreOp::create(sb, loc, memref::LoadOp::create(sb, loc, a.tile, tile),
                                        a.buffer, global);
              scf::YieldOp::create(sb, loc);
            });
        scf::YieldOp::create(lb, loc);
      });
}

void ParallelScanEmitter::prefetchAhead(OpBuilder &b, const ElementAccess &a, ValueRange p,
                                        Value start, int64_t n, int64_t length, bool forWrite) {
  auto type = cast<MemRefType>(a.buffer.getType());
  int64_t rank = type.getRank();
  // Only rows laid out one after another ([..., lane, step], identity
  // layout, static shape) make the iteration's part of the buffer one
  // contiguous range.
  if (prefetchDistance <= 0 || a.axis != rank - 1 || a.laneDim(batch.size()) != rank - 2 ||
      !type.getLayout().isIdentity() || !type.hasStaticShape())
    return;
  // The iteration `prefetchDistance` ahead (rows = lanes * groups rows per
  // iteration) touches rows [ahead, ahead + rows), rows * length
  // consecutive elements from row `ahead`'s first; this block's share of
  // them is the elements [start * rows, (start + n) * rows), one prefetch
  // per cache line (CpuCostModel::cacheLineBytes), in the buffer seen as
  // one dimension. Addresses past its end are clamped to its last element
  // (a prefetch never faults, but its address must be valid).
  int64_t rows = laneCount * groupCount;
  SmallVector<int64_t> strides = computeStrides(type.getShape());
  Value first = arith::MulIOp::create(b, loc, start, constantIndex(b, rows));
  for (auto [d, index] : llvm::enumerate(p))
    first = arith::AddIOp::create(
        b, loc, first, arith::MulIOp::create(b, loc, index, constantIndex(b, strides[d])));
  first = arith::AddIOp::create(
      b, loc, first, constantIndex(b, prefetchDistance * rows * strides[rank - 2]));
  SmallVector<ReassociationIndices> all = {llvm::to_vector(llvm::seq<int64_t>(0, rank))};
  Value flat = memref::CollapseShapeOp::create(b, loc, a.buffer, all);
  int64_t elementsPerLine =
      std::max<int64_t>(1, costModel.cacheLineBytes * 8 / a.elementType.getIntOrFloatBitWidth());
  int64_t lines = (n * rows + elementsPerLine - 1) / elementsPerLine;
  Value last = constantIndex(b, type.getNumElements() - 1);
  for (int64_t k = 0; k < lines; ++k) {
    Value element = arith::MinSIOp::create(
        b, loc, arith::AddIOp::create(b, loc, first, constantIndex(b, k * elementsPerLine)), last);
    memref::PrefetchOp::create(b, loc, flat, ValueRange{element}, forWrite,
                               /*localityHint=*/costModel.scanPrefetchLocalityHint,
                               /*isDataCache=*/true);
  }
}

void ParallelScanEmitter::emitParallel(function_ref<void(OpBuilder &, ArrayRef<LaneGroup>)> body,
                                       int64_t work) {
  if (batch.empty()) {
    body(rewriter, LaneGroup{});
    return;
  }
  Value zero = constantIndex(rewriter, 0);
  Value one = constantIndex(rewriter, 1);
  SmallVector<Value> lbs(batch.size(), zero), steps(batch.size(), one), ubs;
  for (int64_t d : batch)
    ubs.push_back(constantIndex(rewriter, d));
  if (laneCount > 1)
    steps.back() = constantIndex(rewriter, laneCount * groupCount);
  auto parallel = scf::ParallelOp::create(
      rewriter, loc, lbs, ubs, steps, [&](OpBuilder &b, Location, ValueRange p) {
        if (laneCount == 1) {
          body(b, LaneGroup{llvm::to_vector(p), Lanes{}});
          return;
        }
        // Group g's lanes start g * lanes elements after p; in the last
        // iteration a whole group may lie past the batch (no valid lane).
        SmallVector<LaneGroup> groups;
        for (int64_t g = 0; g < groupCount; ++g) {
          LaneGroup group{llvm::to_vector(p), Lanes{}};
          if (g > 0)
            group.p.back() =
                arith::AddIOp::create(b, loc, p.back(), constantIndex(b, g * laneCount));
          group.lanes.count = laneCount;
          group.lanes.valid = arith::MinSIOp::create(
              b, loc, constantIndex(b, laneCount),
              arith::SubIOp::create(b, loc, constantIndex(b, batch.back()), group.p.back()));
          if (g > 0) // group 0 starts inside the batch
            group.lanes.valid = arith::MaxSIOp::create(b, loc, zero, group.lanes.valid);
          group.lanes.mask = laneMask(b, group.lanes.valid);
          groups.push_back(std::move(group));
        }
        // The tiles are views of one alloca of this iteration (the CPU
        // pipeline keeps it per iteration with kiln-parallel-alloca-scopes),
        // sized once the body has asked for all of them.
        auto bytes = [&](int64_t n) { return MemRefType::get({n}, b.getI8Type()); };
        auto arena = memref::AllocaOp::create(b, loc, bytes(0));
        tileArena = arena;
        tileArenaBytes = 0;
        tileViews.clear();
        body(b, groups);
        if (tileViews.empty()) {
          arena.erase();
        } else {
          OpBuilder ab(arena);
          auto sized = memref::AllocaOp::create(ab, loc, bytes(tileArenaBytes), ValueRange{},
                                                ab.getI64IntegerAttr(costModel.cacheLineBytes));
          for (memref::ViewOp view : tileViews)
            view.getSourceMutable().assign(sized);
          arena.erase();
        }
        tileArena = nullptr;
      });
  // The CPU pipeline runs these on all cores unless `work` is too small for
  // a dispatch (kiln-one-parallel-dimension).
  parallel->setAttr("kiln.parallel_scan", rewriter.getI64IntegerAttr(work));
}

/// Not writable: a consumer that updates the result in place (a scatter, a
/// dynamic_update_slice, a loop carried through it) gets a copy. Writable,
/// one-shot bufferization wrote into `buffer` itself, which is also read
/// directly where the result is returned (the DPS wrapper's
/// to_buffer(to_tensor(buffer)) folds to `buffer`): the JIT returned a
/// scan's carry with a later scatter's writes in it
/// (tests/differential/regressions/parallel-scan-result-in-place.mlir).
Value ParallelScanEmitter::asTensor(Value buffer, Type type) {
  return bufferization::ToTensorOp::create(rewriter, loc, type, buffer, /*restrict=*/true,
                                           /*writable=*/false);
}

bool ParallelScanEmitter::isStridedGlobal(const ElementAccess &a) const {
  if (!a.buffer || a.scratch)
    return false;
  return a.laneDim(batch.size()) != cast<MemRefType>(a.buffer.getType()).getRank() - 1;
}

/// The first `valid` lanes; a constant all-true mask when the iterations'
/// lanes divide the last batch dimension (folded away later).
Value ParallelScanEmitter::laneMask(OpBuilder &b, Value valid) {
  auto maskType = VectorType::get({laneCount}, b.getI1Type());
  if (batch.back() % (laneCount * groupCount) == 0)
    return vector::ConstantMaskOp::create(b, loc, maskType, ArrayRef<int64_t>{laneCount});
  return vector::CreateMaskOp::create(b, loc, maskType, ValueRange{valid});
}
