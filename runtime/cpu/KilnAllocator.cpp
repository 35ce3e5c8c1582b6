//===- KilnAllocator.cpp - buffer allocation for JIT-compiled code --------===//
//
// The CPU pipeline lowers memref.alloc/dealloc to `_mlir_memref_to_llvm_alloc`
// and `_mlir_memref_to_llvm_free` (finalize-memref-to-llvm with
// use-generic-functions), implemented here. Large temporaries (jax-ml/jax#2491's
// scratch rows, jax-ml/jax#4968's stacked output) would otherwise go through
// malloc/free on every call: glibc hands blocks that large to mmap/munmap, so
// every call paid page faults on fresh zeroed pages. This allocator keeps
// freed blocks in per-thread, per-size free lists and reuses them, so a
// program called repeatedly with fixed shapes allocates nothing after its
// first call.
//
// Blocks are 64-byte aligned (one cache line, the widest vector) and carry
// a 64-byte header with their size class. A bounded amount of memory stays
// cached per thread; the rest is returned to the system.
//
// The bytes the compiled code holds (allocated, not yet freed) and their
// peak are counted for kiln_rt_heap_stats: the benchmarks report the extra
// memory a program needs (jax-ml/jax#4968's stacked output, or none after the
// push-up) from it.
//
// An allocation that fails (after the thread's cached blocks are given back)
// does not return null, which the compiled code would write through: inside
// kiln_rt_guarded_call (KilnGuardedCall.cpp) on the calling thread it jumps
// back out of the compiled code, which then reports the failure (Executable::call, the
// Python package: MemoryError); in a parallel loop's range, on a worker or
// the caller, it ends the range and the loop passes the failure to its
// caller; outside any guarded call it prints what failed and aborts.
//
//===----------------------------------------------------------------------===//
#include "runtime/cpu/KilnGuardedCall.h"
#include "runtime/cpu/KilnRuntimeCpu.h"

#include <atomic>
#include <cstddef>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <unordered_map>
#include <vector>

namespace {

constexpr size_t kAlign = 64;
constexpr size_t kHeader = 64;
constexpr size_t kMaxCachedBytes = size_t(1) << 30; // per thread

struct Header {
  size_t bytes;     // size class of the user part (0: over-aligned, not cached)
  void *raw;        // what aligned_alloc returned
  size_t counted;   // what the block adds to the live bytes
};
static_assert(sizeof(Header) <= kHeader, "header fits its slot");

struct ThreadCache {
  std::unordered_map<size_t, std::vector<void *>> free;
  size_t cachedBytes = 0;
  ~ThreadCache() {
    for (auto &[bytes, blocks] : free)
      for (void *p : blocks)
        std::free(reinterpret_cast<Header *>(static_cast<char *>(p) - kHeader)->raw);
  }
};

ThreadCache &cache() {
  thread_local ThreadCache c;
  return c;
}

size_t sizeClass(size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

std::atomic<int64_t> liveBytes{0}, peakBytes{0};

void countAllocated(size_t bytes) {
  int64_t live = liveBytes.fetch_add(int64_t(bytes), std::memory_order_relaxed) + int64_t(bytes);
  int64_t peak = peakBytes.load(std::memory_order_relaxed);
  while (live > peak && !peakBytes.compare_exchange_weak(peak, live, std::memory_order_relaxed))
    ;
}

[[noreturn]] void outOfMemory(size_t bytes) {
  kiln::runtime::abandonGuardedCall(kKilnCallOutOfMemory, bytes);
  std::fprintf(stderr,
               "kiln: error: compiled code could not allocate %zu bytes (out of memory)\n",
               bytes);
  std::abort();
}

/// Frees this thread's cached blocks (before reporting a failure).
void trimCache() {
  ThreadCache &c = cache();
  for (auto &[bytes, blocks] : c.free)
    for (void *p : blocks)
      std::free(reinterpret_cast<Header *>(static_cast<char *>(p) - kHeader)->raw);
  c.free.clear();
  c.cachedBytes = 0;
}

void *allocate(size_t bytes, size_t alignment) {
  // Sizes that overflow the arithmetic below cannot be allocated anyway.
  if (bytes > (SIZE_MAX >> 2) || alignment > (SIZE_MAX >> 4))
    outOfMemory(bytes);
  size_t cls = sizeClass(bytes ? bytes : 1);
  if (alignment <= kAlign) {
    ThreadCache &c = cache();
    auto it = c.free.find(cls);
    if (it != c.free.end() && !it->second.empty()) {
      void *p = it->second.back();
      it->second.pop_back();
      c.cachedBytes -= cls;
      countAllocated(cls);
      return p;
    }
  }
  size_t align = alignment > kAlign ? alignment : kAlign;
  // Room for the header before an `align`-aligned user block.
  size_t total = cls + align + kHeader;
  total = (total + align - 1) / align * align;
  void *raw = std::aligned_alloc(align, total);
  if (!raw) {
    trimCache();
    raw = std::aligned_alloc(align, total);
  }
  if (!raw)
    outOfMemory(bytes);
  uintptr_t user = (reinterpret_cast<uintptr_t>(raw) + kHeader + align - 1) / align * align;
  Header *h = reinterpret_cast<Header *>(user - kHeader);
  h->bytes = alignment <= kAlign ? cls : 0; // over-aligned blocks are not cached
  h->raw = raw;
  h->counted = cls;
  countAllocated(cls);
  return reinterpret_cast<void *>(user);
}

void release(void *p) {
  if (!p)
    return;
  Header *h = reinterpret_cast<Header *>(static_cast<char *>(p) - kHeader);
  liveBytes.fetch_sub(int64_t(h->counted), std::memory_order_relaxed);
  ThreadCache &c = cache();
  if (h->bytes == 0 || c.cachedBytes + h->bytes > kMaxCachedBytes) {
    std::free(h->raw);
    return;
  }
  c.free[h->bytes].push_back(p);
  c.cachedBytes += h->bytes;
}

} // namespace

extern "C" {
void *_mlir_memref_to_llvm_alloc(size_t size) { return allocate(size, kAlign); }
void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment, size_t size) {
  return allocate(size, alignment);
}
void _mlir_memref_to_llvm_free(void *p) { release(p); }

void kiln_rt_heap_stats(int64_t *live, int64_t *peak, int32_t resetPeak) {
  int64_t now = liveBytes.load(std::memory_order_relaxed);
  if (live)
    *live = now;
  if (peak)
    *peak = peakBytes.load(std::memory_order_relaxed);
  if (resetPeak)
    peakBytes.store(now, std::memory_order_relaxed);
}
}
