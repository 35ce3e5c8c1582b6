//===- Passes.h - Kiln's lowering passes and pipelines ----------*- C++ -*-===//
#ifndef KILN_LOWERING_PASSES_H
#define KILN_LOWERING_PASSES_H

#include "lowering/CpuCostModel.h"

#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;
class OpPassManager;
} // namespace mlir

namespace kiln {

#define GEN_PASS_DECL
#include "lowering/Passes.h.inc"

/// Options of the CPU pipeline (lax -> LLVM dialect).
struct CpuPipelineOptions {
  /// Call the Eigen runtime GEMM for GEMM-shaped dot_generals.
  bool useRuntimeGemm = true;
  /// Smallest contraction (multiply-adds) sent to the runtime GEMM.
  int64_t runtimeGemmMinMacs = lowering::defaultCpuCostModel().runtimeGemmMinMacs;
  /// Turn small fixed-size allocations into stack allocations.
  bool promoteToStack = true;
  /// Run batch-parallel scans as one parallel loop of scalar step loops
  /// (kiln-scan-to-parallel-loops; exact).
  bool parallelScans = true;
  /// Bits of batch elements each parallel-scan iteration runs as vector
  /// lanes (16 f32 elements at 512); 0: one element at a time.
  int64_t scanVectorBits = lowering::defaultCpuCostModel().scanVectorBits;
  /// Groups of lanes per parallel-scan iteration, their steps interleaved;
  /// 0: chosen per scan (kiln-scan-to-parallel-loops' lane-groups).
  int64_t scanLaneGroups = 0;
  /// Bits of the target's vector registers for the parallel scans' block
  /// transposes (kiln-scan-to-parallel-loops' register-bits).
  int64_t scanRegisterBits = lowering::defaultCpuCostModel().scanRegisterBits;
  /// Smallest static work of a loop run in parallel
  /// (kiln-one-parallel-dimension's min-parallel-work).
  int64_t minParallelWork = lowering::defaultCpuCostModel().minParallelWork;
  /// Bits of one vector of the small matvecs' row blocks
  /// (kiln-vectorize-matvec's vector-bits).
  int64_t matvecVectorBits = lowering::defaultCpuCostModel().matvecVectorBits;
  /// f32 sin/cos/exp/log/tanh as vectorizable polynomials
  /// (kiln-approximate-math; a few ulp from libm).
  bool approximateMath = true;
};

/// Appends the CPU pipeline (lax -> LLVM dialect) to `pm`:
/// buildKilnLaxToLinalgPipeline then buildKilnLinalgToLLVMPipeline.
void buildKilnLowerCpuPipeline(mlir::OpPassManager &pm,
                               const CpuPipelineOptions &options = {});
/// The front half: batch-parallel scans to parallel loops, kiln-lax-to-linalg,
/// approximate f32 math.
void buildKilnLaxToLinalgPipeline(mlir::OpPassManager &pm,
                                  const CpuPipelineOptions &options = {});
/// The part after kiln-lax-to-linalg: buildKilnBufferizePipeline, then
/// parallel loops on the async runtime, loops, LLVM dialect.
void buildKilnLinalgToLLVMPipeline(mlir::OpPassManager &pm,
                                   const CpuPipelineOptions &options = {});

/// Fusion of elementwise linalg ops, one-shot bufferization (carries and
/// results in place, identity layouts at function boundaries), buffer
/// hoisting, optional stack promotion and (with `deallocate`)
/// ownership-based deallocation: shared by the CPU and GPU pipelines (the
/// GPU pipeline frees its device buffers itself, kiln-gpu-device-memory).
void buildKilnBufferizePipeline(mlir::OpPassManager &pm,
                                const CpuPipelineOptions &options = {},
                                bool deallocate = true);

/// Registers --kiln-lax-to-linalg and the --kiln-lower-cpu pipeline.
void registerKilnLowering();

#define GEN_PASS_REGISTRATION
#include "lowering/Passes.h.inc"

} // namespace kiln

#endif // KILN_LOWERING_PASSES_H
