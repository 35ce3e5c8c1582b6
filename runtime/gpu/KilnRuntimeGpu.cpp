//===- KilnRuntimeGpu.cpp - CUDA driver API and cuBLAS behind dlopen ------===//
//
// Every entry makes device 0's primary context current, calls the driver and
// records the first failure (kiln_gpu_take_error); nothing aborts. The
// driver and cuBLAS are resolved by name at first use: the library has no
// link-time dependency on CUDA.
//
//===----------------------------------------------------------------------===//
#include "runtime/gpu/KilnRuntimeGpu.h"
#include "runtime/cpu/KilnRuntimeCpu.h"

#include <atomic>
#include <chrono>
#include <vector>
#include <algorithm>
#include <unordered_map>
#include <map>

#include <cublas_v2.h>
#include <cuda.h>

#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <mutex>
#include <string>

namespace {

#define KILN_STR(x) #x
#define KILN_XSTR(x) KILN_STR(x) // expands cuda.h's _v2 renames first

/// The driver entry points Kiln uses.
struct Driver {
  decltype(&::cuInit) init = nullptr;
  decltype(&::cuGetErrorName) errorName = nullptr;
  decltype(&::cuDeviceGetCount) deviceCount = nullptr;
  decltype(&::cuDeviceGet) deviceGet = nullptr;
  decltype(&::cuDeviceGetName) deviceName = nullptr;
  decltype(&::cuDeviceGetAttribute) deviceAttribute = nullptr;
  decltype(&::cuDevicePrimaryCtxRetain) primaryCtxRetain = nullptr;
  decltype(&::cuCtxSetCurrent) ctxSetCurrent = nullptr;
  decltype(&::cuCtxSynchronize) ctxSynchronize = nullptr;
  decltype(&::cuModuleLoadData) moduleLoadData = nullptr;
  decltype(&::cuModuleLoadDataEx) moduleLoadDataEx = nullptr;
  decltype(&::cuModuleUnload) moduleUnload = nullptr;
  decltype(&::cuModuleGetFunction) moduleGetFunction = nullptr;
  decltype(&::cuLaunchKernel) launchKernel = nullptr;
  decltype(&::cuStreamCreate) streamCreate = nullptr;
  decltype(&::cuStreamDestroy) streamDestroy = nullptr;
  decltype(&::cuStreamSynchronize) streamSynchronize = nullptr;
  decltype(&::cuStreamWaitEvent) streamWaitEvent = nullptr;
  decltype(&::cuEventCreate) eventCreate = nullptr;
  decltype(&::cuEventDestroy) eventDestroy = nullptr;
  decltype(&::cuEventSynchronize) eventSynchronize = nullptr;
  decltype(&::cuEventRecord) eventRecord = nullptr;
  decltype(&::cuMemAlloc) memAlloc = nullptr;
  decltype(&::cuMemAllocManaged) memAllocManaged = nullptr;
  decltype(&::cuMemFree) memFree = nullptr;
  decltype(&::cuMemAllocAsync) memAllocAsync = nullptr;
  decltype(&::cuMemFreeAsync) memFreeAsync = nullptr;
  decltype(&::cuMemcpyAsync) memcpyAsync = nullptr;
  decltype(&::cuMemsetD32Async) memsetD32Async = nullptr;
  decltype(&::cuMemsetD16Async) memsetD16Async = nullptr;

