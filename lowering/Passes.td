//===- Passes.td - Kiln's lowering passes ------------------*- tablegen -*-===//
#ifndef KILN_LOWERING_PASSES_TD
#define KILN_LOWERING_PASSES_TD

include "mlir/Pass/PassBase.td"

def LaxToLinalg : Pass<"kiln-lax-to-linalg", "mlir::ModuleOp"> {
  let summary = "Lower lax to linalg/tensor/arith/math/scf on tensors";
  let description = [{
    Every lax op lowers by a dialect conversion: elementwise ops to
    linalg.generic, structural ops to tensor/linalg ops, reductions to
    linalg.reduce/generic, lax.scan to scf.for with the carries and the stacked
    ys as iter_args. GEMM-shaped dot_generals call the runtime
    (`kiln_rt_sgemm`/`kiln_rt_dgemm` in KilnRuntimeCpu) when `use-runtime-gemm`
    is set; every other contraction becomes a linalg.generic.
  }];
  let options = [
    Option<"useRuntimeGemm", "use-runtime-gemm", "bool", /*default=*/"true",
           "Call the runtime GEMM for GEMM-shaped f32/f64 dot_generals">,
    Option<"runtimeGemmMinMacs", "runtime-gemm-min-macs", "int64_t",
           /*default=*/"::kiln::lowering::defaultCpuCostModel().runtimeGemmMinMacs",
           "Smallest contraction (multiply-adds) sent to the runtime GEMM">
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::func::FuncDialect",
    "mlir::linalg::LinalgDialect", "mlir::math::MathDialect",
    "mlir::scf::SCFDialect", "mlir::tensor::TensorDialect",
    "mlir::bufferization::BufferizationDialect", "mlir::memref::MemRefDialect"
  ];
}

def FuseElementwise : Pass<"kiln-fuse-elementwise"> {
  let summary = "Fuse elementwise linalg ops, never recomputing a producer's elements";
  let description = [{
    Upstream's linalg-fuse-elementwise-ops (the same patterns: elementwise
    fusion, reshape folding by expansion, constant folding and the
    canonicalizations it adds), except that a producer whose body computes
    something is not fused into a consumer whose indexing map for it leaves
    out loop dimensions: the fused body would recompute each producer
    element once per point of those dimensions (a matvec's vector in every
    row). A producer that only moves data (a broadcast, a transpose) still
    fuses, as does everything upstream fuses otherwise. Exact either way:
    not fusing materialises the producer's result once.
  }];
  let dependentDialects = [
    "mlir::affine::AffineDialect", "mlir::linalg::LinalgDialect",
    "mlir::memref::MemRefDialect", "mlir::tensor::TensorDialect"
  ];
}

