//===- ScanToParallelLoops.cpp - batch-parallel scans as parallel loops ---===//
//
// Seed 003's scans solve 100000 independent systems at once: every op of the
// body acts elementwise on tensors of one shape S (the batch). Such a scan is
// |S| independent scalar loops. This pass rewrites it into an scf.parallel
// over S whose body runs the whole scan in scalar registers (an scf.for over
// the steps with the carries as iter_args), reading xs and writing ys element
// by element in place: one pass over memory, no per-step tensors, all cores on
// the CPU (scf.parallel -> OpenMP) and one kernel on the GPU (scf.parallel ->
// gpu.launch), each thread owning a batch element.
//
// Sound because elementwise ops commute with taking element p: element p of
// every value in iteration i depends only on element p of the carries, of the
// xs slices and of the invariant inputs. For the same reason a group of
// consecutive elements may run as the lanes of one vector (vector-bits): lane
// l computes exactly what the scalar loop computes for its element, and the
// lanes past the end of the batch are masked off at every load and store
// (and their rows are not copied into or out of the stack tiles).
//
//===----------------------------------------------------------------------===//
#include "dialect/LaxOps.h"
#include "rewrites/seed/Passes.h"
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

namespace kiln {
#define GEN_PASS_DEF_SCANTOPARALLELLOOPS
#include "rewrites/seed/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln;
using namespace kiln::lax;

namespace {

RankedTensorType tensorTypeOf(Value v) { return dyn_cast<RankedTensorType>(v.getType()); }

/// How a value defined outside the body is read per batch element.
enum class OuterKind { SplatConstant, PerElement, Scalar, Unsupported };

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

/// Whether every value of the body has the batch shape and every op is an
/// elementwise lax op or a splat constant. Returns the reason otherwise.
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
SmallVector<Value> stackedIndices(ValueRange p, Value step, int64_t axis) {
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

ElementAccess globalAccess(Value buffer, int64_t axis) {
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

/// Whether `v` is available before `op` in its block.
bool definedBefore(Value v, Operation *op) {
  Operation *ancestor = v.getParentBlock()->findAncestorOpInBlock(*op);
  if (!ancestor)
    return false;
  Operation *def = v.getDefiningOp();
  return !def || (def != ancestor && def->isBeforeInBlock(ancestor));
}

/// The batch shape of a batch-parallel scan, or failure with the reason.
FailureOr<ArrayRef<int64_t>> batchShapeOf(ScanOp scan, PatternRewriter &rewriter) {
  Block &body = scan.getBodyBlock();
  if (body.getNumArguments() == scan.getNumConsts())
    return rewriter.notifyMatchFailure(scan, "no carry and no xs");
  ArrayRef<int64_t> batch = tensorTypeOf(body.getArgument(scan.getNumConsts())).getShape();
  if (std::optional<std::string> why = whyNotBatchParallel(scan, batch))
    return rewriter.notifyMatchFailure(scan, *why);
  return batch;
}

/// A batch-parallel scan whose ys are read only as xs by a later
/// batch-parallel scan of the same batch (TDMA's forward and backward
/// sweeps): both run in one parallel loop, element p's intermediate ys in a
/// per-element scratch buffer. Sound because the consumer's step loop for p
/// reads only element p of each ys slice, which the producer's loop for p has
/// written just before. The scratch is laid out [batch..., step] so each
/// element's steps are contiguous (cache-resident between the two loops).
/// (A per-element alloca would be smaller, but scf.parallel's allocation
/// scope is lost when it is lowered to sequential loops.)
ScanOp fusableConsumer(ScanOp producer, ArrayRef<int64_t> batch, PatternRewriter &rewriter) {
  if (producer.getYs().empty())
    return {};
  ScanOp consumer;
  for (Value ys : producer.getYs())
    for (Operation *user : ys.getUsers()) {
      auto scan = dyn_cast<ScanOp>(user);
      if (!scan || (consumer && scan != consumer) || scan->getBlock() != producer->getBlock())
        return {};
      consumer = scan;
    }
  if (!consumer)
    return {};
  FailureOr<ArrayRef<int64_t>> consumerBatch = batchShapeOf(consumer, rewriter);
  if (failed(consumerBatch) || *consumerBatch != batch)
    return {};
  // The consumer reads the producer's ys only as xs, and everything else it
  // reads exists before the producer.
  for (Value v : llvm::concat<Value>(ParallelScanEmitter::outerValues(consumer).takeVector(),
                                     SmallVector<Value>(consumer.getXs()))) {
    if (v.getDefiningOp() == producer.getOperation()) {
      if (!llvm::is_contained(consumer.getXs(), v) || llvm::is_contained(producer.getFinalCarries(), v))
        return {};
      continue;
    }
    if (!definedBefore(v, producer))
      return {};
  }
  return consumer;
}

/// How many batch elements of `group` one iteration runs as vector lanes:
/// `vectorBits` over the widest element type, or 1 (scalar) when the last
/// batch dimension is shorter than a vector or an i1 tensor would be loaded
/// or stored (i1 vectors are bit-packed in LLVM, tensors hold bytes).
int64_t laneCountFor(ArrayRef<ScanOp> group, ArrayRef<int64_t> batch, int64_t vectorBits) {
  if (vectorBits <= 0 || batch.empty())
    return 1;
  unsigned widest = 0;
  bool loadsI1 = false;
  auto note = [&](Type t, bool inMemory) {
    Type elem = getElementTypeOrSelf(t);
    widest = std::max(widest, elem.getIntOrFloatBitWidth());
    loadsI1 |= inMemory && elem.isInteger(1);
  };
  for (ScanOp scan : group) {
    for (Value v : ParallelScanEmitter::outerValues(scan))
      note(v.getType(), classifyOuter(v, batch) == OuterKind::PerElement);
    for (Value v : scan.getResults())
      note(v.getType(), true);
    for (BlockArgument arg : scan.getBodyBlock().getArguments())
      note(arg.getType(), true);
    scan.getBodyBlock().walk([&](Operation *op) {
      for (Value r : op->getResults())
        note(r.getType(), false);
    });
  }
  int64_t lanes = vectorBits / std::max(widest, 8u);
  if (loadsI1 || lanes < 2 || batch.back() < lanes)
    return 1;
  return lanes;
}

struct BatchParallelScanToLoops : OpRewritePattern<ScanOp> {
  BatchParallelScanToLoops(MLIRContext *context, int64_t vectorBits)
      : OpRewritePattern(context), vectorBits(vectorBits) {}

  LogicalResult matchAndRewrite(ScanOp scan, PatternRewriter &rewriter) const override {
    FailureOr<ArrayRef<int64_t>> batch = batchShapeOf(scan, rewriter);
    if (failed(batch))
      return failure();
    ScanOp consumer = fusableConsumer(scan, *batch, rewriter);
    if (consumer)
      rewriter.setInsertionPoint(consumer); // inputs of both exist here

    Location loc = scan.getLoc();
    SmallVector<ScanOp> group = {scan};
    if (consumer)
      group.push_back(consumer);
    ParallelScanEmitter emitter(rewriter, loc, *batch, laneCountFor(group, *batch, vectorBits));
    for (ScanOp s : group)
      emitter.prepareInputs(s);

    // Outputs: final carries and ys of every scan of the group (the
    // producer's ys that only the consumer reads live in scratch).
    auto outputsOf = [&](ScanOp s, SmallVector<Value> &carryOut,
                         SmallVector<ElementAccess> &ysAccess) {
      for (Value c : s.getFinalCarries())
        carryOut.push_back(c.use_empty() ? Value() : emitter.allocFor(c.getType()));
      for (auto [j, ys] : llvm::enumerate(s.getYs())) {
        if (ys.use_empty())
          ysAccess.push_back({});
        else if (consumer && s == scan)
          ysAccess.push_back(emitter.scratchFor(tensorTypeOf(ys).getElementType(), s.getLength()));
        else
          ysAccess.push_back(globalAccess(emitter.allocFor(ys.getType()), s.getYsAxis(j)));
      }
    };
    SmallVector<Value> carryOut, consumerCarryOut;
    SmallVector<ElementAccess> ysAccess, consumerYsAccess;
    outputsOf(scan, carryOut, ysAccess);
    if (consumer)
      outputsOf(consumer, consumerCarryOut, consumerYsAccess);

    auto globalXs = [&](ScanOp s) {
      SmallVector<ElementAccess> access;
      for (auto [j, x] : llvm::enumerate(s.getXs()))
        access.push_back(globalAccess(emitter.bufferOf(x), s.getXsAxis(j)));
      return access;
    };
    SmallVector<ElementAccess> xsAccess = globalXs(scan);
    SmallVector<ElementAccess> consumerXs;
    if (consumer) {
      DenseMap<Value, ElementAccess> scratchOf;
      for (auto [j, access] : llvm::enumerate(ysAccess))
        if (access.scratch)
          scratchOf[scan.getYs()[j]] = access;
      for (auto [j, x] : llvm::enumerate(consumer.getXs()))
        consumerXs.push_back(scratchOf.count(x)
                                 ? scratchOf[x]
                                 : globalAccess(emitter.bufferOf(x), consumer.getXsAxis(j)));
    }

    emitter.emitParallel([&](OpBuilder &b, ValueRange p, const Lanes &lanes) {
      SmallVector<Value> tiles; // the producer's scratch ys, shared with the consumer
      emitter.emitLoop(b, scan, p, lanes, xsAccess,
                       emitter.withScratchTiles(b, ysAccess, tiles, scan.getLength()), carryOut);
      if (consumer)
        emitter.emitLoop(b, consumer, p, lanes,
                         emitter.withScratchTiles(b, consumerXs, tiles, scan.getLength()),
                         consumerYsAccess, consumerCarryOut);
    });

    auto replace = [&](ScanOp s, ArrayRef<Value> carries, ArrayRef<ElementAccess> ys) {
      for (auto [result, out] : llvm::zip(s.getFinalCarries(), carries))
        if (out)
          rewriter.replaceAllUsesWith(result, emitter.asTensor(out, result.getType()));
      for (auto [result, access] : llvm::zip(s.getYs(), ys))
        if (access.buffer && !access.scratch)
          rewriter.replaceAllUsesWith(result, emitter.asTensor(access.buffer, result.getType()));
    };
    if (consumer) {
      replace(consumer, consumerCarryOut, consumerYsAccess);
      rewriter.eraseOp(consumer);
    }
    replace(scan, carryOut, ysAccess);
    rewriter.eraseOp(scan);
    return success();
  }

private:
  int64_t vectorBits;
};

struct ScanToParallelLoopsPass
    : kiln::impl::ScanToParallelLoopsBase<ScanToParallelLoopsPass> {
  using ScanToParallelLoopsBase::ScanToParallelLoopsBase;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<BatchParallelScanToLoops>(&getContext(), vectorBits);
    GreedyRewriteConfig config;
    config.setUseTopDownTraversal(true);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      signalPassFailure();
  }
};

} // namespace
