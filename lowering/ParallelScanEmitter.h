//===- ParallelScanEmitter.h - batch-parallel scans as loops ----*- C++ -*-===//
//
// The emitter behind kiln-scan-to-parallel-loops (ScanToParallelLoops.cpp):
// which scans are batch-parallel, how an xs/ys element is read or written
// per batch element and step (global buffers, scratch, [step, lane] tiles),
// and the scf.parallel over the batch with the step loop inside. Used by
// that pass only; split out to keep each file readable.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LOWERING_PARALLELSCANEMITTER_H
#define KILN_LOWERING_PARALLELSCANEMITTER_H

#include "dialect/LaxOps.h"
#include "lowering/CpuCostModel.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SetVector.h"

#include <optional>
#include <string>

namespace kiln::parallel_scan {

// The names this header uses, declared for its namespace only (the files
// that include it say `using namespace` themselves).
using kiln::lax::ScanOp;
using mlir::ArrayRef;
using mlir::Attribute;
using mlir::Block;
using mlir::BlockArgument;
using mlir::cast;
using mlir::DenseMap;
using mlir::dyn_cast;
using mlir::FailureOr;
using mlir::function_ref;
using mlir::FloatType;
using mlir::isa;
using mlir::MemRefType;
using mlir::PatternRewriter;
using mlir::SmallVectorImpl;
using mlir::IRMapping;
using mlir::Location;
using mlir::OpBuilder;
using mlir::Operation;
using mlir::RankedTensorType;
using mlir::SmallVector;
using mlir::Type;
using mlir::Value;
using mlir::ValueRange;
using mlir::VectorType;
namespace memref = mlir::memref;

inline RankedTensorType tensorTypeOf(Value v) { return dyn_cast<RankedTensorType>(v.getType()); }

/// How a value defined outside the body is read per batch element.
enum class OuterKind { SplatConstant, PerElement, Scalar, Unsupported };

OuterKind classifyOuter(Value v, ArrayRef<int64_t> batchShape);

/// Whether every value of the body has the batch shape and every op is an
/// elementwise lax op or a splat constant. Returns the reason otherwise.
std::optional<std::string> whyNotBatchParallel(ScanOp scan, ArrayRef<int64_t> batch);

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

/// One group of lanes of an iteration: the batch element `p` where its lanes
/// start. An iteration runs `laneGroups` groups side by side, their steps
/// interleaved, so the core has that many independent dependence chains.
struct LaneGroup {
  SmallVector<Value> p;
  Lanes lanes;
};

/// Where one xs element is read from or one ys element written to, per batch
/// element `p` and step: a buffer and the indices into it.
struct ElementAccess {
  Value buffer;
  bool scratch = false; // a scratch ys, contiguous per element (a tile with lanes)
  int64_t axis = 0;     // otherwise the stacked axis of a global buffer
  /// With vector lanes: the tile on the stack that stands for this access
  /// during one iteration. A scratch ys has a [step, lane] tile for all
  /// steps (`scratchSlot` says which); a strided global xs/ys has a
  /// [lane, lane] block tile indexed by the step within the current block of
  /// steps (`blockTile`), copied in before / out after each block.
  Value tile;
  bool blockTile = false;
  int64_t scratchSlot = -1;
  Type elementType;
  SmallVector<Value> indices(ValueRange p, Value step) const;
  /// The buffer dimension the lanes run along (the last batch dimension).
  int64_t laneDim(size_t batchRank) const {
    return axis <= int64_t(batchRank) - 1 ? batchRank : batchRank - 1;
  }
};

ElementAccess globalAccess(Value buffer, int64_t axis);

/// Emits the loops of a group of batch-parallel scans (one scan, or a
/// producer and a consumer of its ys) as one scf.parallel over the batch.
class ParallelScanEmitter {
public:
  /// `prefetchDistance`: with vector lanes, how many iterations ahead the
  /// rows of strided xs/ys are prefetched (0: none). `laneGroups`: with
  /// vector lanes, how many groups of `lanes` elements one iteration runs.
  /// `registerBits`: the target's vector registers (block transposes keep
  /// two rows to a register when they fit; TileTranspose.h). `costModel`:
  /// the cache line and prefetch hint of those prefetches, the fewest lanes
  /// whose transposes pair rows.
  ParallelScanEmitter(PatternRewriter &rewriter, Location loc, ArrayRef<int64_t> batch,
                      int64_t lanes, int64_t laneGroups, int64_t prefetchDistance,
                      int64_t registerBits, const ::kiln::lowering::CpuCostModel &costModel)
      : rewriter(rewriter), loc(loc), batch(batch), laneCount(lanes),
        groupCount(lanes > 1 ? std::max<int64_t>(1, laneGroups) : 1),
        prefetchDistance(prefetchDistance), registerBits(registerBits), costModel(costModel) {}

  /// Scalar scratch laid out [step, batch...]: a GPU thread per element reads
  /// and writes neighbouring addresses (coalesced).
  bool stepMajorScratch = false;

