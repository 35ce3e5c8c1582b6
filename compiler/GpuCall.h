//===- GpuCall.h - what a GPU Executable needs of the GPU runtime -*- C++ -*-===//
//
// A GPU Executable's compiled function takes device buffers. Its checked
// call() copies the caller's host buffers in and out through the GPU runtime
// (KilnRuntimeGpu, opened here as the JIT opens it: the same library, so the
// same CUDA context and error record).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_GPUCALL_H
#define KILN_COMPILER_GPUCALL_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace kiln {

/// The entries of KilnRuntimeGpu an Executable calls.
struct GpuRuntimeApi {
  std::string path;
  const char *(*status)() = nullptr;
  const char *(*takeError)() = nullptr;
  const char *(*chip)() = nullptr;
  void (*buffersToDevice)(void *const *, const size_t *, size_t, size_t, void **,
                          void *) = nullptr;
  void (*buffersFromDevice)(void *const *, const size_t *, size_t, size_t, void *const *,
                            void *, int) = nullptr;
  const char *(*callHost)(void (*)(void *const *), void *const *, const size_t *, size_t,
                          size_t) = nullptr;
};

/// Path of the GPU runtime: `configured` if set, else $KILN_RUNTIME_GPU, else
/// the one built beside Kiln (empty when CUDA's headers were missing then).
std::string gpuRuntimePath(const std::string &configured);

/// Opens the runtime at `path` once per process; null with `why` when it is
/// missing or lacks an entry. (It loads without a GPU: status() says why
/// nothing can run.)
const GpuRuntimeApi *loadGpuRuntime(const std::string &path, std::string &why);

/// Device copies of `numBuffers` host buffers (`bytes` each), the first
/// `numInputs` filled from the host; waits until they are there (the
/// compiled code runs on streams of its own). The runtime records any error.
void buffersToDevice(const GpuRuntimeApi &rt, void *const *hostBuffers, const size_t *bytes,
                     size_t numInputs, size_t numBuffers, void **device, void *stream);
/// Copies buffers [numInputs, numBuffers) back to the host (unless
/// `copyOutputs` is false) and frees every device copy; waits for both.
void buffersFromDevice(const GpuRuntimeApi &rt, void *const *hostBuffers, const size_t *bytes,
                       size_t numInputs, size_t numBuffers, void *const *device, void *stream,
                       bool copyOutputs = true);

/// Calls `fn` (a compiled GPU function taking device buffers) on device
/// copies of `hostBuffers` (the inputs, then the outputs; `bytes` each):
/// copies the inputs in, runs, copies the outputs back, frees the copies.
/// False with `error` set when the runtime reports an error.
bool callOnGpu(const GpuRuntimeApi &rt, void (*fn)(void *const *), void *const *hostBuffers,
               const size_t *bytes, size_t numInputs, size_t numBuffers, std::string *error);

} // namespace kiln

#endif // KILN_COMPILER_GPUCALL_H