  CUcontext context = nullptr;
  std::string status; // empty: usable
  std::string name, chip;
};

struct Blas {
  decltype(&::cublasCreate) create = nullptr;
  decltype(&::cublasSetStream) setStream = nullptr;
  decltype(&::cublasSgemmStridedBatched) sgemm = nullptr;
  decltype(&::cublasDgemmStridedBatched) dgemm = nullptr;
  cublasHandle_t handle = nullptr;
  std::string status;
};

std::mutex errorMutex;
std::string firstError, takenError;
std::atomic<uint64_t> launches{0};

void recordError(const std::string &message) {
  std::lock_guard<std::mutex> lock(errorMutex);
  if (firstError.empty())
    firstError = message;
}

/// Where a call's host time goes (kiln_gpu_profile): calls and wall time
/// of the runtime entries generated code calls, counted while enabled.
enum Entry { GetFunction, Launch, StreamCreate, StreamDestroy, StreamSync, MemAlloc, MemFree,
             Memcpy, Gemm, NumEntries };
const char *const kEntryNames[NumEntries] = {
    "mgpuModuleGetFunction", "mgpuLaunchKernel", "mgpuStreamCreate", "mgpuStreamDestroy",
    "mgpuStreamSynchronize", "mgpuMemAlloc",     "mgpuMemFree",      "mgpuMemcpy",
    "kiln_rt_gemm"};
std::atomic<bool> profiling{false};
std::atomic<uint64_t> entryNanos[NumEntries], entryCalls[NumEntries];

class EntryTimer {
public:
  explicit EntryTimer(Entry entry)
      : entry_(entry), on_(profiling.load(std::memory_order_relaxed)) {
    if (on_)
      start_ = std::chrono::steady_clock::now();
  }
  ~EntryTimer() {
    if (!on_)
      return;
    auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                  std::chrono::steady_clock::now() - start_).count();
    entryNanos[entry_].fetch_add(uint64_t(ns), std::memory_order_relaxed);
    entryCalls[entry_].fetch_add(1, std::memory_order_relaxed);
  }

private:
  Entry entry_;
  bool on_;
  std::chrono::steady_clock::time_point start_;
};

template <typename F> bool resolve(void *lib, const char *name, F &fn, std::string &missing) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
  if (!fn && missing.empty())
    missing = name;
  return fn != nullptr;
}

Driver &driver() {
  static Driver d;
  static std::once_flag once;
  std::call_once(once, [] {
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char *why = dlerror();
      d.status = std::string("no CUDA driver: ") + (why ? why : "libcuda.so.1 not found");
      return;
    }
    std::string missing;
#define KILN_LOAD(field, fn) resolve(lib, KILN_XSTR(fn), d.field, missing)
    KILN_LOAD(init, cuInit);
    KILN_LOAD(errorName, cuGetErrorName);
    KILN_LOAD(deviceCount, cuDeviceGetCount);
    KILN_LOAD(deviceGet, cuDeviceGet);
    KILN_LOAD(deviceName, cuDeviceGetName);
    KILN_LOAD(deviceAttribute, cuDeviceGetAttribute);
    KILN_LOAD(primaryCtxRetain, cuDevicePrimaryCtxRetain);
    KILN_LOAD(ctxSetCurrent, cuCtxSetCurrent);
    KILN_LOAD(ctxSynchronize, cuCtxSynchronize);
    KILN_LOAD(moduleLoadData, cuModuleLoadData);
    KILN_LOAD(moduleLoadDataEx, cuModuleLoadDataEx);
    KILN_LOAD(moduleUnload, cuModuleUnload);
    KILN_LOAD(moduleGetFunction, cuModuleGetFunction);
    KILN_LOAD(launchKernel, cuLaunchKernel);
    KILN_LOAD(streamCreate, cuStreamCreate);
    KILN_LOAD(streamDestroy, cuStreamDestroy);
    KILN_LOAD(streamSynchronize, cuStreamSynchronize);
    KILN_LOAD(streamWaitEvent, cuStreamWaitEvent);
    KILN_LOAD(eventCreate, cuEventCreate);
    KILN_LOAD(eventDestroy, cuEventDestroy);
    KILN_LOAD(eventSynchronize, cuEventSynchronize);
    KILN_LOAD(eventRecord, cuEventRecord);
    KILN_LOAD(memAlloc, cuMemAlloc);
    KILN_LOAD(memAllocManaged, cuMemAllocManaged);
    KILN_LOAD(memFree, cuMemFree);
    KILN_LOAD(memAllocAsync, cuMemAllocAsync);
    KILN_LOAD(memFreeAsync, cuMemFreeAsync);
    KILN_LOAD(memcpyAsync, cuMemcpyAsync);
    KILN_LOAD(memsetD32Async, cuMemsetD32Async);
    KILN_LOAD(memsetD16Async, cuMemsetD16Async);
#undef KILN_LOAD
    if (!missing.empty()) {
      d.status = "the CUDA driver lacks " + missing;
      return;
    }

    auto failed = [&](CUresult r, const char *what) {
      if (r == CUDA_SUCCESS)
        return false;
      const char *name = nullptr;
      d.errorName(r, &name);
      d.status = std::string(what) + " failed: " + (name ? name : "unknown error");
      return true;
    };
    int count = 0;
    CUdevice device = 0;
    if (failed(d.init(0), "cuInit") || failed(d.deviceCount(&count), "cuDeviceGetCount"))
      return;
    if (count == 0) {
      d.status = "no CUDA device";
      return;
    }
    if (failed(d.deviceGet(&device, 0), "cuDeviceGet") ||
        failed(d.primaryCtxRetain(&d.context, device), "cuDevicePrimaryCtxRetain"))
      return;
    char name[256] = {0};
    d.deviceName(name, sizeof(name), device);
    d.name = name;
    int major = 0, minor = 0;
    d.deviceAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device);
    d.deviceAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device);
    d.chip = "sm_" + std::to_string(major) + std::to_string(minor);
  });
  return d;
}

