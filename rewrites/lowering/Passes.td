//===- Passes.td - Kiln's lowering passes ------------------*- tablegen -*-===//
#ifndef KILN_REWRITES_LOWERING_PASSES_TD
#define KILN_REWRITES_LOWERING_PASSES_TD

include "mlir/Pass/PassBase.td"

def KilnLaxToLinalg : Pass<"kiln-lax-to-linalg", "mlir::ModuleOp"> {
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
           /*default=*/"32768",
           "Smallest contraction (multiply-adds) sent to the runtime GEMM">
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::func::FuncDialect",
    "mlir::linalg::LinalgDialect", "mlir::math::MathDialect",
    "mlir::scf::SCFDialect", "mlir::tensor::TensorDialect",
    "mlir::bufferization::BufferizationDialect", "mlir::memref::MemRefDialect"
  ];
}

def KilnFuseElementwise : Pass<"kiln-fuse-elementwise"> {
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

def KilnVectorizeMatvec : Pass<"kiln-vectorize-matvec", "mlir::func::FuncOp"> {
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
    for every row, which bound seed 004's 64x64 layer on the one x86
    shuffle port). Rows past the last whole block are summed one by one.
    Reassociates the sum, which the `reassoc` flag allows.
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "int64_t", /*default=*/"512",
           "Bits of one vector (the rows of a block)">,
    Option<"maxMacs", "max-macs", "int64_t", /*default=*/"65536",
           "Largest product (multiply-adds) rewritten; larger ones run in parallel loops">
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::memref::MemRefDialect",
    "mlir::scf::SCFDialect", "mlir::vector::VectorDialect"
  ];
}

def KilnLoopCarryInPlace : Pass<"kiln-loop-carry-in-place"> {
  let summary = "Compute scf.for carries into their iter_args";
  let description = [{
    For each value an scf.for yields, follows the destination-passing chain
    of its producer (linalg ops, fill, insert_slice) inside the loop body to
    a `tensor.empty` of the same type and replaces that empty tensor with the
    iter_arg. A tensor.empty's contents are unspecified, so this is exact;
    it lets one-shot bufferization update the carry buffer in place instead
    of allocating a new one every iteration.
  }];
  let dependentDialects = ["mlir::tensor::TensorDialect"];
}

def KilnOutputsInPlace : Pass<"kiln-outputs-in-place", "mlir::func::FuncOp"> {
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

def KilnOneParallelDimension : Pass<"kiln-one-parallel-dimension", "mlir::func::FuncOp"> {
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
    gives async-parallel-for the one-dimensional loops it splits correctly
    (its multi-dimensional "aligned" split ran parts of 3-D loops twice on
    LLVM 22, see tests/unit/lowering/InterpreterComparisonTest.cpp). A loop
    whose static work (its iterations times the innermost iterations of its
    body, trip counts multiplied down each nest; for a batch-parallel scan's
    loop, the elements times steps its
    `kiln.parallel_scan` attribute gives) is below `min-parallel-work`
    becomes loops only: a dispatch costs more than it saves there, and
    small programs (seed 004's MLP) keep code without the async runtime.
    Stack allocations of a body that ends up inside sequential loops get an
    alloca_scope, as scf.parallel gave them one per iteration.
  }];
  let options = [
    Option<"minParallelWork", "min-parallel-work", "int64_t", /*default=*/"65536",
           "Smallest static work (iterations) run as a parallel loop">,
    Option<"minParallelIterations", "min-parallel-iterations", "int64_t", /*default=*/"64",
           "Join dimensions into the parallel one until it has this many iterations">
  ];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect"];
}

def KilnParallelAllocaScopes : Pass<"kiln-parallel-alloca-scopes", "mlir::func::FuncOp"> {
  let summary = "Free each scf.parallel iteration's stack allocations at its end";
  let description = [{
    Brackets the body of every scf.parallel that holds a memref.alloca with
    llvm.intr.stacksave / stackrestore (what a memref.alloca_scope lowers
    to; the scope op itself cannot survive convert-scf-to-cf). scf.parallel
    is itself an automatic allocation scope, but the lowerings that turn it
    into sequential loops
    (async-parallel-for, scf-to-cf) do not keep that: without the explicit
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

#endif // KILN_REWRITES_LOWERING_PASSES_TD
