//===- ScanToParallelLoops.cpp - batch-parallel scans as parallel loops ---===//
//
// jax-ml/jax#2491's scans solve 100000 independent systems at once: every op of the
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
// (and their rows are not copied into or out of the stack tiles). Several
// such vectors (lane groups) may share an iteration, their steps interleaved
// op by op: each group only ever reads its own carries and elements, so the
// interleaving reorders independent computations and changes no value.
//
//===----------------------------------------------------------------------===//
#include "dialect/LaxOps.h"
#include "lowering/CpuCostModel.h"
#include "lowering/ParallelScanEmitter.h"
#include "lowering/Passes.h"

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
#include "lowering/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln;
using namespace kiln::lax;

using namespace kiln::parallel_scan;
using kiln::lowering::CpuCostModel;
using kiln::lowering::defaultCpuCostModel;

namespace {

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

/// Whether some xs or ys of `group` keeps each element's steps contiguous
/// (the scan axis last, after the batch): rows the lanes gather through
/// block tiles.
bool movesStridedRows(ArrayRef<ScanOp> group, size_t batchRank) {
  for (ScanOp scan : group) {
    for (unsigned j = 0; j < scan.getXs().size(); ++j)
      if (scan.getXsAxis(j) == int64_t(batchRank))
        return true;
    for (unsigned j = 0; j < scan.getYs().size(); ++j)
      if (scan.getYsAxis(j) == int64_t(batchRank))
        return true;
  }
  return false;
}

/// Ops that cost a polynomial or a libm call per element.
bool isTranscendental(Operation *op) { return kiln::lax::isApproximate(op); }

/// What decides how a group of scans runs as vector lanes.
struct GroupTraits {
  unsigned widestBits = 0;
  bool loadsI1 = false;        // an i1 tensor is loaded or stored
  bool transcendental = false; // the body costs a polynomial per element
  bool stridedRows = false;    // some xs/ys goes through block tiles
};

GroupTraits traitsOf(ArrayRef<ScanOp> group, ArrayRef<int64_t> batch) {
  GroupTraits traits;
  auto note = [&](Type t, bool inMemory) {
    Type elem = getElementTypeOrSelf(t);
    traits.widestBits = std::max(traits.widestBits, elem.getIntOrFloatBitWidth());
    traits.loadsI1 |= inMemory && elem.isInteger(1);
  };
  for (ScanOp scan : group) {
    for (Value v : ParallelScanEmitter::outerValues(scan))
      note(v.getType(), classifyOuter(v, batch) == OuterKind::PerElement);
    for (Value v : scan.getResults())
      note(v.getType(), true);
    for (BlockArgument arg : scan.getBodyBlock().getArguments())
      note(arg.getType(), true);
    scan.getBodyBlock().walk([&](Operation *op) {
      traits.transcendental |= isTranscendental(op);
      for (Value r : op->getResults())
        note(r.getType(), false);
    });
  }
  traits.stridedRows = movesStridedRows(group, batch.size());
  return traits;
}

/// How many batch elements of `group` one iteration runs as vector lanes:
/// `vectorBits` over the widest element type, or 1 (scalar) when the last
/// batch dimension is shorter than a vector or an i1 tensor would be loaded
/// or stored (i1 vectors are bit-packed in LLVM, tensors hold bytes).
///
/// A group that moves strided rows and computes only arithmetic is bound by
/// moving those rows: it takes a fraction of the bits
/// (CpuCostModel::stridedArithmeticVectorBitsDivisor), fewer rows per block
/// meaning smaller block tiles and fewer rows in flight. A body with a
/// transcendental is bound by computing it and keeps the full width.
int64_t laneCountFor(const GroupTraits &traits, ArrayRef<int64_t> batch, int64_t vectorBits,
                     const CpuCostModel &model) {
  if (vectorBits <= 0 || batch.empty())
    return 1;
  if (!traits.transcendental && traits.stridedRows)
    vectorBits /= model.stridedArithmeticVectorBitsDivisor;
  int64_t lanes = vectorBits / std::max(traits.widestBits, 8u);
  if (traits.loadsI1 || lanes < 2 || batch.back() < lanes)
    return 1;
  return lanes;
}

/// How many groups of `lanes` elements one iteration runs, their steps
/// interleaved: `requested`, or when 0 the cost model's choice:
/// - CpuCostModel::laneGroupsContiguous when the lanes are contiguous in
///   memory. A step waits on the previous one (a division or a tanh on the
///   carried chain), and the groups are independent chains; also each step
///   then reads more of every row at once (the rows of consecutive steps
///   lie a whole batch apart, which the hardware prefetcher does not
///   follow).
/// - CpuCostModel::laneGroupsStridedTranscendental for a body with a
///   transcendental over strided rows: each group has its own block
///   transposes, so compile time grows with the groups.
/// - CpuCostModel::laneGroupsStridedArithmetic for arithmetic over strided
///   rows (jax-ml/jax#2491's TDMA): independent chains for the latency of
///   a division on every step, as many as keep the rows in flight within
///   L1 (the rows ahead are prefetched into L2).
/// Fewer groups when the batch would leave fewer than
/// CpuCostModel::laneGroupsMinIterations iterations to share among the
/// cores.
int64_t laneGroupsFor(const GroupTraits &traits, ArrayRef<int64_t> batch, int64_t lanes,
                      int64_t requested, const CpuCostModel &model) {
  if (lanes <= 1)
    return 1;
  if (requested > 0)
    return requested;
  int64_t groups = !traits.stridedRows   ? model.laneGroupsContiguous
                   : traits.transcendental ? model.laneGroupsStridedTranscendental
                                           : model.laneGroupsStridedArithmetic;
  int64_t elements = ShapedType::getNumElements(batch);
  while (groups > 1 && elements < model.laneGroupsMinIterations * lanes * groups)
    groups /= 2;
  return groups;
}

/// Stack bytes of one lane group's scratch tiles when `producer` is fused
/// with its consumer: a [length, lanes] tile per ys that is read.
int64_t scratchTileBytes(ScanOp producer, int64_t lanes) {
  int64_t bytes = 0;
  for (Value ys : producer.getYs())
    if (!ys.use_empty())
      bytes += producer.getLength() * lanes *
               ((tensorTypeOf(ys).getElementType().getIntOrFloatBitWidth() + 7) / 8);
  return std::max<int64_t>(bytes, 1);
}

struct BatchParallelScanToLoops : OpRewritePattern<ScanOp> {
  BatchParallelScanToLoops(MLIRContext *context, int64_t vectorBits, int64_t laneGroups,
                           int64_t prefetchDistance, int64_t registerBits,
                           const CpuCostModel &model)
      : OpRewritePattern(context), vectorBits(vectorBits), laneGroups(laneGroups),
        prefetchDistance(prefetchDistance), registerBits(registerBits), model(model) {}