/// The driver with device 0's context current, or null (error recorded).
Driver *ready(const char *entry) {
  Driver &d = driver();
  if (!d.status.empty()) {
    recordError(std::string(entry) + ": " + d.status);
    return nullptr;
  }
  d.ctxSetCurrent(d.context);
  return &d;
}

bool check(CUresult r, const char *what) {
  if (r == CUDA_SUCCESS)
    return true;
  const char *name = nullptr;
  driver().errorName(r, &name);
  recordError(std::string(what) + " failed: " + (name ? name : "unknown error"));
  return false;
}

Blas *blas(CUstream stream) {
  static Blas b;
  static std::once_flag once;
  std::call_once(once, [] {
    void *lib = dlopen("libcublas.so.13", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
      lib = dlopen("libcublas.so", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      b.status = "no cuBLAS (libcublas.so.13)";
      return;
    }
    std::string missing;
    resolve(lib, KILN_XSTR(cublasCreate), b.create, missing);
    resolve(lib, KILN_XSTR(cublasSetStream), b.setStream, missing);
    resolve(lib, KILN_XSTR(cublasSgemmStridedBatched), b.sgemm, missing);
    resolve(lib, KILN_XSTR(cublasDgemmStridedBatched), b.dgemm, missing);
    if (!missing.empty()) {
      b.status = "cuBLAS lacks " + missing;
      return;
    }
    if (b.create(&b.handle) != CUBLAS_STATUS_SUCCESS)
      b.status = "cublasCreate failed";
  });
  if (!b.status.empty()) {
    recordError(b.status);
    return nullptr;
  }
  b.setStream(b.handle, stream);
  return &b;
}

/// Row-major C[b] = op(A[b]) op(B[b]) as the column-major product
/// C^T = op(B)^T op(A)^T, which is what cuBLAS computes without copies:
/// a row-major [r, c] matrix with row stride ld is a column-major [c, r]
/// one with leading dimension ld.
template <typename T>
void gemm(KilnMemRef3<T> *a, KilnMemRef3<T> *b, KilnMemRef3<T> *c,
          int64_t transA, int64_t transB) {
  EntryTimer timer(Gemm);
  Driver *d = ready("kiln_rt_gemm");
  if (!d)
    return;
  // cuBLAS runs on the legacy default stream, which does not order with the
  // non-blocking streams of the generated code: synchronise around it.
  check(d->ctxSynchronize(), "cuCtxSynchronize");
  Blas *cublas = blas(nullptr);
  if (!cublas)
    return;
  if (a->strides[2] != 1 || b->strides[2] != 1 || c->strides[2] != 1) {
    recordError("kiln_rt_gemm: the innermost stride must be 1 on the GPU");
    return;
  }
  int64_t batch = c->sizes[0], m = c->sizes[1], n = c->sizes[2];
  int64_t k = transA ? a->sizes[1] : a->sizes[2];
  T one = 1, zero = 0;
  auto batchStride = [](const KilnMemRef3<T> *x) {
    return x->sizes[0] == 1 ? 0 : x->strides[0];
  };
  cublasStatus_t s;
  auto fn = [&](auto gemmFn) {
    return gemmFn(cublas->handle, transB ? CUBLAS_OP_T : CUBLAS_OP_N,
         transA ? CUBLAS_OP_T : CUBLAS_OP_N, int(n), int(m), int(k), &one,
         b->aligned + b->offset, int(b->strides[1]), batchStride(b),
         a->aligned + a->offset, int(a->strides[1]), batchStride(a), &zero,
         c->aligned + c->offset, int(c->strides[1]), c->strides[0], int(batch));
  };
  if constexpr (sizeof(T) == 4)
    s = fn(cublas->sgemm);
  else
    s = fn(cublas->dgemm);
  if (s != CUBLAS_STATUS_SUCCESS)
    recordError("cuBLAS gemm failed with status " + std::to_string(int(s)));
  check(d->ctxSynchronize(), "cuCtxSynchronize");
}

/// Streams given back by mgpuStreamDestroy, handed out again by
/// mgpuStreamCreate: generated host code makes a stream for each run of
/// queued work and destroys it after waiting for it, several times a call,
/// and creating and destroying CUDA streams cost most of a small program's
/// call (seed 004's MLP on an H200). A stream is reusable once given back:
/// work still queued on it would only order before later work, and the
/// code waits for its work before destroying it anyway.
class StreamPool {
public:
  static StreamPool &get() {
    static StreamPool *pool = new StreamPool(); // never destroyed: exit order
    return *pool;
  }
  void *take() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (free_.empty())
      return nullptr;
    void *s = free_.back();
    free_.pop_back();
    return s;
  }
  /// False when the pool is full (the caller destroys the stream).
  bool give(void *stream) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (free_.size() >= kMaxPooled)
      return false;
    free_.push_back(stream);
    return true;
  }

