//===- GpuPipeline.cpp - lax to a GPU binary ------------------------------===//
//
// `--kiln-lower-gpu` is the CPU pipeline's front half and bufferization,
// then upstream's parallel-loop-to-GPU mapping and NVVM lowering around two
// Kiln passes:
//  - batch-parallel scans become one scf.parallel each (a producer and its
//    consumer scan fused), which upstream maps to ONE gpu.launch with a
//    thread per batch element running the whole scan in registers; every
//    other linalg op becomes a parallel loop, so a kernel; sequential scans
//    stay host loops that launch their body's kernels;
//  - kiln-gpu-host-ops-to-kernels and kiln-gpu-device-memory put every
//    buffer in device memory and leave the host only launches, copies and
//    runtime GEMM calls (cuBLAS, runtime/gpu);
//  - gpu-async-region puts a function's launches and copies on one stream,
//    synchronised only where the host needs a value or calls the runtime;
//  - the kernel module goes through NVVM to PTX (format=isa) or, with the
//    CUDA Toolkit's ptxas, to a cubin (format=bin), embedded in the host
//    module (gpu.binary), loaded by the runtime when the code is.
//
//===----------------------------------------------------------------------===//
#include "lowering/gpu/GpuPipeline.h"
#include "lowering/gpu/Passes.h"
#include "lowering/Passes.h"
#include "transforms/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/SCFToGPU/SCFToGPUPass.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/Transforms/OptimizeForNVVM.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

// Two passes' declarations alone: mlir/Dialect/Linalg/Passes.h and
// mlir/Conversion/GPUCommon/GPUCommonPass.h would bring in all of linalg's
// transforms and the LLVM dialect (40% of this file's preprocessed
// size). Upstream's per-pass conversion headers do the same.
namespace mlir {
#define GEN_PASS_DECL_CONVERTLINALGTOPARALLELLOOPSPASS
#include "mlir/Dialect/Linalg/Passes.h.inc"
#define GEN_PASS_DECL_GPUTOLLVMCONVERSIONPASS
#include "mlir/Conversion/Passes.h.inc"
} // namespace mlir

#ifndef KILN_CUDA_TOOLKIT_DIR
#define KILN_CUDA_TOOLKIT_DIR ""
#endif

using namespace mlir;

namespace {

/// Longest axis the GPU pipeline sorts (by ranks: an [n, n] comparison per
/// row); a longer one is an error (kiln-expand-sort without runtime-sort).
constexpr int64_t kGpuSortRankMaxLength = 4096;

struct GpuPipelineOptions : PassPipelineOptions<GpuPipelineOptions> {
  Option<std::string> chip{*this, "chip", llvm::cl::desc("GPU architecture (sm_80, sm_90, ...)"),
                           llvm::cl::init("sm_80")};
  Option<std::string> format{*this, "format",
                             llvm::cl::desc("Kernel binary format: isa (PTX), bin (cubin "
                                            "through ptxas), fatbin"),
                             llvm::cl::init("isa")};
  Option<std::string> toolkit{*this, "toolkit",
                              llvm::cl::desc("CUDA Toolkit directory (default: the one found "
                                             "at configure time)"),
                              llvm::cl::init("")};
  Option<int64_t> blockSize{*this, "block-size",
                            llvm::cl::desc("Threads per block along the batch"),
                            llvm::cl::init(128)};
  Option<int64_t> runtimeGemmMinMacs{
      *this, "runtime-gemm-min-macs",
      llvm::cl::desc("Smallest dot_general (multiply-adds) sent to cuBLAS"), llvm::cl::init(0)};
};

kiln::CpuPipelineOptions sharedOptions(const kiln::GpuPipelineConfig &config) {
  kiln::CpuPipelineOptions shared;
  shared.useRuntimeGemm = true;
  shared.runtimeGemmMinMacs = config.runtimeGemmMinMacs;
  // Kernels have no stack buffers to promote to, and a GPU thread owns one
  // batch element of a parallel scan (no vector lanes).
  shared.promoteToStack = false;
  shared.parallelScans = true;
  shared.scanVectorBits = 0;
  shared.scanScratchStepMajor = true;
  // No runtime sort on the device: every sort by ranks (n^2 per row).
  shared.sortRankMaxLength = kGpuSortRankMaxLength;
  shared.foldScanLayout = config.foldScanLayout;
  shared.approximateMath = config.approximateMath;
  return shared;
}

} // namespace

void kiln::buildKilnLaxToLinalgForGpu(OpPassManager &pm, const GpuPipelineConfig &config) {
  // Every sort by ranks; a longer one is an error at the op.
  pm.addNestedPass<func::FuncOp>(createExpandSort({kGpuSortRankMaxLength, /*runtimeSort=*/false}));
  buildKilnLaxToLinalgPipeline(pm, sharedOptions(config));
}