  LogicalResult matchAndRewrite(ScanOp scan, PatternRewriter &rewriter) const override {
    FailureOr<ArrayRef<int64_t>> batch = batchShapeOf(scan, rewriter);
    if (failed(batch))
      return failure();
    ScanOp consumer = fusableConsumer(scan, *batch, rewriter);
    SmallVector<ScanOp> group = {scan};
    if (consumer)
      group.push_back(consumer);
    int64_t lanes = 1, groups = 1;
    auto chooseLanes = [&] {
      GroupTraits traits = traitsOf(group, *batch);
      lanes = laneCountFor(traits, *batch, vectorBits, model);
      groups = laneGroupsFor(traits, *batch, lanes, laneGroups, model);
    };
    chooseLanes();
    // With vector lanes a fused pair keeps the producer's ys in stack tiles
    // of the iteration, `length` steps per group: fewer groups when they
    // would pass the budget (CpuCostModel::maxScratchTileBytes, well inside
    // a worker thread's stack), and no fusion (the ys go through memory)
    // when one group would (a long scan overflowed the thread's stack).
    if (consumer && lanes > 1) {
      int64_t perGroup = scratchTileBytes(scan, lanes);
      groups = std::min(groups, std::max<int64_t>(1, model.maxScratchTileBytes / perGroup));
      if (perGroup > model.maxScratchTileBytes) {
        consumer = {};
        group.pop_back();
        chooseLanes();
      }
    }
    if (consumer)
      rewriter.setInsertionPoint(consumer); // inputs of both exist here

    Location loc = scan.getLoc();
    ParallelScanEmitter emitter(rewriter, loc, *batch, lanes, groups, prefetchDistance,
                                registerBits, model);
    emitter.stepMajorScratch = stepMajorScratch;
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

    int64_t work = 0;
    for (ScanOp s : group)
      work += ShapedType::getNumElements(*batch) * s.getLength();
    emitter.emitParallel([&](OpBuilder &b, ArrayRef<LaneGroup> groups) {
      // Per group: the producer's scratch ys tiles, shared with the consumer.
      SmallVector<SmallVector<Value>> tiles(groups.size());
      SmallVector<SmallVector<ElementAccess>> xs, ys, nextXs, nextYs;
      for (size_t g = 0; g < groups.size(); ++g) {
        xs.push_back(xsAccess);
        ys.push_back(emitter.withScratchTiles(b, ysAccess, tiles[g], scan.getLength()));
      }
      emitter.emitLoop(b, scan, groups, xs, ys, carryOut);
      if (!consumer)
        return;
      for (size_t g = 0; g < groups.size(); ++g) {
        nextXs.push_back(emitter.withScratchTiles(b, consumerXs, tiles[g], scan.getLength()));
        nextYs.push_back(consumerYsAccess);
      }
      emitter.emitLoop(b, consumer, groups, nextXs, nextYs, consumerCarryOut);
    }, work);

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
  int64_t laneGroups;
  int64_t prefetchDistance;
  int64_t registerBits;
  const CpuCostModel &model;

public:
  bool stepMajorScratch = false;
};

struct ScanToParallelLoopsPass
    : kiln::impl::ScanToParallelLoopsBase<ScanToParallelLoopsPass> {
  using ScanToParallelLoopsBase::ScanToParallelLoopsBase;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    auto pattern = std::make_unique<BatchParallelScanToLoops>(
        &getContext(), vectorBits, laneGroups, prefetchDistance, registerBits,
        defaultCpuCostModel());
    pattern->stepMajorScratch = stepMajorScratch;
    patterns.add(std::move(pattern));
    GreedyRewriteConfig config;
    config.setUseTopDownTraversal(true);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      signalPassFailure();
  }
};

} // namespace