private:
  static constexpr size_t kMaxPooled = 64;
  std::mutex mutex_;
  std::vector<void *> free_;
};

/// Device buffers freed by generated code, kept for the next allocation of
/// about their size (the runtime's caching allocator, as the CPU runtime's
/// for host memory). On an H200 each cuMemAllocAsync of a call took about
/// 250 us, most of a small program's call (seed 004's MLP: 4 of them, 1 ms).
/// A block freed on a stream is reused only after that stream's work up to
/// the free: its event is recorded at the free, and the allocating stream
/// waits for it (the host, for an allocation without a stream).
class DeviceBlockCache {
public:
  static DeviceBlockCache &get() {
    static DeviceBlockCache *cache = new DeviceBlockCache(); // never destroyed
    return *cache;
  }

  /// A block of at least `bytes`, or 0 (error recorded).
  CUdeviceptr allocate(Driver &d, uint64_t bytes, CUstream stream) {
    uint64_t size = roundedSize(bytes);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = free_.lower_bound(size);
      if (it != free_.end() && it->first <= 2 * size) {
        Block block = it->second;
        free_.erase(it);
        cachedBytes_ -= block.bytes;
        live_[block.ptr] = block.bytes;
        if (stream)
          check(d.streamWaitEvent(stream, block.freed, 0), "cuStreamWaitEvent");
        else
          check(d.eventSynchronize(block.freed), "cuEventSynchronize");
        events_.push_back(block.freed);
        return block.ptr;
      }
    }
    CUdeviceptr ptr = 0;
    if (d.memAlloc(&ptr, size) != CUDA_SUCCESS) {
      trim(d); // out of memory, perhaps for want of what the cache holds
      if (!check(d.memAlloc(&ptr, size), "cuMemAlloc"))
        return 0;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    live_[ptr] = size;
    return ptr;
  }

