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
// xs slices and of the invariant inputs.
//
//===----------------------------------------------------------------------===//
#include "dialect/LaxOps.h"
#include "rewrites/seed/Passes.h"
#include "rewrites/seed/ScalarizeElementwise.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
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

/// Where one xs element is read from or one ys element written to, per batch
/// element `p` and step: a buffer and the indices into it.
struct ElementAccess {
  Value buffer;
  bool scratch = false; // a scratch buffer [batch..., step]: contiguous per element
  int64_t axis = 0;     // otherwise the stacked axis of a global buffer
  SmallVector<Value> indices(ValueRange p, Value step) const {
    return stackedIndices(p, step, scratch ? p.size() : axis);
  }
};

/// Emits the loops of a group of batch-parallel scans (one scan, or a
/// producer and a consumer of its ys) as one scf.parallel over the batch.
class ParallelScanEmitter {
public:
  ParallelScanEmitter(PatternRewriter &rewriter, Location loc, ArrayRef<int64_t> batch)
      : rewriter(rewriter), loc(loc), batch(batch) {}

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

  /// Element p of a tensor defined outside the loops.
  Value elementOf(OpBuilder &b, Value v, ValueRange p) {
    switch (classifyOuter(v, batch)) {
    case OuterKind::SplatConstant: {
      auto splat = cast<SplatElementsAttr>(v.getDefiningOp<ConstantOp>().getValue());
      return arith::ConstantOp::create(b, loc, cast<TypedAttr>(splat.getSplatValue<Attribute>()));
    }
    case OuterKind::PerElement:
      return memref::LoadOp::create(b, loc, bufferOf(v), p);
    case OuterKind::Scalar:
      return tensor::ExtractOp::create(b, loc, v, ValueRange{});
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

  /// Emits, for batch element p, the step loop of `scan` and stores its
  /// final carries to `carryOut` at p.
  void emitLoop(OpBuilder &b, ScanOp scan, ValueRange p, ArrayRef<ElementAccess> xsAccess,
                ArrayRef<ElementAccess> ysAccess, ArrayRef<Value> carryOut) {
    Block &body = scan.getBodyBlock();
    IRMapping outerScalars;
    for (Value v : outerValues(scan))
      outerScalars.map(v, elementOf(b, v, p));
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
            scalars.map(arg, memref::LoadOp::create(fb, fl, access.buffer,
                                                    access.indices(p, step)));
          for (Operation &op : body.without_terminator()) {
            Value scalar;
            if (auto c = dyn_cast<ConstantOp>(op))
              scalar = arith::ConstantOp::create(
                  fb, fl,
                  cast<TypedAttr>(cast<SplatElementsAttr>(c.getValue()).getSplatValue<Attribute>()));
            else
              scalar = scalarizeElementwise(fb, &op, llvm::map_to_vector(op.getOperands(), [&](Value v) {
                                              return scalars.lookup(v);
                                            }));
            scalars.map(op.getResult(0), scalar);
          }
          ValueRange yielded = cast<YieldOp>(body.getTerminator()).getValues();
          for (auto [v, access] : llvm::zip(yielded.drop_front(scan.getNumCarry()), ysAccess))
            if (access.buffer)
              memref::StoreOp::create(fb, fl, scalars.lookup(v), access.buffer,
                                      access.indices(p, step));
          scf::YieldOp::create(fb, fl,
                               llvm::map_to_vector(yielded.take_front(scan.getNumCarry()),
                                                   [&](Value v) { return scalars.lookup(v); }));
        });
    for (auto [result, out] : llvm::zip(loop.getResults(), carryOut))
      if (out)
        memref::StoreOp::create(b, loc, result, out, p);
  }

