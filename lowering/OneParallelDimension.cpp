//===- OneParallelDimension.cpp - --kiln-one-parallel-dimension -----------===//
//
// Sound: the iterations of an scf.parallel without reductions are
// independent, so executing the iterations of all dimensions but one in
// sequence, inside each iteration of that one, computes the same thing; so
// does running a few leading dimensions as one (their index recovered by
// division), which visits the same iterations.
//
//===----------------------------------------------------------------------===//
#include "lowering/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

namespace kiln {
#define GEN_PASS_DEF_ONEPARALLELDIMENSION
#include "lowering/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

/// The iterations of a loop with constant bounds, if they are.
std::optional<int64_t> constantTrips(Value lb, Value ub, Value step) {
  APInt l, u, s;
  if (!matchPattern(lb, m_ConstantInt(&l)) || !matchPattern(ub, m_ConstantInt(&u)) ||
      !matchPattern(step, m_ConstantInt(&s)) || s.isZero())
    return std::nullopt;
  return std::max<int64_t>(0, llvm::divideCeil((u - l).getSExtValue(), s.getSExtValue()));
}

std::optional<int64_t> constantTrips(scf::ParallelOp loop, unsigned d) {
  return constantTrips(loop.getLowerBound()[d], loop.getUpperBound()[d], loop.getStep()[d]);
}

/// The first dimension of `loop` not known to have at most one iteration
/// (dimension 0 if every one has).
unsigned parallelDimension(scf::ParallelOp loop) {
  for (unsigned d = 0; d < loop.getNumLoops(); ++d) {
    std::optional<int64_t> trips = constantTrips(loop, d);
    if (!trips || *trips > 1)
      return d; // more than one iteration, or unknown: worth running in parallel
  }
  return 0;
}

/// Innermost iterations one run of `block` executes: the nested scf.for
/// loops' constant trip counts multiplied down each nest (a loop with
/// unknown bounds counts once), summed over the nests side by side.
int64_t nestedWork(Block &block) {
  int64_t work = 0;
  for (Operation &op : block) {
    int64_t inner = 0;
    for (Region &region : op.getRegions())
      for (Block &b : region)
        inner = std::max(inner, nestedWork(b));
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      std::optional<int64_t> trips =
          constantTrips(loop.getLowerBound(), loop.getUpperBound(), loop.getStep());
      inner = std::max<int64_t>(inner, 1) * trips.value_or(1);
    }
    work = std::min<int64_t>(work + inner, int64_t(1) << 40);
  }
  return work;
}

/// Static iterations of `loop` times the innermost iterations of its body;
/// -1 when a bound of `loop` is not constant.
int64_t staticWork(scf::ParallelOp loop) {
  int64_t work = 1;
  for (unsigned d = 0; d < loop.getNumLoops(); ++d) {
    std::optional<int64_t> trips = constantTrips(loop, d);
    if (!trips)
      return -1;
    work *= *trips;
  }
  return work * std::max<int64_t>(1, nestedWork(*loop.getBody()));
}