void kiln::buildKilnLinalgToGpuPipeline(OpPassManager &pm, const GpuPipelineConfig &config) {
  buildKilnBufferizePipeline(pm, sharedOptions(config), /*deallocate=*/false);
  std::string toolkit = config.toolkit.empty() ? KILN_CUDA_TOOLKIT_DIR : config.toolkit;
  // Each step is an upstream or Kiln pass that kiln-opt also exposes (its
  // spelling in the comments), so the pipeline can be replayed and bisected
  // with --pass-pipeline. The tail is upstream's gpu-lower-to-nvvm-pipeline
  // with two changes: the kernel modules go to NVVM before the host's
  // arith-to-llvm (which would otherwise turn a kernel's arith.remf into an
  // llvm.frem that NVVM cannot take, instead of libdevice's fmod), and the
  // toolkit is passed to gpu-module-to-binary (libdevice for f64 math,
  // ptxas for cubins).

  // func.func(kiln-gpu-host-ops-to-kernels,convert-linalg-to-parallel-loops,
  //   kiln-gpu-flatten-parallel-loops,
  //   scf-parallel-loop-tiling{parallel-loop-tile-sizes=<block-size>
  //                            no-min-max-bounds=1},
  //   gpu-map-parallel-loops,convert-parallel-loops-to-gpu)
  OpPassManager &toKernelsPm = pm.nest<func::FuncOp>();
  toKernelsPm.addPass(createGpuHostOpsToKernels());
  toKernelsPm.addPass(createConvertLinalgToParallelLoopsPass());
  toKernelsPm.addPass(createGpuFlattenParallelLoops());
  toKernelsPm.addPass(createParallelLoopTilingPass({config.blockSize},
                                                   /*noMinMaxBounds=*/true));
  toKernelsPm.addPass(createGpuMapParallelLoopsPass());
  toKernelsPm.addPass(createConvertParallelLoopToGpuPass());
  // gpu-kernel-outlining
  pm.addPass(createGpuKernelOutliningPass());
  // func.func(kiln-gpu-device-memory,gpu-async-region,kiln-gpu-loop-streams)
  OpPassManager &devicePm = pm.nest<func::FuncOp>();
  devicePm.addPass(createGpuDeviceMemory());
  devicePm.addPass(createGpuAsyncRegionPass());
  devicePm.addPass(createGpuLoopStreams());
  // canonicalize,cse,convert-vector-to-scf,convert-scf-to-cf,
  // expand-strided-metadata,lower-affine
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createConvertVectorToSCFPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  // nvvm-attach-target{chip=<chip> O=3}
  GpuNVVMAttachTargetOptions targetOptions;
  targetOptions.chip = config.chip;
  targetOptions.optLevel = 3;
  pm.addPass(createGpuNVVMAttachTarget(targetOptions));
  // gpu.module(strip-debuginfo,convert-gpu-to-nvvm,
  //   llvm-optimize-for-nvvm-target,canonicalize,cse,
  //   reconcile-unrealized-casts)
  OpPassManager &kernelPm = pm.nest<gpu::GPUModuleOp>();
  kernelPm.addPass(createStripDebugInfoPass());
  kernelPm.addPass(createConvertGpuOpsToNVVMOps());
  kernelPm.addPass(LLVM::createNVVMOptimizeForTargetPass());
  kernelPm.addPass(createCanonicalizerPass());
  kernelPm.addPass(createCSEPass());
  kernelPm.addPass(createReconcileUnrealizedCastsPass());
  // convert-nvvm-to-llvm,convert-func-to-llvm,convert-arith-to-llvm,
  // convert-index-to-llvm,canonicalize,cse,gpu-to-llvm
  pm.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createGpuToLLVMConversionPass());
  // gpu-module-to-binary{format=<format> [toolkit=<toolkit>]}
  GpuModuleToBinaryPassOptions binaryOptions;
  binaryOptions.compilationTarget = config.format;
  binaryOptions.toolkitPath = toolkit;
  pm.addPass(createGpuModuleToBinaryPass(binaryOptions));
  // convert-math-to-llvm,canonicalize,cse,reconcile-unrealized-casts
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void kiln::registerGpuPipeline() {
  registerKilnGpuPasses();
  PassPipelineRegistration<GpuPipelineOptions>(
      "kiln-lower-gpu",
      "Lower lax to host code launching NVVM kernels on device buffers (batch-parallel "
      "scans as one kernel each, dot_general through cuBLAS)",
      [](OpPassManager &pm, const GpuPipelineOptions &options) {
        GpuPipelineConfig config{options.chip, options.format, options.toolkit,
                                 options.blockSize, options.runtimeGemmMinMacs};
        kiln::addModulePipeline(pm, "kiln-lower-gpu", [&](OpPassManager &modulePm) {
          buildKilnLaxToLinalgForGpu(modulePm, config);
          buildKilnLinalgToGpuPipeline(modulePm, config);
        });
      });
}
