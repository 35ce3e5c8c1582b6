//===- Passes.h - Kiln's lowering passes and pipelines ----------*- C++ -*-===//
#ifndef KILN_LOWERING_PASSES_H
#define KILN_LOWERING_PASSES_H

#include "lowering/CpuPipelineOptions.h"

#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;
class OpPassManager;
} // namespace mlir

namespace kiln {

#define GEN_PASS_DECL
#include "lowering/Passes.h.inc"

/// Appends the CPU pipeline (lax -> LLVM dialect) to `pm`:
/// buildKilnLaxToLinalgPipeline then buildKilnLinalgToLLVMPipeline.
void buildKilnLowerCpuPipeline(mlir::OpPassManager &pm,
                               const CpuPipelineOptions &options = {});
/// The front half: batch-parallel scans to parallel loops, kiln-lax-to-linalg,
/// approximate f32 math.
void buildKilnLaxToLinalgPipeline(mlir::OpPassManager &pm,
                                  const CpuPipelineOptions &options = {});
/// The part after kiln-lax-to-linalg: buildKilnBufferizePipeline, then
/// parallel loops on the runtime's pool, loops, LLVM dialect.
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

/// The functions kiln-outline-parallel-loops makes of a parallel loop
/// `<k>`: its body over a range of iterations, and the bodiless placeholder
/// whose calls kiln-parallel-loops-to-runtime turns into the runtime's
/// kiln_rt_parallel_for. The body runs on the pool's workers
/// (kiln-flush-subnormals sets their float mode).
constexpr llvm::StringLiteral kParallelBodyPrefix = "__kiln_parallel_body_";
constexpr llvm::StringLiteral kParallelForPrefix = "__kiln_parallel_for_";

/// The runtime's GEMM entries (runtime/cpu): kiln-lax-to-linalg calls them
/// and kiln-group-runtime-gemms groups their calls (`<name>_group<N>`).
constexpr llvm::StringLiteral kRuntimeSgemm = "kiln_rt_sgemm";
constexpr llvm::StringLiteral kRuntimeDgemm = "kiln_rt_dgemm";

/// Registers --kiln-lax-to-linalg and the --kiln-lower-cpu pipeline.
void registerKilnLowering();

#define GEN_PASS_REGISTRATION
#include "lowering/Passes.h.inc"

} // namespace kiln

#endif // KILN_LOWERING_PASSES_H
