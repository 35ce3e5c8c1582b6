//===- GpuCall.cpp - host buffers in and out of a GPU Executable ----------===//
#include "compiler/GpuCall.h"

#include <dlfcn.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>

#ifndef KILN_RUNTIME_GPU_PATH
#define KILN_RUNTIME_GPU_PATH ""
#endif

namespace kiln {

std::string gpuRuntimePath(const std::string &configured) {
  if (!configured.empty())
    return configured;
  if (const char *env = std::getenv("KILN_RUNTIME_GPU"))
    return env;
  return KILN_RUNTIME_GPU_PATH;
}

const GpuRuntimeApi *loadGpuRuntime(const std::string &path, std::string &why) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<GpuRuntimeApi>> loaded;
  std::lock_guard<std::mutex> lock(mutex);
  if (path.empty()) {
    why = "Kiln was built without the GPU runtime (no CUDA headers at configure time)";
    return nullptr;
  }
  if (auto it = loaded.find(path); it != loaded.end())
    return it->second.get();
  // RTLD_GLOBAL: the JIT resolves the compiled code's mgpu* calls against
  // this same copy of the library.
  void *lib = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!lib) {
    const char *error = dlerror();
    why = "cannot load the GPU runtime " + path + ": " + (error ? error : "unknown error");
    return nullptr;
  }
  auto api = std::make_unique<GpuRuntimeApi>();
  api->path = path;
  bool complete = true;
  auto get = [&](auto &fn, const char *name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name));
    if (!fn) {
      why = "the GPU runtime " + path + " lacks " + name;
      complete = false;
    }
  };
  get(api->status, "kiln_gpu_status");
  get(api->takeError, "kiln_gpu_take_error");
  get(api->chip, "kiln_gpu_chip");
  get(api->buffersToDevice, "kiln_gpu_buffers_to_device");
  get(api->buffersFromDevice, "kiln_gpu_buffers_from_device");
  get(api->callHost, "kiln_gpu_call_host");
  if (!complete)
    return nullptr;
  return (loaded[path] = std::move(api)).get();
}

void buffersToDevice(const GpuRuntimeApi &rt, void *const *hostBuffers, const size_t *bytes,
                     size_t numInputs, size_t numBuffers, void **device, void *stream) {
  rt.buffersToDevice(hostBuffers, bytes, numInputs, numBuffers, device, stream);
}

void buffersFromDevice(const GpuRuntimeApi &rt, void *const *hostBuffers, const size_t *bytes,
                       size_t numInputs, size_t numBuffers, void *const *device, void *stream,
                       bool copyOutputs) {
  rt.buffersFromDevice(hostBuffers, bytes, numInputs, numBuffers, device, stream,
                       copyOutputs ? 1 : 0);
}

bool callOnGpu(const GpuRuntimeApi &rt, void (*fn)(void *const *), void *const *hostBuffers,
               const size_t *bytes, size_t numInputs, size_t numBuffers, std::string *error) {
  const char *failure = rt.callHost(fn, hostBuffers, bytes, numInputs, numBuffers);
  if (failure && error)
    *error = std::string("GPU: ") + failure;
  return !failure;
}

} // namespace kiln
