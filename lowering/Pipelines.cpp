//===- Pipelines.cpp - the --kiln-lower-cpu pipeline ----------------------===//
//
// lax -> linalg on tensors -> fused linalg -> buffers (one-shot, function
// boundaries, identity layouts at the boundary) -> ownership-based
// deallocation -> loops -> cf -> LLVM dialect. Every pass is built from its
// constructor (no pipeline text to parse, nothing to register first); each
// comment names the pass's command-line spelling so the pipeline can still
// be replayed with kiln-opt --pass-pipeline.
//
//===----------------------------------------------------------------------===//
#include "lowering/Passes.h"
#include "transforms/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

// The two linalg passes' declarations alone: mlir/Dialect/Linalg/Passes.h
// would bring in all of linalg's transforms (a fifth of this file's
// preprocessed size). Upstream's per-pass conversion headers do the same.
namespace mlir {
#define GEN_PASS_DECL_LINALGGENERALIZENAMEDOPSPASS
#define GEN_PASS_DECL_CONVERTLINALGTOPARALLELLOOPSPASS
#include "mlir/Dialect/Linalg/Passes.h.inc"
} // namespace mlir

using namespace mlir;

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
  // jax-ml/jax#19327's f1 compiles to f2's single GEMM and jax-ml/jax#2491's scans as
  // written to the folded form, without the user asking for kiln-optimize.
  funcPm.addPass(createCanonicalizeDotGeneral());
  if (options.foldScanLayout)
    funcPm.addPass(createFoldScanLayout());
  funcPm.addPass(createCanonicalizerPass());
  if (options.parallelScans) {
    ScanToParallelLoopsOptions scanOptions;
    scanOptions.stepMajorScratch = options.scanScratchStepMajor;
    scanOptions.vectorBits = options.scanVectorBits;
    scanOptions.laneGroups = options.scanLaneGroups;
    scanOptions.registerBits = options.scanRegisterBits;
    funcPm.addPass(createScanToParallelLoops(scanOptions));
    funcPm.addPass(createCanonicalizerPass());
  }
  funcPm.addPass(createExpandSort({options.sortRankMaxLength}));
  LaxToLinalgOptions laxOptions;
  laxOptions.useRuntimeGemm = options.useRuntimeGemm;
  laxOptions.runtimeGemmMinMacs = options.runtimeGemmMinMacs;
  pm.addPass(createLaxToLinalg(laxOptions));
  if (options.approximateMath)
    pm.addPass(createApproximateMath());
}

void kiln::buildKilnBufferizePipeline(OpPassManager &pm,
                                      const CpuPipelineOptions &options,
                                      bool deallocate) {
  // canonicalize,linalg-generalize-named-ops
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createLinalgGeneralizeNamedOpsPass());
  pm.addPass(createFuseElementwise());
  // canonicalize,cse
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Tensors become buffers; function arguments and results get identity
  // layouts so callers pass plain row-major descriptors.
  // Scan carries are computed into their loop buffers (no alloc per step).
  pm.addPass(createLoopCarryInPlace());
  // Results computed straight into kiln::Compiler's output buffers.
  pm.addNestedPass<func::FuncOp>(createOutputsInPlace());
  // kiln-eliminate-empty-tensors (upstream's, with its replacements in
  // scope),empty-tensor-to-alloc-tensor,
  // one-shot-bufferize{bufferize-function-boundaries
  //   allow-return-allocs-from-loops
  //   function-boundary-type-conversion=identity-layout-map},canonicalize
  pm.addPass(createEliminateEmptyTensors());
  pm.addPass(bufferization::createEmptyTensorToAllocTensorPass());
  bufferization::OneShotBufferizePassOptions bufferizeOptions;
  bufferizeOptions.bufferizeFunctionBoundaries = true;
  bufferizeOptions.allowReturnAllocsFromLoops = true;
  bufferizeOptions.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferizeOptions));
  pm.addPass(createCanonicalizerPass());
  // func.func(buffer-hoisting,buffer-loop-hoisting)
  OpPassManager &hoistPm = pm.nest<func::FuncOp>();
  hoistPm.addPass(bufferization::createBufferHoistingPass());
  hoistPm.addPass(bufferization::createBufferLoopHoistingPass());
  if (options.promoteToStack) {
    // func.func(promote-buffers-to-stack{max-alloc-size-in-bytes=4096})
    bufferization::PromoteBuffersToStackPassOptions stackOptions;
    stackOptions.maxAllocSizeInBytes = 4096;
    pm.addNestedPass<func::FuncOp>(
        bufferization::createPromoteBuffersToStackPass(stackOptions));
  }
  if (!deallocate) {
    // canonicalize,cse
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
    return;
  }
  // ownership-based-buffer-deallocation,canonicalize,
  // buffer-deallocation-simplification,bufferization-lower-deallocations,
  // cse,canonicalize
  pm.addPass(bufferization::createOwnershipBasedBufferDeallocationPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(bufferization::createBufferDeallocationSimplificationPass());
  pm.addPass(bufferization::createLowerDeallocationsPass());
  pm.addPass(createCSEPass());
  pm.addPass(createCanonicalizerPass());
}

