//===- KilnRuntimeGpu.h - C runtime of GPU executables ----------*- C++ -*-===//
//
// What host code compiled by the GPU pipeline calls:
//  - MLIR's `mgpu*` ABI (what `gpu-to-llvm` and the gpu.binary translation
//    emit: module load/unload, kernel lookup and launch, streams, device
//    memory, copies), implemented on the CUDA driver API;
//  - `_mlir_ciface_kiln_rt_sgemm/dgemm`, the same GEMM entry as the CPU
//    runtime's, on device pointers through cuBLAS;
//  - kiln_gpu_* status functions for the Executable and the tests.
//
// libcuda.so.1 and libcublas are opened at first use (dlopen), so the library
// loads on a machine without a GPU or driver: kiln_gpu_status() then says
// why nothing can run, and every entry fails softly (it records the error
// and returns null) instead of crashing.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_GPU_KILNRUNTIMEGPU_H
#define KILN_RUNTIME_GPU_KILNRUNTIMEGPU_H

#include <cstddef>
#include <cstdint>

extern "C" {

/// Null when a CUDA device is usable; otherwise why not (e.g. "no CUDA
/// driver: libcuda.so.1: cannot open shared object file", "cuInit failed:
/// CUDA_ERROR_NO_DEVICE"). Initialises the driver on first call.
const char *kiln_gpu_status();

/// The first error recorded since the last call (null if none), and clears
/// it. Executables check it after each call.
const char *kiln_gpu_take_error();

/// Name of device 0 and its compute capability as "sm_XY" (empty when none).
const char *kiln_gpu_device_name();
const char *kiln_gpu_chip();

/// Kernel launches since the library was loaded (for tests that count
/// launches per call).
uint64_t kiln_gpu_launch_count();

/// Profiling of the host side of calls: with enable != 0 (counters reset),
/// each runtime entry that generated code calls (kernel lookup and launch,
/// streams, device memory, copies, the GEMM) counts its calls and wall time;
/// kiln_gpu_profile_report() gives one line per entry called,
/// "NAME CALLS calls MICROSECONDS us" (valid until the next report).
void kiln_gpu_profile(int enable);
const char *kiln_gpu_profile_report();

/// Device copies of `numBuffers` host buffers (`bytes` each), the first
/// `numInputs` filled from the host, in `device`; waits until they are there.
void kiln_gpu_buffers_to_device(void *const *hostBuffers, const size_t *bytes, size_t numInputs,
                                size_t numBuffers, void **device, void *stream);
/// Copies buffers [numInputs, numBuffers) back to the host (if
/// `copyOutputs`) and frees every device copy; waits for both.
void kiln_gpu_buffers_from_device(void *const *hostBuffers, const size_t *bytes,
                                  size_t numInputs, size_t numBuffers, void *const *device,
                                  void *stream, int copyOutputs);
/// Calls `fn` (a compiled GPU entry taking device buffers: the inputs, then
/// the outputs) on device copies of `hostBuffers` (`bytes` each): copies the
/// inputs in, runs, copies the outputs back, frees the copies. Null on
/// success, else the first error (valid until the next error is taken).
const char *kiln_gpu_call_host(void (*fn)(void *const *), void *const *hostBuffers,
                               const size_t *bytes, size_t numInputs, size_t numBuffers);

// --- MLIR's mgpu ABI (LLVM 22) ----------------------------------------------
void *mgpuModuleLoad(void *data, size_t size);
void *mgpuModuleLoadJIT(void *data, int optLevel);
void mgpuModuleUnload(void *module);
void *mgpuModuleGetFunction(void *module, const char *name);
void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t smem, void *stream,
                      void **params, void **extra, size_t paramsCount);
void *mgpuStreamCreate();
void mgpuStreamDestroy(void *stream);
void mgpuStreamSynchronize(void *stream);
void mgpuStreamWaitEvent(void *stream, void *event);
void *mgpuEventCreate();
void mgpuEventDestroy(void *event);
void mgpuEventSynchronize(void *event);
void mgpuEventRecord(void *event, void *stream);
void *mgpuMemAlloc(uint64_t sizeBytes, void *stream, bool isHostShared);
void mgpuMemFree(void *ptr, void *stream);
void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, void *stream);
void mgpuMemset32(void *dst, unsigned int value, size_t count, void *stream);
void mgpuMemset16(void *dst, unsigned short value, size_t count, void *stream);
}

#endif // KILN_RUNTIME_GPU_KILNRUNTIMEGPU_H