def VectorizeMatvec : Pass<"kiln-vectorize-matvec", "mlir::func::FuncOp"> {
  let summary = "Small row-major matrix-vector products as vector code, rows summed together";
  let description = [{
    A linalg.generic on memrefs computing y[i] += W[i, k] * x[k] (W [M, K]
    row-major, f32 or f64, static shapes, a `reassoc` add, as
    kiln-lax-to-linalg lowers a matvec dot_general) with at least one
    vector of rows, K a multiple of the vector and at most `max-macs`
    multiply-adds becomes scf.for loops over blocks of L rows (L =
    vector-bits / element bits): L vector accumulators over K, then one
    shuffle-and-add tree that reduces all L into one vector of row sums
    (2(L - 1) shuffles, instead of a horizontal sum of log2(L) shuffles
    for every row, which bound patrick-kidger/equinox#928's 64x64 layer on the one x86
    shuffle port). Rows past the last whole block are summed one by one.
    Reassociates the sum, which the `reassoc` flag allows.
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "int64_t", /*default=*/"::kiln::lowering::defaultCpuCostModel().matvecVectorBits",
           "Bits of one vector (the rows of a block)">,
    Option<"maxMacs", "max-macs", "int64_t", /*default=*/"::kiln::lowering::defaultCpuCostModel().matvecMaxMacs",
           "Largest product (multiply-adds) rewritten; larger ones run in parallel loops">
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::memref::MemRefDialect",
    "mlir::scf::SCFDialect", "mlir::vector::VectorDialect"
  ];
}

def LoopCarryInPlace : Pass<"kiln-loop-carry-in-place"> {
  let summary = "Compute scf.for and scf.while carries into their iter_args";
  let description = [{
    For each value an scf.for (or an scf.while body) yields, follows the destination-passing chain
    of its producer (linalg ops, fill, insert_slice) inside the loop body to
    a `tensor.empty` of the same type and replaces that empty tensor with the
    iter_arg. A tensor.empty's contents are unspecified, so this is exact;
    it lets one-shot bufferization update the carry buffer in place instead
    of allocating a new one every iteration.

    A tensor yielded (or forwarded by scf.condition) as two carries of one
    loop is copied (`bufferization.alloc_tensor() copy(...)`) for each
    repeat: one-shot bufferization would give both loop results one buffer
    without knowing they alias, so an in-place write into one changed the
    other.
  }];
  let dependentDialects = ["mlir::tensor::TensorDialect",
                           "mlir::bufferization::BufferizationDialect"];
}

def EliminateEmptyTensors : Pass<"kiln-eliminate-empty-tensors", "mlir::ModuleOp"> {
  let summary = "Upstream's eliminate-empty-tensors, where its replacement is in scope";
  let description = [{
    Replaces a tensor.empty whose value ends in a subset insertion
    (tensor.insert_slice) by the extraction of that subset of the
    destination, as upstream's `eliminate-empty-tensors`, but only where
    every value the extraction needs dominates the empty tensor's use.
    Upstream's check takes an op for dominating the ops in its own regions,
    so a slice of a lax.cond's result replaced an empty tensor inside one
    of its branches (invalid IR). Exact: an empty tensor's contents are
    unspecified, and one left in place only costs an allocation.
  }];
  let dependentDialects = ["mlir::bufferization::BufferizationDialect",
                           "mlir::tensor::TensorDialect"];
}

def OutputsInPlace : Pass<"kiln-outputs-in-place", "mlir::func::FuncOp"> {
  let summary = "Compute results directly into caller-owned output memrefs";
  let description = [{
    For `memref.copy(bufferization.to_buffer %r, %out)` where `%out` is a
    function argument used by nothing else and `%r` comes from a chain of
    destination-passing ops (each value used once) that starts at a
    `tensor.empty`, the empty tensor is replaced by
    `bufferization.to_tensor %out restrict writable`: the chain then writes
    into `%out` and the copy becomes a self-copy that canonicalization
    removes. Exact: an empty tensor's contents are unspecified, and the
    single-use chain means no other op reads or writes those values.
    For `memref.copy(%alloc, %out)` of a `memref.alloc` of the output's type
    that every op (through views too) reads or writes before the copy, and
    that is neither freed nor made into a tensor (kiln-scan-to-parallel-loops'
    results), `%out` replaces the alloc and the copy is erased. Exact: `%out`
    then holds what the alloc held at the copy, and nothing uses it after.
    (Upstream eliminate-empty-tensors also rewrites chains whose values have
    other users, which corrupts results written to memref destinations.)
  }];
  let dependentDialects = ["mlir::bufferization::BufferizationDialect"];
}

def OneParallelDimension : Pass<"kiln-one-parallel-dimension", "mlir::func::FuncOp"> {
  let summary = "Keep one parallel dimension per scf.parallel, loop over the others";
  let description = [{
    A multi-dimensional scf.parallel (what convert-linalg-to-parallel-loops
    makes of a linalg op) keeps its first dimension with more than one
    iteration as the parallel one; while that has fewer than
    `min-parallel-iterations` iterations, the dimensions after it (never
    the last) join it as one linearized dimension, so the cores get even
    shares. The other dimensions become scf.for loops inside it, in their
    order, so the innermost loop still walks contiguous memory for the
    vectorizer. Exact: scf.parallel iterations are
    independent, so running some of them in sequence changes nothing. It
    gives kiln-outline-parallel-loops the one-dimensional loops it hands
    to the runtime. A loop
    whose static work (its iterations times the innermost iterations of its
    body, trip counts multiplied down each nest; for a batch-parallel scan's
    loop, the elements times steps its
    `kiln.parallel_scan` attribute gives) is below `min-parallel-work`
    becomes loops only: a dispatch costs more than it saves there, and
    small programs (patrick-kidger/equinox#928's MLP) keep code without runtime dispatches.
    Stack allocations of a body that ends up inside sequential loops get an
    alloca_scope, as scf.parallel gave them one per iteration.
  }];
  let options = [
    Option<"minParallelWork", "min-parallel-work", "int64_t", /*default=*/"::kiln::lowering::defaultCpuCostModel().minParallelWork",
           "Smallest static work (iterations) run as a parallel loop">,
    Option<"minParallelIterations", "min-parallel-iterations", "int64_t", /*default=*/"::kiln::lowering::defaultCpuCostModel().minParallelIterations",
           "Join dimensions into the parallel one until it has this many iterations">
  ];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect"];
}

def OutlineLargeFunctions : Pass<"kiln-outline-large-functions", "mlir::ModuleOp"> {
  let summary = "Split large bufferized functions into parts called in sequence";
  let description = [{
    LLVM's optimizer and code generator take time superlinear in the size
    of a function (scheduling, register allocation, GVN over one huge
    block): a program of thousands of equations, lowered to one function,
    compiled in minutes. A function body of more than twice
    `max-ops-per-function` operations (nested ones counted) is cut, in
    order, into runs of top-level operations of about that size; each run
    becomes a private function `__kiln_outlined_<function>_<k>` called where
    the run was. Values a run uses from before it are its arguments (a
    constant is cloned into it instead), values used after it its results.
    Sound on bufferized code: the calls run the same operations in the same
    order on the same buffers (memrefs are passed by descriptor, so writes
    through an argument reach the caller's buffer). Stack allocations of
    the body (static memref.alloca) move to its start first - the body is
    one allocation scope, so their lifetime is unchanged - and stay in the
    caller, passed to the parts that use them. LLVM dialect operations
    (stack save/restore pairs) are never moved. Run after bufferization,
    before kiln-parallel-alloca-scopes; the host JIT marks the parts
    noinline so that LLVM compiles them apart.
  }];
  let options = [
    Option<"maxOpsPerFunction", "max-ops-per-function", "int64_t", /*default=*/"::kiln::lowering::defaultCpuCostModel().maxOpsPerFunction",
           "Operations per part; 0 never splits">
  ];
  let dependentDialects = ["mlir::func::FuncDialect"];
}

def ParallelAllocaScopes : Pass<"kiln-parallel-alloca-scopes", "mlir::func::FuncOp"> {
  let summary = "Free each scf.parallel iteration's stack allocations at its end";
  let description = [{
    Brackets the body of every scf.parallel that holds a memref.alloca with
    llvm.intr.stacksave / stackrestore (what a memref.alloca_scope lowers
    to; the scope op itself cannot survive convert-scf-to-cf). scf.parallel
    is itself an automatic allocation scope, but the lowerings that turn it
    into sequential loops
    (kiln-outline-parallel-loops, scf-to-cf) do not keep that: without the explicit
    scope, the vector-lane tiles of kiln-scan-to-parallel-loops would grow
    the stack by one tile set per iteration. Run it right before those
    lowerings, after buffer hoisting (which may move allocas to the top of
    the body). Each memref.alloca_scope without results (what
    kiln-one-parallel-dimension puts around a body it runs in sequence) is
    replaced the same way: its body inlined between a stacksave and a
    stackrestore.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def GroupRuntimeGemms : Pass<"kiln-group-runtime-gemms", "mlir::ModuleOp"> {
  let summary = "Call independent runtime GEMMs of a block as one group";
  let description = [{
    On buffers: two to four calls of `kiln_rt_sgemm` (or of `kiln_rt_dgemm`)
    in one block, none reading or writing a buffer another writes, become
    one call of `kiln_rt_sgemm_group<N>(A0, B0, C0, ..., transA0, transB0,
    ...)`, which runs them as one parallel loop over their blocks (an RNN
    step's input and recurrent products one per thread). A later call is
    moved up to the first, with the view ops and allocations that define
    its operands, when nothing it passes conflicts with it
    (LocalAliasAnalysis); at most 64 ops apart.
  }];
  let dependentDialects = ["mlir::func::FuncDialect"];
}

def OutlineParallelLoops : Pass<"kiln-outline-parallel-loops", "mlir::ModuleOp"> {
  let summary = "Outline each parallel loop's body for the runtime's thread pool";
  let description = [{
    Each outermost one-dimensional scf.parallel without reductions (what
    kiln-one-parallel-dimension leaves to run on all cores) becomes a
    private function `__kiln_parallel_body_<k>(begin, end, captures...)`
    that runs iterations [begin, end) of it in sequence, and a call of the
    bodiless `__kiln_parallel_for_<k>(trips, captures...)` where the loop
    was. The captures are the values the body reads from above it (constants
    are cloned into it), then the loop's lower bound and step.
    kiln-parallel-loops-to-runtime replaces the call, in the LLVM dialect,
    with the runtime's kiln_rt_parallel_for, which hands ranges of
    iterations to the pool one at a time (the caller takes part), so no
    coroutines or task graph are compiled and a busy machine's late worker
    never holds a loop up. Sound: scf.parallel's iterations are independent.
    Nested parallel loops stay in the body and run in sequence.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::func::FuncDialect",
                           "mlir::scf::SCFDialect"];
}

def ParallelLoopsToRuntime : Pass<"kiln-parallel-loops-to-runtime", "mlir::ModuleOp"> {
  let summary = "Call the runtime's parallel-for for each outlined parallel loop";
  let description = [{
    On the LLVM dialect, after kiln-outline-parallel-loops and the
    conversion to LLVM: each call of `__kiln_parallel_for_<k>` stores its
    captures into a stack struct (allocated once in the caller's entry
    block) and calls `kiln_rt_parallel_for(task, ctx, trips)`, where the new
    internal `__kiln_parallel_task_<k>(ctx, begin, end)` loads the captures
    and calls the body. The runtime returns when every range has run.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def ScanToParallelLoops : Pass<"kiln-scan-to-parallel-loops"> {
  let summary = "Run batch-parallel scans as one parallel loop of scalar scans";
  let description = [{
    jax-ml/jax#2491: a scan whose body acts elementwise on one batch shape (every
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
    Strided xs/ys (one element's steps contiguous, as in jax-ml/jax#2491) go
    through small [step, lane] tiles on the stack a block of `lanes` steps at
    a time (lanes x lanes transposes in registers), and the rows of the
    iteration `prefetch-distance` ahead are prefetched a block at a time; the
    last partial vector is masked. With `lane-groups=K` an iteration runs K
    such groups of lanes, each step once per group, op by op across the
    groups: K independent dependence chains for the out-of-order core (by
    default 16 when the lanes are contiguous in memory, 2 for a
    transcendental body over strided rows, 2 for arithmetic over strided
    rows: lowering/CpuCostModel.h). With `register-bits=R` (the CPU
    pipeline: the host's vector registers) a block whose two rows fit one
    register (and of at least CpuCostModel::pairedTransposeMinLanes lanes)
    is transposed two rows to a register.
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "int64_t", /*default=*/"0",
           "Run this many bits of batch elements per iteration as vector lanes (0: one element)">,
    Option<"laneGroups", "lane-groups", "int64_t", /*default=*/"0",
           "With vector lanes, run this many groups of lanes per iteration, their steps "
           "interleaved (independent dependence chains); 0: chosen per scan">,
    Option<"prefetchDistance", "prefetch-distance", "int64_t", /*default=*/"::kiln::lowering::defaultCpuCostModel().scanPrefetchDistance",
           "With vector lanes, prefetch the strided rows this many iterations ahead (0: none)">,
    Option<"registerBits", "register-bits", "int64_t", /*default=*/"0",
           "Bits of the target's vector registers: at twice a block row's bits or more (and "
           "CpuCostModel::pairedTransposeMinLanes lanes), block transposes keep two rows to a "
           "register (0: one)">,
    Option<"stepMajorScratch", "step-major-scratch", "bool", /*default=*/"false",
           "Without vector lanes, lay out a fused pair's scratch [step, batch...] (neighbouring "
           "elements adjacent: a GPU's threads coalesce) instead of [batch..., step] (each "
           "element's steps adjacent: a CPU core's cache)">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
                           "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect", "::mlir::vector::VectorDialect",
                           "::mlir::bufferization::BufferizationDialect"];
}

def ExpandSort : Pass<"kiln-expand-sort"> {
  let summary = "Short lax.sort/top_k as an n x n comparison; long ones on integer keys";
  let description = [{
    Along an axis of at most `rank-max-length` elements, lax.sort and
    lax.top_k become lax ops that rank every element by comparing all pairs
    (elementwise code, no runtime: the GPU pipeline's way). Along longer
    axes their float keys become integers ordered as the floats are, which
    the lowering sorts with the CPU runtime (runtime/cpu/KilnSort.cpp).
  }];
  let options = [
    Option<"rankMaxLength", "rank-max-length", "int64_t",
           /*default=*/"::kiln::lowering::defaultCpuCostModel().sortRankMaxLength",
           "Longest axis sorted by ranks (n x n comparisons)">,
    Option<"runtimeSort", "runtime-sort", "bool", /*default=*/"true",
           "Leave longer axes to the CPU runtime's sort; otherwise they are an "
           "error (the GPU pipeline, which has no runtime sort)">,
  ];
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

def FlushSubnormals : Pass<"kiln-flush-subnormals", "mlir::ModuleOp"> {
  let summary = "Run compiled code with subnormal floats flushed to zero, as XLA:CPU does";
  let description = [{
    Each public function and each parallel loop's body
    (__kiln_parallel_body_*, run on the runtime's workers)
    sets the thread's floating-point mode to flush subnormal inputs and
    results to zero (x86-64's DAZ and FTZ; runtime/cpu/KilnFloatMode.cpp)
    on entry and restores the caller's mode before it returns.
  }];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

#endif // KILN_LOWERING_PASSES_TD