  /// Emits `body(p)` in an scf.parallel over the batch (directly for a scalar
  /// batch).
  void emitParallel(function_ref<void(OpBuilder &, ValueRange)> body) {
    if (batch.empty()) {
      body(rewriter, ValueRange{});
      return;
    }
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    SmallVector<Value> lbs(batch.size(), zero), steps(batch.size(), one), ubs;
    for (int64_t d : batch)
      ubs.push_back(arith::ConstantIndexOp::create(rewriter, loc, d));
    scf::ParallelOp::create(rewriter, loc, lbs, ubs, steps,
                            [&](OpBuilder &b, Location, ValueRange p) { body(b, p); });
  }

  Value asTensor(Value buffer, Type type) {
    return bufferization::ToTensorOp::create(rewriter, loc, type, buffer, /*restrict=*/true,
                                             /*writable=*/true);
  }

private:
  PatternRewriter &rewriter;
  Location loc;
  ArrayRef<int64_t> batch;
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

struct BatchParallelScanToLoops : OpRewritePattern<ScanOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ScanOp scan, PatternRewriter &rewriter) const override {
    FailureOr<ArrayRef<int64_t>> batch = batchShapeOf(scan, rewriter);
    if (failed(batch))
      return failure();
    ScanOp consumer = fusableConsumer(scan, *batch, rewriter);
    if (consumer)
      rewriter.setInsertionPoint(consumer); // inputs of both exist here

    Location loc = scan.getLoc();
    ParallelScanEmitter emitter(rewriter, loc, *batch);
    SmallVector<ScanOp> group = {scan};
    if (consumer)
      group.push_back(consumer);
    for (ScanOp s : group)
      emitter.prepareInputs(s);

    // Outputs: final carries and ys of every scan of the group (the
    // producer's ys that only the consumer reads live in scratch).
    auto outputsOf = [&](ScanOp s, SmallVector<Value> &carryOut,
                         SmallVector<ElementAccess> &ysAccess) {
      for (Value c : s.getFinalCarries())
        carryOut.push_back(c.use_empty() ? Value() : emitter.allocFor(c.getType()));
      for (auto [j, ys] : llvm::enumerate(s.getYs())) {
        if (ys.use_empty()) {
          ysAccess.push_back({});
        } else if (consumer && s == scan) {
          auto type = tensorTypeOf(ys);
          SmallVector<int64_t> shape(*batch);
          shape.push_back(s.getLength());
          ysAccess.push_back({memref::AllocOp::create(rewriter, loc,
                                                      MemRefType::get(shape, type.getElementType())),
                              /*scratch=*/true});
        } else {
          ysAccess.push_back({emitter.allocFor(ys.getType()), false, s.getYsAxis(j)});
        }
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
        access.push_back({emitter.bufferOf(x), false, s.getXsAxis(j)});
      return access;
    };
    SmallVector<ElementAccess> xsAccess = globalXs(scan);

    emitter.emitParallel([&](OpBuilder &b, ValueRange p) {
      if (!consumer) {
        emitter.emitLoop(b, scan, p, xsAccess, ysAccess, carryOut);
        return;
      }
      SmallVector<ElementAccess> producerYs(ysAccess);
      DenseMap<Value, ElementAccess> scratchOf;
      for (auto [j, access] : llvm::enumerate(producerYs))
        if (access.scratch)
          scratchOf[scan.getYs()[j]] = access;
      emitter.emitLoop(b, scan, p, xsAccess, producerYs, carryOut);
      SmallVector<ElementAccess> consumerXs;
      for (auto [j, x] : llvm::enumerate(consumer.getXs()))
        consumerXs.push_back(scratchOf.count(x) ? scratchOf[x]
                                                : ElementAccess{emitter.bufferOf(x), false,
                                                                consumer.getXsAxis(j)});
      emitter.emitLoop(b, consumer, p, consumerXs, consumerYsAccess, consumerCarryOut);
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
};

struct ScanToParallelLoopsPass
    : kiln::impl::ScanToParallelLoopsBase<ScanToParallelLoopsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<BatchParallelScanToLoops>(&getContext());
    GreedyRewriteConfig config;
    config.setUseTopDownTraversal(true);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      signalPassFailure();
  }
};

} // namespace
