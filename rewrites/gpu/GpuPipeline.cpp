//===- GpuPipeline.cpp - lax to a GPU binary ------------------------------===//
//
// `--kiln-lower-gpu` builds the GPU pipeline from upstream passes around
// Kiln's own: scans over the batch become one scf.parallel each (a producer
// and its consumer scan fused), which upstream maps to ONE gpu.launch with a
// thread per batch element running the whole scan in registers; the kernel
// module goes through NVVM to PTX (format=isa) or, with the CUDA Toolkit's
// ptxas, to a cubin (format=bin). The host keeps a plain function that
// launches the kernel: no per-iteration launch and no host synchronisation.
//
//===----------------------------------------------------------------------===//
#include "rewrites/gpu/GpuPipeline.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace {

struct GpuPipelineOptions : PassPipelineOptions<GpuPipelineOptions> {
  Option<std::string> chip{*this, "chip", llvm::cl::desc("GPU architecture (sm_80, sm_90, ...)"),
                           llvm::cl::init("sm_80")};
  Option<std::string> format{*this, "format",
                             llvm::cl::desc("Kernel binary format: isa (PTX), bin (cubin "
                                            "through ptxas), fatbin, offload"),
                             llvm::cl::init("isa")};
  Option<int64_t> blockSize{*this, "block-size",
                            llvm::cl::desc("Threads per block along the batch"),
                            llvm::cl::init(128)};
};

/// The pipeline as text: each step is an upstream or Kiln pass that
/// kiln-opt also exposes on its own, so the pipeline can be replayed and
/// bisected with --pass-pipeline.
std::string gpuPipelineText(const GpuPipelineOptions &options) {
  return llvm::formatv(
      "func.func(kiln-fold-scan-layout,canonicalize,kiln-scan-to-parallel-loops,canonicalize),"
      "one-shot-bufferize{{bufferize-function-boundaries=1},canonicalize,"
      "func.func(convert-linalg-to-parallel-loops,"
      "scf-parallel-loop-tiling{{parallel-loop-tile-sizes={0} no-min-max-bounds=1},"
      "gpu-map-parallel-loops,convert-parallel-loops-to-gpu),"
      "gpu-kernel-outlining,canonicalize,lower-affine,convert-scf-to-cf,"
      "nvvm-attach-target{{chip={1} O=3},gpu.module(convert-gpu-to-nvvm),"
      "reconcile-unrealized-casts,gpu-module-to-binary{{format={2}}",
      options.blockSize.getValue(), options.chip.getValue(), options.format.getValue());
}

} // namespace

void kiln::registerGpuPipeline() {
  PassPipelineRegistration<GpuPipelineOptions>(
      "kiln-lower-gpu",
      "Lower lax to host code launching NVVM kernels (batch-parallel scans as one "
      "kernel each)",
      [](OpPassManager &pm, const GpuPipelineOptions &options) {
        if (failed(parsePassPipeline(gpuPipelineText(options), pm)))
          llvm::report_fatal_error("kiln-lower-gpu: invalid pipeline text");
      });
}