  /// Takes back `ptr` if it came from allocate(); false otherwise.
  bool release(Driver &d, CUdeviceptr ptr, CUstream stream) {
    std::unique_lock<std::mutex> lock(mutex_);
    auto it = live_.find(ptr);
    if (it == live_.end())
      return false;
    Block block{ptr, it->second, nullptr};
    live_.erase(it);
    if (cachedBytes_ + block.bytes > kMaxCachedBytes) {
      lock.unlock();
      // Freed at once: cuMemFree waits for the work that may still use it.
      check(d.memFree(ptr), "cuMemFree");
      return true;
    }
    if (!events_.empty()) {
      block.freed = events_.back();
      events_.pop_back();
    } else if (!check(d.eventCreate(&block.freed, CU_EVENT_DISABLE_TIMING), "cuEventCreate")) {
      return true; // leaked rather than reused unsafely
    }
    check(d.eventRecord(block.freed, stream), "cuEventRecord");
    cachedBytes_ += block.bytes;
    free_.emplace(block.bytes, block);
    return true;
  }

private:
  struct Block {
    CUdeviceptr ptr;
    uint64_t bytes;
    CUevent freed;
  };
  static constexpr uint64_t kMaxCachedBytes = uint64_t(8) << 30;

  /// At least `bytes`, in steps of an eighth of its power of two (at most
  /// 12.5 % unused), 512 bytes at least.
  static uint64_t roundedSize(uint64_t bytes) {
    uint64_t p = 512;
    while (p < bytes)
      p <<= 1;
    uint64_t step = std::max<uint64_t>(512, p / 8);
    return (std::max<uint64_t>(bytes, 1) + step - 1) / step * step;
  }

  /// Frees every cached block.
  void trim(Driver &d) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto &[bytes, block] : free_) {
      d.eventSynchronize(block.freed);
      d.memFree(block.ptr);
      events_.push_back(block.freed);
    }
    free_.clear();
    cachedBytes_ = 0;
  }

  std::mutex mutex_;
  std::multimap<uint64_t, Block> free_;
  std::unordered_map<CUdeviceptr, uint64_t> live_;
  std::vector<CUevent> events_;
  uint64_t cachedBytes_ = 0;
};

} // namespace

extern "C" {

const char *kiln_gpu_status() {
  Driver &d = driver();
  return d.status.empty() ? nullptr : d.status.c_str();
}

const char *kiln_gpu_take_error() {
  std::lock_guard<std::mutex> lock(errorMutex);
  if (firstError.empty())
    return nullptr;
  takenError = firstError;
  firstError.clear();
  return takenError.c_str();
}

const char *kiln_gpu_device_name() { return driver().name.c_str(); }
const char *kiln_gpu_chip() { return driver().chip.c_str(); }
uint64_t kiln_gpu_launch_count() { return launches.load(); }

void kiln_gpu_profile(int enable) {
  if (enable)
    for (int i = 0; i < NumEntries; ++i) {
      entryNanos[i] = 0;
      entryCalls[i] = 0;
    }
  profiling = enable != 0;
}

const char *kiln_gpu_profile_report() {
  static std::mutex mutex;
  static std::string report;
  std::lock_guard<std::mutex> lock(mutex);
  report.clear();
  for (int i = 0; i < NumEntries; ++i)
    if (uint64_t calls = entryCalls[i].load())
      report += std::string(report.empty() ? "" : "\n") + kEntryNames[i] + " " +
                std::to_string(calls) + " calls " +
                std::to_string(entryNanos[i].load() / 1000) + " us";
  return report.c_str();
}

void *mgpuModuleLoad(void *data, size_t) {
  CUmodule module = nullptr;
  if (Driver *d = ready("mgpuModuleLoad"))
    check(d->moduleLoadData(&module, data), "cuModuleLoadData");
  return module;
}

void *mgpuModuleLoadJIT(void *data, int optLevel) {
  CUmodule module = nullptr;
  if (Driver *d = ready("mgpuModuleLoadJIT")) {
    CUjit_option options[] = {CU_JIT_OPTIMIZATION_LEVEL};
    void *values[] = {reinterpret_cast<void *>(intptr_t(optLevel))};
    check(d->moduleLoadDataEx(&module, data, 1, options, values), "cuModuleLoadDataEx (PTX JIT)");
  }
  return module;
}

void mgpuModuleUnload(void *module) {
  if (module)
    if (Driver *d = ready("mgpuModuleUnload"))
      check(d->moduleUnload(static_cast<CUmodule>(module)), "cuModuleUnload");
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  EntryTimer timer(GetFunction);
  CUfunction function = nullptr;
  if (!module)
    return nullptr; // the load failed and said so
  if (Driver *d = ready("mgpuModuleGetFunction"))
    check(d->moduleGetFunction(&function, static_cast<CUmodule>(module), name),
          "cuModuleGetFunction");
  return function;
}

void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY, intptr_t gridZ,
                      intptr_t blockX, intptr_t blockY, intptr_t blockZ, int32_t smem,
                      void *stream, void **params, void **extra, size_t) {
  EntryTimer timer(Launch);
  if (!function)
    return;
  if (Driver *d = ready("mgpuLaunchKernel")) {
    launches.fetch_add(1);
    check(d->launchKernel(static_cast<CUfunction>(function), gridX, gridY, gridZ, blockX,
                          blockY, blockZ, smem, static_cast<CUstream>(stream), params, extra),
          "cuLaunchKernel");
  }
}

