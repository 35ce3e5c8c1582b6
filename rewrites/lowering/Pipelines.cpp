//===- Pipelines.cpp - the --kiln-lower-cpu pipeline ----------------------===//
//
// lax -> linalg on tensors -> fused linalg -> buffers (one-shot, function
// boundaries, identity layouts at the boundary) -> ownership-based
// deallocation -> loops -> cf -> LLVM dialect. Upstream passes are named by
// their registered pipeline text so this file needs no per-pass headers.
//
//===----------------------------------------------------------------------===//
#include "rewrites/lowering/Passes.h"
#include "rewrites/seed/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/ErrorHandling.h"

#include <mutex>

using namespace mlir;

namespace {
/// The upstream passes the pipeline text names must be registered; tools
/// that already called registerAllPasses pay nothing more.
void ensureUpstreamPassesRegistered() {
  static std::once_flag once;
  std::call_once(once, [] { mlir::registerAllPasses(); });
}

void addText(OpPassManager &pm, StringRef text) {
  if (failed(parsePassPipeline(text, pm)))
    llvm::report_fatal_error(llvm::Twine("kiln: bad pipeline text: ") + text);
}
} // namespace

void kiln::buildKilnLowerCpuPipeline(OpPassManager &pm,
                                     const CpuPipelineOptions &options) {
  buildKilnLaxToLinalgPipeline(pm, options);
  buildKilnLinalgToLLVMPipeline(pm, options);
}

void kiln::buildKilnLaxToLinalgPipeline(OpPassManager &pm,
                                        const CpuPipelineOptions &options) {
  OpPassManager &funcPm = pm.nest<func::FuncOp>();
  // Exact: transposes around a dot_general fold into its dimension numbers,
  // and transposes/reverses around scans into scan axes and direction, so
  // seed 000's f1 compiles to f2's single GEMM and seed 003's scans as
  // written to the folded form, without the user asking for kiln-optimize.
  funcPm.addPass(createCanonicalizeDotGeneral());
  funcPm.addPass(createFoldScanLayout());
  funcPm.addPass(createCanonicalizerPass());
  if (options.parallelScans) {
    funcPm.addPass(createScanToParallelLoops(
        {options.scanVectorBits, options.scanLaneGroups}));
    funcPm.addPass(createCanonicalizerPass());
  }
  KilnLaxToLinalgOptions laxOptions;
  laxOptions.useRuntimeGemm = options.useRuntimeGemm;
  laxOptions.runtimeGemmMinMacs = options.runtimeGemmMinMacs;
  pm.addPass(createKilnLaxToLinalg(laxOptions));
  if (options.approximateMath)
    pm.addPass(createApproximateMath());
}

void kiln::buildKilnBufferizePipeline(OpPassManager &pm,
                                      const CpuPipelineOptions &options,
                                      bool deallocate) {
  ensureUpstreamPassesRegistered();
  addText(pm, "canonicalize,linalg-generalize-named-ops");
  pm.addPass(createKilnFuseElementwise());
  addText(pm, "canonicalize,cse");
  // Tensors become buffers; function arguments and results get identity
  // layouts so callers pass plain row-major descriptors.
  // Scan carries are computed into their loop buffers (no alloc per step).
  pm.addPass(createKilnLoopCarryInPlace());
  // Results computed straight into kiln::Compiler's output buffers.
  pm.addNestedPass<func::FuncOp>(createKilnOutputsInPlace());
  addText(pm, "eliminate-empty-tensors,empty-tensor-to-alloc-tensor,"
              "one-shot-bufferize{bufferize-function-boundaries "
              "allow-return-allocs-from-loops "
              "function-boundary-type-conversion=identity-layout-map},"
              "canonicalize");
  addText(pm, "func.func(buffer-hoisting,buffer-loop-hoisting)");
  if (options.promoteToStack)
    addText(
        pm,
        "func.func(promote-buffers-to-stack{max-alloc-size-in-bytes=4096})");
  if (!deallocate) {
    addText(pm, "canonicalize,cse");
    return;
  }
  addText(pm, "ownership-based-buffer-deallocation,canonicalize,"
              "buffer-deallocation-simplification,bufferization-lower-"
              "deallocations,cse,"
              "canonicalize");
}

void kiln::buildKilnLinalgToLLVMPipeline(OpPassManager &pm,
                                         const CpuPipelineOptions &options) {
  buildKilnBufferizePipeline(pm, options);
  // Small dense layers (batch-1 matvecs) sum a block of rows together.
  pm.addNestedPass<func::FuncOp>(createKilnVectorizeMatvec());
  // Every linalg op's parallel dimensions become an scf.parallel (its
  // reductions loops inside), so a large elementwise op or partial
  // reduction runs on all cores like the parallel scans below; a loop with
  // too little work for a dispatch becomes plain loops
  // (kiln-one-parallel-dimension). No linalg op is left after this.
  addText(pm, "func.func(convert-linalg-to-parallel-loops)");
  pm.addNestedPass<func::FuncOp>(createKilnOneParallelDimension());
  // The vector-lane tiles of each parallel-scan iteration are freed at its
  // end, whether it runs in parallel or in sequence.
  pm.addNestedPass<func::FuncOp>(createKilnParallelAllocaScopes());
  if (options.parallelScans) {
    // scf.parallel (the batch-parallel scans and large linalg ops) runs on
    // all cores through MLIR's async runtime (libmlir_async_runtime, loaded
    // by the JIT).
    addText(pm, "async-parallel-for{async-dispatch=1 num-workers=-1 min-task-size=1},"
                "async-to-async-runtime,async-runtime-ref-counting,"
                "async-runtime-ref-counting-opt,arith-expand");
  }
  addText(pm,
          // Vector lanes of the parallel scans: the tiles' block transposes
          // (2-D transfers) unroll to rows before scf goes to cf; the
          // transposes become 16x16 shuffles, the rest masked loads/stores.
          // (Before any canonicalize: it would turn a transpose whose rows
          // are extracted into 256 scalar extracts and inserts.)
          "lower-affine,convert-vector-to-scf{full-unroll=1},"
          "convert-vector-to-llvm{vector-transpose-lowering=shuffle16x16},"
          "convert-scf-to-cf,canonicalize,convert-async-to-llvm,"
          "expand-strided-metadata,lower-affine,"
          // Allocations go through Kiln's caching allocator (runtime/cpu).
          "finalize-memref-to-llvm{use-generic-functions=1},"
          "convert-math-to-llvm,convert-math-to-libm,convert-arith-to-llvm,"
          "convert-index-to-llvm,convert-cf-to-llvm,convert-func-to-llvm,convert-ub-to-llvm,"
          "reconcile-unrealized-casts,canonicalize,cse");
}

void kiln::registerKilnLowering() {
  registerKilnLoweringPasses();
  PassPipelineRegistration<>(
      "kiln-lower-cpu", "Lower lax to the LLVM dialect for the CPU JIT",
      [](OpPassManager &pm) { buildKilnLowerCpuPipeline(pm); });
}