  /// A read-only buffer of `tensor` (shared by all its readers).
  Value bufferOf(Value tensor);
  Value allocFor(Type tensorType);

  /// A scratch buffer [batch..., step] for one ys of `length` steps that
  /// only the fused consumer reads, so each element's steps are contiguous
  /// ([step, batch...] with stepMajorScratch). With vector lanes the scratch
  /// is a per-iteration tile instead (`tile`).
  ElementAccess scratchFor(Type elementType, int64_t length);

  /// The scratch tiles of one iteration, filled into the scratch accesses.
  SmallVector<ElementAccess> withScratchTiles(OpBuilder &b, ArrayRef<ElementAccess> accesses,
                                              SmallVectorImpl<Value> &tiles, int64_t length);

  /// Prepares buffers for the values `scan` reads from outside its body.
  void prepareInputs(ScanOp scan);
  static llvm::SetVector<Value> outerValues(ScanOp scan);

  /// Emits, for the lane groups of one iteration, the step loop of `scan`
  /// (each step once per group, op by op) and stores each group's final
  /// carries to `carryOut` at its p. `xsAccess`/`ysAccess` hold one list
  /// per group (they differ in their scratch tiles).
  void emitLoop(OpBuilder &b, ScanOp scan, ArrayRef<LaneGroup> groups,
                ArrayRef<SmallVector<ElementAccess>> xsAccess,
                ArrayRef<SmallVector<ElementAccess>> ysAccess, ArrayRef<Value> carryOut);

  /// Emits `body(groups)` in an scf.parallel over the batch (directly for a
  /// scalar batch); when vectorized the last dimension steps by the lane
  /// count times the lane groups, and the lanes past its end are masked.
  /// `work` (batch elements times steps) goes on the loop as
  /// `kiln.parallel_scan`.
  void emitParallel(function_ref<void(OpBuilder &, ArrayRef<LaneGroup>)> body, int64_t work);

  Value asTensor(Value buffer, Type type);

private:
  Value constantIndex(OpBuilder &b, int64_t v);
  /// A [rows, lane] tile on the stack, living for one iteration.
  Value allocTile(OpBuilder &b, Type elementType, int64_t rows);
  Value splatConstant(OpBuilder &b, Attribute value, const Lanes &lanes);
  Value load(OpBuilder &b, Value buffer, ValueRange indices, const Lanes &lanes);
  void store(OpBuilder &b, Value value, Value buffer, ValueRange indices, const Lanes &lanes);
  Value loadAccess(OpBuilder &b, const ElementAccess &access, ValueRange p, Value step,
                   Value local, const Lanes &lanes);
  void storeAccess(OpBuilder &b, Value value, const ElementAccess &access, ValueRange p,
                   Value step, Value local, const Lanes &lanes);
  Value elementOf(OpBuilder &b, Value v, ValueRange p, const Lanes &lanes);
  bool isStridedGlobal(const ElementAccess &a) const;

  /// The step loop of `scan` in blocks of `laneCount` steps (then the rest)
  /// for strided xs/ys: `step(builder, step, step within the block,
  /// carries)` emits one step of every group; returns the final carries.
  using StepFn = function_ref<SmallVector<Value>(OpBuilder &, Value, Value, ValueRange)>;
  SmallVector<Value> emitBlocks(OpBuilder &b, ScanOp scan, ArrayRef<LaneGroup> groups,
                                ArrayRef<SmallVector<ElementAccess>> xs,
                                ArrayRef<SmallVector<ElementAccess>> ys, ValueRange inits,
                                StepFn step);
  /// Copies steps [start, start + n) of global `a` into (`toTile`) or out of
  /// its block tile, for the valid lanes.
  void copyBlock(OpBuilder &b, const ElementAccess &a, ValueRange p, const Lanes &lanes,
                 Value allValid, Value start, int64_t n, bool toTile);
  void copyBlockScalar(OpBuilder &b, const ElementAccess &a, ValueRange p, Value valid,
                       Value start, int64_t n, bool toTile);
  /// Prefetches the part of the rows `prefetchDistance` iterations ahead
  /// that the same block of steps will touch there.
  void prefetchAhead(OpBuilder &b, const ElementAccess &a, ValueRange p, Value start, int64_t n,
                     int64_t length, bool forWrite);
  Value laneMask(OpBuilder &b, Value valid);

  PatternRewriter &rewriter;
  Location loc;
  ArrayRef<int64_t> batch;
  int64_t laneCount;
  int64_t groupCount;
  int64_t prefetchDistance;
  int64_t registerBits;
  const ::kiln::lowering::CpuCostModel &costModel;
  int64_t numScratchSlots = 0;
  /// The stack buffer the tiles of the iteration being emitted are views of.
  Value tileArena;
  int64_t tileArenaBytes = 0;
  SmallVector<memref::ViewOp> tileViews;
  DenseMap<Value, Value> buffers;
};

} // namespace kiln::parallel_scan

#endif // KILN_LOWERING_PARALLELSCANEMITTER_H
