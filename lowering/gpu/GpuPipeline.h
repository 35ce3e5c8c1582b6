//===- GpuPipeline.h - lax to a GPU binary ----------------------*- C++ -*-===//
#ifndef KILN_LOWERING_GPU_GPUPIPELINE_H
#define KILN_LOWERING_GPU_GPUPIPELINE_H

#include <cstdint>
#include <string>

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace kiln {

/// Options of the GPU pipeline (lax -> host LLVM dialect + GPU binary).
struct GpuPipelineConfig {
  /// GPU architecture of the kernels.
  std::string chip = "sm_80";
  /// Kernel binary: isa (PTX, JIT-compiled by the driver at load), bin
  /// (cubin through the CUDA Toolkit's ptxas), fatbin.
  std::string format = "isa";
  /// CUDA Toolkit directory (ptxas, libdevice); empty: the one found at
  /// configure time, if any.
  std::string toolkit;
  /// Threads per block along the outermost parallel dimension.
  int64_t blockSize = 128;
  /// Call the runtime GEMM (cuBLAS) for GEMM-shaped dot_generals of at
  /// least this many multiply-adds; smaller ones are generated kernels.
  int64_t runtimeGemmMinMacs = 0;
  /// f32 sin/cos/exp/log/tanh as polynomials (as the CPU pipeline does).
  bool approximateMath = true;
  /// Transposes around scans folded into their axes (kiln-fold-scan-layout).
  bool foldScanLayout = true;
};

/// The front half, shared with the CPU pipeline: batch-parallel scans as one
/// parallel loop over the batch (a thread per element), lax -> linalg.
void buildKilnLaxToLinalgForGpu(mlir::OpPassManager &pm, const GpuPipelineConfig &config);
/// Bufferization (shared with the CPU pipeline), parallel loops to kernels,
/// device memory, one stream per call, NVVM, host LLVM dialect, GPU binary.
void buildKilnLinalgToGpuPipeline(mlir::OpPassManager &pm, const GpuPipelineConfig &config);

/// Registers `--kiln-lower-gpu` and the GPU passes.
void registerGpuPipeline();

} // namespace kiln

#endif // KILN_LOWERING_GPU_GPUPIPELINE_H
