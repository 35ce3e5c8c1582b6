//===- ParallelScanEmitter.h - batch-parallel scans as loops ----*- C++ -*-===//
//
// The emitter behind kiln-scan-to-parallel-loops (ScanToParallelLoops.cpp):
// which scans are batch-parallel, how an xs/ys element is read or written
// per batch element and step (global buffers, scratch, [step, lane] tiles),
// and the scf.parallel over the batch with the step loop inside. Included
// by that pass only; split out to keep each file readable.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_REWRITES_SEED_PARALLELSCANEMITTER_H
#define KILN_REWRITES_SEED_PARALLELSCANEMITTER_H

#include "dialect/LaxOps.h"
#include "rewrites/seed/ScalarizeElementwise.h"
#include "rewrites/seed/TileTranspose.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <optional>
#include <string>

namespace kiln::parallel_scan {

using namespace mlir;
using namespace kiln::lax;

inline RankedTensorType tensorTypeOf(Value v) { return dyn_cast<RankedTensorType>(v.getType()); }

/// How a value defined outside the body is read per batch element.
enum class OuterKind { SplatConstant, PerElement, Scalar, Unsupported };

inline OuterKind classifyOuter(Value v, ArrayRef<int64_t> batchShape) {
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

/// Whether every value of the body has the batch shape and every op is an
/// elementwise lax op or a splat constant. Returns the reason otherwise.
inline std::optional<std::string> whyNotBatchParallel(ScanOp scan, ArrayRef<int64_t> batch) {
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
    if (!op.hasTrait<OpTrait::Elementwise>() || !isa<LaxDialect>(op.getDialect()))
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
  return std::nullopt;
}

/// Index list of a stacked tensor: the batch element `p` with `step` inserted
/// at the scan axis.
inline SmallVector<Value> stackedIndices(ValueRange p, Value step, int64_t axis) {
  SmallVector<Value> indices(p);
  indices.insert(indices.begin() + axis, step);
  return indices;
}

/// The batch elements one iteration of the parallel loop handles: element p
/// (scalar), or `count` consecutive elements of the last batch dimension
/// starting at p, those under `mask` inside the batch (vector lanes).
struct Lanes {
  int64_t count = 1;
  Value mask;  // vector<count x i1>
  Value valid; // how many lanes are inside the batch (index)
  bool isVector() const { return count > 1; }
  Type typeOf(Type scalar) const {
    return isVector() ? (Type)VectorType::get({count}, scalar) : scalar;
  }
};

/// Where one xs element is read from or one ys element written to, per batch
/// element `p` and step: a buffer and the indices into it.
struct ElementAccess {
  Value buffer;
  bool scratch = false; // a scratch ys, contiguous per element (a tile with lanes)
  int64_t axis = 0;     // otherwise the stacked axis of a global buffer
  /// With vector lanes: the [step, lane] tile on the stack that stands for
  /// this access during one iteration (a scratch ys, or strided xs/ys copied
  /// in before / out after the step loop), and for a scratch ys its slot.
  Value tile;
  int64_t scratchSlot = -1;
  Type elementType;
  SmallVector<Value> indices(ValueRange p, Value step) const {
    // A scalar scratch is [batch..., step]; vector lanes use tiles instead.
    return stackedIndices(p, step, scratch ? p.size() : axis);
  }
  /// The buffer dimension the lanes run along (the last batch dimension).
  int64_t laneDim(size_t batchRank) const {
    return axis <= int64_t(batchRank) - 1 ? batchRank : batchRank - 1;
  }
};

inline ElementAccess globalAccess(Value buffer, int64_t axis) {
  ElementAccess access;
  access.buffer = buffer;
  access.axis = axis;
  access.elementType = cast<MemRefType>(buffer.getType()).getElementType();
  return access;
}

/// Emits the loops of a group of batch-parallel scans (one scan, or a
/// producer and a consumer of its ys) as one scf.parallel over the batch.
class ParallelScanEmitter {
public:
  ParallelScanEmitter(PatternRewriter &rewriter, Location loc, ArrayRef<int64_t> batch,
                      int64_t lanes)
      : rewriter(rewriter), loc(loc), batch(batch), laneCount(lanes) {}

  /// A read-only buffer of `tensor` (shared by all its readers).
  Value bufferOf(Value tensor) {
    auto [it, inserted] = buffers.try_emplace(tensor);
    if (inserted) {
      auto type = cast<RankedTensorType>(tensor.getType());
      it->second = bufferization::ToBufferOp::create(
          rewriter, loc, MemRefType::get(type.getShape(), type.getElementType()), tensor,
          /*read_only=*/true);
    }
    return it->second;
  }

  Value allocFor(Type tensorType) {
    auto type = cast<RankedTensorType>(tensorType);
    return memref::AllocOp::create(rewriter, loc,
                                   MemRefType::get(type.getShape(), type.getElementType()));
  }

  /// A scratch buffer [batch..., step] for one ys of `length` steps that
  /// only the fused consumer reads, so each element's steps are contiguous.
  /// With vector lanes the scratch is a per-iteration tile instead (`tile`).
  ElementAccess scratchFor(Type elementType, int64_t length) {
    ElementAccess access;
    access.scratch = true;
    access.elementType = elementType;
    if (laneCount > 1) {
      access.scratchSlot = numScratchSlots++;
      return access;
    }
    SmallVector<int64_t> shape(batch);
    shape.push_back(length);
    access.buffer = memref::AllocOp::create(rewriter, loc, MemRefType::get(shape, elementType));
    return access;
  }

  /// A [length, lane] tile on the stack, living for one iteration.
  Value allocTile(OpBuilder &b, Type elementType, int64_t length) {
    return memref::AllocaOp::create(b, loc, MemRefType::get({length, laneCount}, elementType));
  }

  /// The scratch tiles of one iteration, filled into the scratch accesses.
  SmallVector<ElementAccess> withScratchTiles(OpBuilder &b, ArrayRef<ElementAccess> accesses,
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

  /// A splat constant for one element (a vector of lanes).
  Value splatConstant(OpBuilder &b, Attribute value, const Lanes &lanes) {
    auto typed = cast<TypedAttr>(value);
    if (lanes.isVector())
      typed = DenseElementsAttr::get(cast<VectorType>(lanes.typeOf(typed.getType())), typed);
    return arith::ConstantOp::create(b, loc, typed);
  }

  /// Loads element p (the lanes from p: contiguous in `buffer`, those past
  /// the batch masked) of `buffer` at `indices`.
  Value load(OpBuilder &b, Value buffer, ValueRange indices, const Lanes &lanes) {
    if (!lanes.isVector())
      return memref::LoadOp::create(b, loc, buffer, indices);
    Type elementType = cast<MemRefType>(buffer.getType()).getElementType();
    return vector::MaskedLoadOp::create(b, loc, cast<VectorType>(lanes.typeOf(elementType)),
                                        buffer, indices, lanes.mask,
                                        splatConstant(b, b.getZeroAttr(elementType), lanes));
  }

  /// Stores `value` as element p (the lanes from p) of `buffer`, as `load`.
  void store(OpBuilder &b, Value value, Value buffer, ValueRange indices, const Lanes &lanes) {
    if (!lanes.isVector())
      memref::StoreOp::create(b, loc, value, buffer, indices);
    else
      vector::MaskedStoreOp::create(b, loc, buffer, indices, lanes.mask, value);
  }

  Value loadAccess(OpBuilder &b, const ElementAccess &access, ValueRange p, Value step,
                   const Lanes &lanes) {
    if (access.tile) // whole vectors: a lane past the batch holds garbage, never stored
      return vector::LoadOp::create(b, loc, cast<VectorType>(lanes.typeOf(access.elementType)),
                                    access.tile, ValueRange{step, constantIndex(b, 0)});
    SmallVector<Value> indices = access.indices(p, step);
    return load(b, access.buffer, indices, lanes);
  }

  void storeAccess(OpBuilder &b, Value value, const ElementAccess &access, ValueRange p,
                   Value step, const Lanes &lanes) {
    if (access.tile) {
      vector::StoreOp::create(b, loc, value, access.tile, ValueRange{step, constantIndex(b, 0)});
      return;
    }
    SmallVector<Value> indices = access.indices(p, step);
    store(b, value, access.buffer, indices, lanes);
  }

  /// Element p (the lanes from p) of a tensor defined outside the loops.
  Value elementOf(OpBuilder &b, Value v, ValueRange p, const Lanes &lanes) {
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

  /// Prepares buffers for the values `scan` reads from outside its body.
  void prepareInputs(ScanOp scan) {
    for (Value v : outerValues(scan))
      if (classifyOuter(v, batch) == OuterKind::PerElement)
        bufferOf(v);
  }

  static llvm::SetVector<Value> outerValues(ScanOp scan) {
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

  /// Emits, for batch element p (the lanes from p), the step loop of `scan`
  /// and stores its final carries to `carryOut` at p.
  void emitLoop(OpBuilder &b, ScanOp scan, ValueRange p, const Lanes &lanes,
                ArrayRef<ElementAccess> xsAccess, ArrayRef<ElementAccess> ysAccess,
                ArrayRef<Value> carryOut) {
    Block &body = scan.getBodyBlock();
    // Vector lanes over strided xs/ys (one system per row in seed 003): each
    // lane's row is copied into a [step, lane] tile before the step loop (and
    // ys rows out of one after it), so the loop reads and writes whole
    // vectors instead of gathering and scattering at every step.
    SmallVector<ElementAccess> xsTiled(xsAccess), ysTiled(ysAccess);
    if (lanes.isVector()) {
      for (ElementAccess &a : xsTiled)
        if (isStridedGlobal(a)) {
          a.tile = allocTile(b, a.elementType, scan.getLength());
          copyRows(b, a, p, lanes, scan.getLength(), /*toTile=*/true);
        }
      for (ElementAccess &a : ysTiled)
        if (isStridedGlobal(a))
          a.tile = allocTile(b, a.elementType, scan.getLength());
    }
    xsAccess = xsTiled;
    ysAccess = ysTiled;
    IRMapping outerScalars;
    for (Value v : outerValues(scan))
      outerScalars.map(v, elementOf(b, v, p, lanes));
    SmallVector<Value> inits = llvm::map_to_vector(
        scan.getInits(), [&](Value v) { return outerScalars.lookup(v); });
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value length = arith::ConstantIndexOp::create(b, loc, scan.getLength());
    Value last = arith::ConstantIndexOp::create(b, loc, scan.getLength() - 1);
    auto loop = scf::ForOp::create(
        b, loc, zero, length, one, inits,
        [&](OpBuilder &fb, Location fl, Value iv, ValueRange carries) {
          Value step = scan.getReverse() ? (Value)arith::SubIOp::create(fb, fl, last, iv) : iv;
          IRMapping scalars = outerScalars;
          for (auto [arg, c] : llvm::zip(scan.getConstArgs(), scan.getConsts()))
            scalars.map(arg, outerScalars.lookup(c));
          for (auto [arg, carry] : llvm::zip(scan.getCarryArgs(), carries))
            scalars.map(arg, carry);
          for (auto [arg, access] : llvm::zip(scan.getXSliceArgs(), xsAccess))
            scalars.map(arg, loadAccess(fb, access, p, step, lanes));
          for (Operation &op : body.without_terminator()) {
            Value scalar;
            if (auto c = dyn_cast<ConstantOp>(op))
              scalar = splatConstant(
                  fb, cast<SplatElementsAttr>(c.getValue()).getSplatValue<Attribute>(), lanes);
            else
              scalar = scalarizeElementwise(fb, &op, llvm::map_to_vector(op.getOperands(), [&](Value v) {
                                              return scalars.lookup(v);
                                            }));
            scalars.map(op.getResult(0), scalar);
          }
          ValueRange yielded = cast<YieldOp>(body.getTerminator()).getValues();
          for (auto [v, access] : llvm::zip(yielded.drop_front(scan.getNumCarry()), ysAccess))
            if (access.buffer || access.tile)
              storeAccess(fb, scalars.lookup(v), access, p, step, lanes);
          scf::YieldOp::create(fb, fl,
                               llvm::map_to_vector(yielded.take_front(scan.getNumCarry()),
                                                   [&](Value v) { return scalars.lookup(v); }));
        });
    for (auto [result, out] : llvm::zip(loop.getResults(), carryOut))
      if (out)
        store(b, result, out, p, lanes);
    for (const ElementAccess &a : ysAccess)
      if (a.tile && !a.scratch)
        copyRows(b, a, p, lanes, scan.getLength(), /*toTile=*/false);
  }

  /// Emits `body(p, lanes)` in an scf.parallel over the batch (directly for
  /// a scalar batch); when vectorized the last dimension steps by the lane
  /// count and the lanes past its end are masked.
  void emitParallel(function_ref<void(OpBuilder &, ValueRange, const Lanes &)> body) {
    if (batch.empty()) {
      body(rewriter, ValueRange{}, Lanes{});
      return;
    }
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    SmallVector<Value> lbs(batch.size(), zero), steps(batch.size(), one), ubs;
    for (int64_t d : batch)
      ubs.push_back(arith::ConstantIndexOp::create(rewriter, loc, d));
    if (laneCount > 1)
      steps.back() = arith::ConstantIndexOp::create(rewriter, loc, laneCount);
    auto parallel = scf::ParallelOp::create(rewriter, loc, lbs, ubs, steps,
                            [&](OpBuilder &b, Location, ValueRange p) {
                              if (laneCount == 1) {
                                body(b, p, Lanes{});
                                return;
                              }
                              Lanes lanes;
                              lanes.count = laneCount;
                              lanes.valid = arith::MinSIOp::create(
                                  b, loc, constantIndex(b, laneCount),
                                  arith::SubIOp::create(b, loc, constantIndex(b, batch.back()),
                                                        p.back()));
                              lanes.mask = laneMask(b, lanes.valid);
                              // The tiles are allocas of this iteration (the
                              // CPU pipeline keeps them per iteration with
                              // kiln-parallel-alloca-scopes).
                              body(b, p, lanes);
                            });
    // The CPU pipeline runs these on all cores whatever their size
    // (kiln-one-parallel-dimension leaves them alone).
    parallel->setAttr("kiln.parallel_scan", rewriter.getUnitAttr());
  }

  Value asTensor(Value buffer, Type type) {
    return bufferization::ToTensorOp::create(rewriter, loc, type, buffer, /*restrict=*/true,
                                             /*writable=*/true);
  }

private:
  Value constantIndex(OpBuilder &b, int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }

  bool isStridedGlobal(const ElementAccess &a) const {
    if (!a.buffer || a.scratch)
      return false;
    return a.laneDim(batch.size()) != cast<MemRefType>(a.buffer.getType()).getRank() - 1;
  }

  /// Copies the rows of the valid lanes between global `a` and its tile:
  /// tile[s, l] <-> a[element p + l, step s]. Where each element's steps are
  /// contiguous right after its lane dimension, whole lanes x lanes blocks
  /// go through registers (TileTranspose.h) when all lanes are valid; the
  /// steps past the last whole block, and a partial last vector, go one
  /// scalar at a time.
  void copyRows(OpBuilder &b, const ElementAccess &a, ValueRange p, const Lanes &lanes,
                int64_t length, bool toTile) {
    int64_t rank = cast<MemRefType>(a.buffer.getType()).getRank();
    int64_t fullSteps = length / laneCount * laneCount;
    bool blocks = a.axis == rank - 1 && a.laneDim(batch.size()) == rank - 2 && fullSteps > 0;
    if (!blocks) {
      copyRowsScalar(b, a, p, lanes.valid, 0, length, toTile);
      return;
    }
    Value allValid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lanes.valid,
                                           constantIndex(b, laneCount));
    scf::IfOp::create(
        b, loc, allValid,
        [&](OpBuilder &tb, Location) {
          copyTileBlocks(tb, loc, a.buffer, stackedIndices(p, constantIndex(tb, 0), a.axis),
                         a.tile, laneCount, fullSteps, toTile);
          if (fullSteps < length)
            copyRowsScalar(tb, a, p, lanes.valid, fullSteps, length, toTile);
          scf::YieldOp::create(tb, loc);
        },
        [&](OpBuilder &eb, Location) {
          copyRowsScalar(eb, a, p, lanes.valid, 0, length, toTile);
          scf::YieldOp::create(eb, loc);
        });
  }

  /// Steps [begin, end) of copyRows, one scalar at a time.
  void copyRowsScalar(OpBuilder &b, const ElementAccess &a, ValueRange p, Value valid,
                      int64_t begin, int64_t end, bool toTile) {
    Value zero = constantIndex(b, 0), one = constantIndex(b, 1);
    scf::ForOp::create(
        b, loc, zero, valid, one, ValueRange{},
        [&](OpBuilder &lb, Location, Value l, ValueRange) {
          SmallVector<Value> element(p);
          element.back() = arith::AddIOp::create(lb, loc, p.back(), l);
          scf::ForOp::create(
              lb, loc, constantIndex(lb, begin), constantIndex(lb, end), one, ValueRange{},
              [&](OpBuilder &sb, Location, Value step, ValueRange) {
                SmallVector<Value> global = stackedIndices(element, step, a.axis);
                SmallVector<Value> tile = {step, l};
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

  /// The first `valid` lanes; a constant all-true mask when the lanes
  /// divide the last batch dimension (folded away later).
  Value laneMask(OpBuilder &b, Value valid) {
    auto maskType = VectorType::get({laneCount}, b.getI1Type());
    if (batch.back() % laneCount == 0)
      return vector::ConstantMaskOp::create(b, loc, maskType, ArrayRef<int64_t>{laneCount});
    return vector::CreateMaskOp::create(b, loc, maskType, ValueRange{valid});
  }

  PatternRewriter &rewriter;
  Location loc;
  ArrayRef<int64_t> batch;
  int64_t laneCount;
  int64_t numScratchSlots = 0;
  DenseMap<Value, Value> buffers;
};

} // namespace kiln::parallel_scan

#endif // KILN_REWRITES_SEED_PARALLELSCANEMITTER_H