void *mgpuStreamCreate() {
  EntryTimer timer(StreamCreate);
  CUstream stream = nullptr;
  if (Driver *d = ready("mgpuStreamCreate")) {
    if (void *pooled = StreamPool::get().take())
      return pooled;
    check(d->streamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  }
  return stream;
}

void mgpuStreamDestroy(void *stream) {
  EntryTimer timer(StreamDestroy);
  if (!stream || StreamPool::get().give(stream))
    return;
  if (Driver *d = ready("mgpuStreamDestroy"))
    check(d->streamDestroy(static_cast<CUstream>(stream)), "cuStreamDestroy");
}

void mgpuStreamSynchronize(void *stream) {
  EntryTimer timer(StreamSync);
  if (Driver *d = ready("mgpuStreamSynchronize"))
    check(d->streamSynchronize(static_cast<CUstream>(stream)), "cuStreamSynchronize");
}

void mgpuStreamWaitEvent(void *stream, void *event) {
  if (Driver *d = ready("mgpuStreamWaitEvent"))
    check(d->streamWaitEvent(static_cast<CUstream>(stream), static_cast<CUevent>(event), 0),
          "cuStreamWaitEvent");
}

void *mgpuEventCreate() {
  CUevent event = nullptr;
  if (Driver *d = ready("mgpuEventCreate"))
    check(d->eventCreate(&event, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
  return event;
}

void mgpuEventDestroy(void *event) {
  if (event)
    if (Driver *d = ready("mgpuEventDestroy"))
      check(d->eventDestroy(static_cast<CUevent>(event)), "cuEventDestroy");
}

void mgpuEventSynchronize(void *event) {
  if (Driver *d = ready("mgpuEventSynchronize"))
    check(d->eventSynchronize(static_cast<CUevent>(event)), "cuEventSynchronize");
}

void mgpuEventRecord(void *event, void *stream) {
  if (Driver *d = ready("mgpuEventRecord"))
    check(d->eventRecord(static_cast<CUevent>(event), static_cast<CUstream>(stream)),
          "cuEventRecord");
}

// Buffers of a compiled function are allocated and freed in stream order
// (the driver's memory pool): no device-wide synchronisation per buffer, and
// a free is ordered after the kernels queued before it on the stream.
void *mgpuMemAlloc(uint64_t sizeBytes, void *stream, bool isHostShared) {
  EntryTimer timer(MemAlloc);
  CUdeviceptr ptr = 0;
  if (Driver *d = ready("mgpuMemAlloc")) {
    if (sizeBytes == 0)
      sizeBytes = 1;
    if (isHostShared)
      check(d->memAllocManaged(&ptr, sizeBytes, CU_MEM_ATTACH_GLOBAL), "cuMemAllocManaged");
    else
      ptr = DeviceBlockCache::get().allocate(*d, sizeBytes, static_cast<CUstream>(stream));
  }
  return reinterpret_cast<void *>(ptr);
}

void mgpuMemFree(void *ptr, void *stream) {
  EntryTimer timer(MemFree);
  if (!ptr)
    return;
  if (Driver *d = ready("mgpuMemFree")) {
    if (DeviceBlockCache::get().release(*d, reinterpret_cast<CUdeviceptr>(ptr),
                                        static_cast<CUstream>(stream)))
      return;
    if (stream)
      check(d->memFreeAsync(reinterpret_cast<CUdeviceptr>(ptr), static_cast<CUstream>(stream)),
            "cuMemFreeAsync");
    else
      check(d->memFree(reinterpret_cast<CUdeviceptr>(ptr)), "cuMemFree");
  }
}

void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, void *stream) {
  EntryTimer timer(Memcpy);
  if (!dst || !src)
    return;
  if (Driver *d = ready("mgpuMemcpy"))
    check(d->memcpyAsync(reinterpret_cast<CUdeviceptr>(dst), reinterpret_cast<CUdeviceptr>(src),
                         sizeBytes, static_cast<CUstream>(stream)),
          "cuMemcpyAsync");
}

void mgpuMemset32(void *dst, unsigned int value, size_t count, void *stream) {
  if (Driver *d = ready("mgpuMemset32"))
    check(d->memsetD32Async(reinterpret_cast<CUdeviceptr>(dst), value, count,
                            static_cast<CUstream>(stream)),
          "cuMemsetD32Async");
}

void mgpuMemset16(void *dst, unsigned short value, size_t count, void *stream) {
  if (Driver *d = ready("mgpuMemset16"))
    check(d->memsetD16Async(reinterpret_cast<CUdeviceptr>(dst), value, count,
                            static_cast<CUstream>(stream)),
          "cuMemsetD16Async");
}

void _mlir_ciface_kiln_rt_sgemm(KilnMemRef3<float> *a, KilnMemRef3<float> *b,
                                KilnMemRef3<float> *c, int64_t transA, int64_t transB) {
  gemm(a, b, c, transA, transB);
}

void _mlir_ciface_kiln_rt_dgemm(KilnMemRef3<double> *a, KilnMemRef3<double> *b,
                                KilnMemRef3<double> *c, int64_t transA, int64_t transB) {
  gemm(a, b, c, transA, transB);
}

void kiln_gpu_buffers_to_device(void *const *hostBuffers, const size_t *bytes, size_t numInputs,
                                size_t numBuffers, void **device, void *stream) {
  for (size_t i = 0; i < numBuffers; ++i) {
    device[i] = mgpuMemAlloc(bytes[i], stream, /*isHostShared=*/false);
    if (i < numInputs && bytes[i])
      mgpuMemcpy(device[i], hostBuffers[i], bytes[i], stream);
  }
  mgpuStreamSynchronize(stream);
}

void kiln_gpu_buffers_from_device(void *const *hostBuffers, const size_t *bytes,
                                  size_t numInputs, size_t numBuffers, void *const *device,
                                  void *stream, int copyOutputs) {
  if (copyOutputs)
    for (size_t i = numInputs; i < numBuffers; ++i)
      if (bytes[i])
        mgpuMemcpy(hostBuffers[i], device[i], bytes[i], stream);
  for (size_t i = 0; i < numBuffers; ++i)
    mgpuMemFree(device[i], stream);
  mgpuStreamSynchronize(stream);
}

const char *kiln_gpu_call_host(void (*fn)(void *const *), void *const *hostBuffers,
                               const size_t *bytes, size_t numInputs, size_t numBuffers) {
  void *stream = mgpuStreamCreate();
  std::vector<void *> device(numBuffers, nullptr);
  kiln_gpu_buffers_to_device(hostBuffers, bytes, numInputs, numBuffers, device.data(), stream);
  const char *failure = kiln_gpu_take_error();
  if (!failure) {
    fn(device.data()); // returns once its work is done (it waits at its end)
    failure = kiln_gpu_take_error();
  }
  // A failure's text lives in the error record until the next take: keep it.
  std::string kept = failure ? failure : "";
  kiln_gpu_buffers_from_device(hostBuffers, bytes, numInputs, numBuffers, device.data(), stream,
                               /*copyOutputs=*/!failure);
  mgpuStreamDestroy(stream);
  if (!failure)
    return kiln_gpu_take_error();
  (void)kiln_gpu_take_error();
  std::lock_guard<std::mutex> lock(errorMutex);
  takenError = kept;
  return takenError.c_str();
}

} // extern "C"