struct OneParallelDimensionPass
    : kiln::impl::OneParallelDimensionBase<OneParallelDimensionPass> {
  using Base::Base;
  void runOnOperation() override {
    // Outermost parallel loops first; a loop made sequential exposes the
    // parallel loops nested in it (a matmul's loop order can put a parallel
    // dimension inside a reduction), which the next round sees on their own:
    // dispatching each of their tiny runs would cost far more than it does.
    bool changed = true;
    while (changed) {
      changed = false;
      SmallVector<scf::ParallelOp> loops;
      getOperation().walk([&](scf::ParallelOp loop) {
        if (loop.getInitVals().empty() && !loop->getParentOfType<scf::ParallelOp>())
          loops.push_back(loop);
      });
      for (scf::ParallelOp loop : loops) {
        // A batch-parallel scan says its work (elements times steps): its
        // loops also copy tiles and prefetch, which staticWork would count.
        int64_t work = staticWork(loop);
        if (auto scanWork = loop->getAttrOfType<IntegerAttr>("kiln.parallel_scan"))
          work = scanWork.getInt();
        bool small = work >= 0 && work < minParallelWork;
        if (loop.getNumLoops() > 1 || small) {
          rewrite(loop, small);
          changed = true;
        }
      }
    }
    // One level of parallelism: a parallel loop inside one that runs in
    // parallel runs in sequence. The outer loop already gives every core
    // work, and each inner dispatch would cost more than its share (MLIR's
    // async runtime, which ran the loops before, even hung there: an i32
    // batched matmul 16x128x128, whose loop order puts the output's last
    // dimension inside the contraction, tests/lowering/nested-parallel-loops.mlir). Post-order: inner loops before the ones around
    // them, so no loop is rewritten after an ancestor was cloned.
    SmallVector<scf::ParallelOp> nested;
    getOperation().walk([&](scf::ParallelOp loop) {
      if (loop.getInitVals().empty() && loop->getParentOfType<scf::ParallelOp>())
        nested.push_back(loop);
    });
    for (scf::ParallelOp loop : nested)
      rewrite(loop, /*allSequential=*/true);
  }

  /// One parallel dimension with the others as loops inside it, or (for a
  /// loop too small to be worth a dispatch) loops only. The parallel
  /// dimension is the first with more than one iteration, joined by the
  /// ones after it (never the last) while it has fewer than
  /// `minParallelIterations` iterations, so the cores get even shares.
  void rewrite(scf::ParallelOp loop, bool allSequential) {
    unsigned k = parallelDimension(loop);
    unsigned end = k + 1; // the parallel dimensions are [k, end)
    if (std::optional<int64_t> trips = constantTrips(loop, k)) {
      int64_t joined = *trips;
      while (end + 1 < loop.getNumLoops() && joined < minParallelIterations) {
        std::optional<int64_t> next = constantTrips(loop, end);
        if (!next)
          break;
        joined *= *next;
        ++end;
      }
    }
    Location loc = loop.getLoc();
    OpBuilder b(loop);
    SmallVector<unsigned> sequential;
    for (unsigned d = 0; d < loop.getNumLoops(); ++d)
      if (d < k || d >= end || allSequential)
        sequential.push_back(d);
    IRMapping mapping;
    // The body's stack allocations die with its iteration (scf.parallel is
    // an automatic allocation scope); inside sequential loops an
    // alloca_scope keeps them from piling up.
    bool allocates = !sequential.empty() && llvm::any_of(loop.getBody()->getOperations(),
                                                          llvm::IsaPred<memref::AllocaOp>);
    // Nested scf.for loops over `sequential[i..]`, the original body inside.
    std::function<void(OpBuilder &, unsigned)> nest = [&](OpBuilder &nb, unsigned i) {
      if (i == sequential.size()) {
        auto cloneBody = [&](OpBuilder &cb) {
          for (Operation &op : loop.getBody()->without_terminator())
            cb.clone(op, mapping);
        };
        if (!allocates) {
          cloneBody(nb);
          return;
        }
        auto scope = memref::AllocaScopeOp::create(nb, loc, TypeRange{});
        Region &region = scope.getBodyRegion();
        OpBuilder sb = OpBuilder::atBlockBegin(region.empty() ? &region.emplaceBlock()
                                                              : &region.front());
        cloneBody(sb);
        memref::AllocaScopeReturnOp::create(sb, loc);
        return;
      }
      unsigned d = sequential[i];
      scf::ForOp::create(nb, loc, loop.getLowerBound()[d], loop.getUpperBound()[d],
                         loop.getStep()[d], ValueRange{},
                         [&](OpBuilder &fb, Location, Value iv, ValueRange) {
                           mapping.map(loop.getInductionVars()[d], iv);
                           nest(fb, i + 1);
                           scf::YieldOp::create(fb, loc);
                         });
    };
    if (allSequential) {
      nest(b, 0);
      loop.erase();
      return;
    }
    if (end == k + 1) {
      auto parallel = scf::ParallelOp::create(
          b, loc, ValueRange{loop.getLowerBound()[k]}, ValueRange{loop.getUpperBound()[k]},
          ValueRange{loop.getStep()[k]}, [&](OpBuilder &pb, Location, ValueRange ivs) {
            mapping.map(loop.getInductionVars()[k], ivs.front());
            nest(pb, 0);
          });
      parallel->setDiscardableAttrs(loop->getDiscardableAttrDictionary());
      loop.erase();
      return;
    }
    // Dimensions [k, end) as one: index i, the last dimension varying
    // fastest; dimension d's induction variable is lb + (i mod trips) * step
    // of what the later ones leave.
    int64_t total = 1;
    for (unsigned d = k; d < end; ++d)
      total *= *constantTrips(loop, d);
    auto constant = [&](OpBuilder &cb, int64_t v) {
      return arith::ConstantIndexOp::create(cb, loc, v);
    };
    auto parallel = scf::ParallelOp::create(
        b, loc, ValueRange{constant(b, 0)}, ValueRange{constant(b, total)},
        ValueRange{constant(b, 1)}, [&](OpBuilder &pb, Location, ValueRange ivs) {
          Value rest = ivs.front();
          for (unsigned d = end; d-- > k;) {
            Value index = rest;
            if (d != k) {
              Value trips = constant(pb, *constantTrips(loop, d));
              index = arith::RemUIOp::create(pb, loc, rest, trips);
              rest = arith::DivUIOp::create(pb, loc, rest, trips);
            }
            mapping.map(loop.getInductionVars()[d],
                        arith::AddIOp::create(
                            pb, loc, loop.getLowerBound()[d],
                            arith::MulIOp::create(pb, loc, index, loop.getStep()[d])));
          }
          nest(pb, 0);
        });
    parallel->setDiscardableAttrs(loop->getDiscardableAttrDictionary());
    loop.erase();
  }
};

} // namespace