void kiln::buildKilnLinalgToLLVMPipeline(OpPassManager &pm,
                                         const CpuPipelineOptions &options) {
  buildKilnBufferizePipeline(pm, options);
  // Independent runtime GEMMs of a block (an RNN step's two products) run
  // as one parallel call.
  if (options.useRuntimeGemm && options.groupRuntimeGemms)
    pm.addPass(createGroupRuntimeGemms());
  // Small dense layers (batch-1 matvecs) sum a block of rows together.
  pm.addNestedPass<func::FuncOp>(createVectorizeMatvec(
      {options.matvecVectorBits, lowering::defaultCpuCostModel().matvecMaxMacs}));
  // Every linalg op's parallel dimensions become an scf.parallel (its
  // reductions loops inside), so a large elementwise op or partial
  // reduction runs on all cores like the parallel scans below; a loop with
  // too little work for a dispatch becomes plain loops
  // (kiln-one-parallel-dimension). No linalg op is left after this.
  // func.func(convert-linalg-to-parallel-loops)
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass());
  pm.addNestedPass<func::FuncOp>(createOneParallelDimension(
      {options.minParallelWork, lowering::defaultCpuCostModel().minParallelIterations}));
  // A large function is compiled as parts (LLVM's time grows faster than
  // a function's size): kiln-outline-large-functions{max-ops-per-function}.
  if (options.maxOpsPerFunction > 0)
    pm.addPass(createOutlineLargeFunctions({options.maxOpsPerFunction}));
  // The vector-lane tiles of each parallel-scan iteration are freed at its
  // end, whether it runs in parallel or in sequence.
  pm.addNestedPass<func::FuncOp>(createParallelAllocaScopes());
  // scf.parallel (the batch-parallel scans and large linalg ops) runs on
  // all cores: each loop's body becomes a function of a range of its
  // iterations, which kiln-parallel-loops-to-runtime (below, on the LLVM
  // dialect) hands to the runtime's pool.
  if (options.parallelScans && options.parallelLoops)
    pm.addPass(createOutlineParallelLoops());
  // After kiln-outline-parallel-loops: the bodies it makes run on workers.
  if (options.flushSubnormals)
    pm.addPass(createFlushSubnormals());
  // Vector lanes of the parallel scans: the tiles' block transposes (2-D
  // transfers) unroll to rows before scf goes to cf; the transposes become
  // 16x16 shuffles, the rest masked loads/stores. (Before any canonicalize:
  // it would turn a transpose whose rows are extracted into 256 scalar
  // extracts and inserts.)
  // lower-affine,convert-vector-to-scf{full-unroll=1},
  // convert-vector-to-llvm{vector-transpose-lowering=shuffle16x16},
  // convert-scf-to-cf,canonicalize,
  // expand-strided-metadata,lower-affine
  pm.addPass(createLowerAffinePass());
  pm.addPass(createConvertVectorToSCFPass(
      VectorTransferToSCFOptions().enableFullUnroll()));
  ConvertVectorToLLVMPassOptions vectorToLLVMOptions;
  vectorToLLVMOptions.vectorTransposeLowering =
      vector::VectorTransposeLowering::Shuffle16x16;
  pm.addPass(createConvertVectorToLLVMPass(vectorToLLVMOptions));
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  // Allocations go through Kiln's caching allocator (runtime/cpu).
  // finalize-memref-to-llvm{use-generic-functions=1}
  FinalizeMemRefToLLVMConversionPassOptions memrefToLLVMOptions;
  memrefToLLVMOptions.useGenericFunctions = true;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefToLLVMOptions));
  // convert-math-to-llvm,convert-math-to-libm,convert-vector-to-llvm,
  // convert-arith-to-llvm,
  // convert-index-to-llvm,convert-cf-to-llvm,convert-func-to-llvm,
  // convert-ub-to-llvm,reconcile-unrealized-casts,canonicalize,cse
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  // convert-math-to-libm scalarizes a vector op that has no LLVM intrinsic
  // (math.erf on the vector<4xf64> lanes of a parallel scan) into
  // vector.extract, libm calls and vector.from_elements, after
  // convert-vector-to-llvm above: those vector ops go to LLVM here
  // ("missing LLVMTranslationDialectInterface registration ...
  // vector.extract" otherwise; tests/differential/regressions/
  // parallel-scan-libm-vector.mlir).
  pm.addPass(createConvertVectorToLLVMPass(vectorToLLVMOptions));
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  if (options.parallelScans && options.parallelLoops)
    pm.addPass(createParallelLoopsToRuntime());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

namespace {
/// `--kiln-lower-cpu`'s options: those of lowering/CpuPipelineOptions.def.
struct LowerCpuPipelineOptions : PassPipelineOptions<LowerCpuPipelineOptions> {
#define KILN_CPU_PIPELINE_OPTION(TYPE, FIELD, FLAG, DEFAULT, DESCRIPTION)                     \
  Option<TYPE> FIELD{*this, FLAG, llvm::cl::desc(DESCRIPTION),                                 \
                     llvm::cl::init(kiln::CpuPipelineOptions().FIELD)};
#include "lowering/CpuPipelineOptions.def"

  kiln::CpuPipelineOptions toCpuPipelineOptions() const {
    kiln::CpuPipelineOptions options;
#define KILN_CPU_PIPELINE_OPTION(TYPE, FIELD, FLAG, DEFAULT, DESCRIPTION) options.FIELD = FIELD;
#include "lowering/CpuPipelineOptions.def"
    return options;
  }
};
} // namespace

void kiln::registerKilnLowering() {
  registerKilnLoweringPasses();
  PassPipelineRegistration<LowerCpuPipelineOptions>(
      "kiln-lower-cpu", "Lower lax to the LLVM dialect for the CPU JIT",
      [](OpPassManager &pm, const LowerCpuPipelineOptions &options) {
        kiln::addModulePipeline(pm, "kiln-lower-cpu", [&](OpPassManager &modulePm) {
          buildKilnLowerCpuPipeline(modulePm, options.toCpuPipelineOptions());
        });
      });
}
