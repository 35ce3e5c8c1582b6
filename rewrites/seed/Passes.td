//===- Passes.td - Kiln's built-in rewrite passes ----------*- tablegen -*-===//
#ifndef KILN_REWRITES_SEED_PASSES_TD
#define KILN_REWRITES_SEED_PASSES_TD

include "mlir/Pass/PassBase.td"

def CanonicalizeDotGeneral : Pass<"kiln-canonicalize-dot-general"> {
  let summary = "Fold transposes into dot_general and bring it to one canonical form";
  let description = [{
    Exact rewrites (seed 000): a transpose of an operand folds into the
    dimension numbers when it keeps the operand's free dimensions in order; a
    transpose of the result that puts the rhs free dimensions first becomes an
    operand swap; contracting pairs are sorted by lhs dimension; an operand
    with no free dimensions goes on the right. After this pass seed 000's f1
    and f2 are the same IR.
  }];
  let dependentDialects = ["::kiln::lax::LaxDialect"];
}

def FoldScanLayout : Pass<"kiln-fold-scan-layout"> {
  let summary = "Fold transposes and reverses around lax.scan into its axes";
  let description = [{
    Exact rewrites (seed 003): a transpose feeding an xs operand becomes that
    operand's scan axis, a transpose consuming a ys result becomes its stacking
    axis, and `rev` along the scan axis of every xs and ys flips `reverse`.
  }];
  let dependentDialects = ["::kiln::lax::LaxDialect"];
}

def ScanPushUp : Pass<"kiln-scan-pushup"> {
  let summary = "Push elementwise consumers and reductions of a scan's ys into its body";
  let description = [{
    Seed 002: `reduce_sum((y - scan(...).ys) ** 2)` becomes a scan carrying the
    running sum; the stacked ys disappears. Elementwise sinking is exact;
    moving a sum into the body or into a carry reassociates floating-point
    additions and runs only with `reassociate=true` (tag `reassociates-float`).
  }];
  let options = [
    Option<"reassociate", "reassociate", "bool", /*default=*/"false",
           "Allow moving float sums into the body / a carry (reassociates-float)">
  ];
  let dependentDialects = ["::kiln::lax::LaxDialect"];
}

def ScanToReduction : Pass<"kiln-scan-to-reduction"> {
  let summary = "Turn a scan that only accumulates reductions of its xs into one reduction";
  let description = [{
    What the push-up leaves of seed 002, a scan whose carry accumulates
    `reduce_sum(f(x_t))` with f elementwise, is `init + reduce_sum(f(xs))`
    over the stacked xs: the loop disappears, f fuses into one reduction over
    all steps, and the pipelines run it on every core. Exact for max/min and
    integer sums/products; float sums/products regroup, so they need
    `reassociate=true` (tag `reassociates-float`).
  }];
  let options = [
    Option<"reassociate", "reassociate", "bool", /*default=*/"false",
           "Allow regrouping float sums/products (reassociates-float)">
  ];
  let dependentDialects = ["::kiln::lax::LaxDialect"];
}

def ScanToParallelLoops : Pass<"kiln-scan-to-parallel-loops"> {
  let summary = "Run batch-parallel scans as one parallel loop of scalar scans";
  let description = [{
    Seed 003: a scan whose body acts elementwise on one batch shape (every
    carry, xs slice and body value) becomes an scf.parallel over the batch
    whose body runs the whole scan on scalars: xs read and ys written in
    place, carries in registers. On the CPU the parallel loop runs on all
    cores; on the GPU it becomes one kernel, a thread per batch element.

    With `vector-bits=N` (the CPU pipeline sets 512) each iteration of the
    parallel loop runs N / (widest element bits) consecutive batch elements
    of the last batch dimension at once, as vector lanes (half as many for a
    body of arithmetic over strided rows, which moving the rows bounds): a scan's steps form
    a dependence chain (TDMA's division), so one element at a time leaves the
    core waiting on latency, while lanes of independent elements fill it.
    Strided xs/ys (one element's steps contiguous, as in seed 003) go
    through small [step, lane] tiles on the stack a block of `lanes` steps at
    a time (lanes x lanes transposes in registers), and the rows of the
    iteration `prefetch-distance` ahead are prefetched a block at a time; the
    last partial vector is masked. With `lane-groups=K` an iteration runs K
    such groups of lanes, each step once per group, op by op across the
    groups: K independent dependence chains for the out-of-order core (by
    default 16 when the lanes are contiguous in memory, 2 for a
    transcendental body over strided rows, 1 for arithmetic over strided
    rows, which moving the rows bounds).
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "int64_t", /*default=*/"0",
           "Run this many bits of batch elements per iteration as vector lanes (0: one element)">,
    Option<"laneGroups", "lane-groups", "int64_t", /*default=*/"0",
           "With vector lanes, run this many groups of lanes per iteration, their steps "
           "interleaved (independent dependence chains); 0: chosen per scan">,
    Option<"prefetchDistance", "prefetch-distance", "int64_t", /*default=*/"1",
           "With vector lanes, prefetch the strided rows this many iterations ahead (0: none)">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
                           "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect", "::mlir::vector::VectorDialect",
                           "::mlir::bufferization::BufferizationDialect"];
}

def ApproximateMath : Pass<"kiln-approximate-math"> {
  let summary = "Replace f32 transcendental math ops by vectorizable polynomial approximations";
  let description = [{
    Upstream's polynomial approximations (a few ulp on f32) instead of scalar
    libm calls, so loops over sin/cos/exp/log/tanh vectorize.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
                           "::mlir::vector::VectorDialect"];
}

def DedupFunctions : Pass<"kiln-dedup-functions", "::mlir::ModuleOp"> {
  let summary = "Merge structurally identical private functions";
  let description = [{
    Seed 001: an inner jitted function called ten times imports as ten pjit
    calls; identical private function bodies (after canonicalization) are
    merged into one and calls redirected, so the body is compiled once.
    With `inline-max-ops=N`, private functions of at most N ops are inlined
    into their callers afterwards.
  }];
  let options = [
    Option<"inlineMaxOps", "inline-max-ops", "int64_t", /*default=*/"0",
           "Inline private functions with at most this many ops (0: never)">
  ];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

#endif // KILN_REWRITES_SEED_PASSES_TD
