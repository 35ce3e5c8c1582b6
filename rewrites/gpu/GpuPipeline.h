//===- GpuPipeline.h - lax to a GPU binary ----------------------*- C++ -*-===//
#ifndef KILN_REWRITES_GPU_GPUPIPELINE_H
#define KILN_REWRITES_GPU_GPUPIPELINE_H

namespace kiln {
/// Registers `--kiln-lower-gpu`: lax to host code launching NVVM kernels.
void registerGpuPipeline();
} // namespace kiln

#endif // KILN_REWRITES_GPU_GPUPIPELINE_H
