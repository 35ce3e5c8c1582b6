//===- KilnGuardedCall.cpp - calls of compiled code that can fail ---------===//
//
// Compiled code has no error path of its own: an allocation that fails
// (KilnAllocator.cpp) or a host callback that raises (below) cannot return
// an error through the ops around it. kiln_rt_guarded_call runs an entry
// with a jump target on the calling thread, and abandonGuardedCall jumps to
// it with the reason: the call then reports that reason instead of results.
// Frames between are compiled code, which has no destructors to skip; the
// temporaries it had allocated in the call are not freed (a leak, on the
// error path only).
//
// A parallel loop (kiln_rt_parallel_for) runs each range within a jump
// target of its own (runGuardedRange), on whichever thread runs it: a
// failure ends that range, the loop starts no more, and once every range
// has ended its caller passes the failure on to its own guarded call. A
// jump straight to the caller's target would leave workers running ranges
// of a loop whose frame is gone; a worker has no target at all.
//
// Host callbacks: lax.host_callback lowers to kiln_rt_host_callback(index,
// buffers), which calls the handler the caller installed on this thread
// (kiln_rt_set_host_callback; the Python package installs one that runs
// the traced function's Python callbacks). The callback runs in the
// compiled code's floating-point mode, as XLA runs its callbacks: with
// flush-subnormals, a subnormal the callback computes is flushed as under
// jax.jit.
//
//===----------------------------------------------------------------------===//
#include "runtime/cpu/KilnGuardedCall.h"
#include "runtime/cpu/KilnRuntimeCpu.h"

#include <csetjmp>
#include <cstdio>
#include <cstdlib>

namespace {

/// Where abandonGuardedCall jumps on this thread (the innermost
/// kiln_rt_guarded_call), and the size that failed.
thread_local sigjmp_buf *guardedCallJump = nullptr;
thread_local size_t failedBytes = 0;

thread_local KilnHostCallbackFn hostCallback = nullptr;
thread_local void *hostCallbackContext = nullptr;

/// Runs `body` within a jump target of this thread (the innermost, which
/// abandonGuardedCall jumps to); returns kKilnCallOk, or the status it was
/// abandoned with (the size that failed in failedBytes). The jump skips the
/// compiled code's restoring of the thread's floating-point mode
/// (flush-subnormals), so it is restored here.
template <typename Body>
int32_t runWithJumpTarget(Body &&body) {
  sigjmp_buf jump;
  sigjmp_buf *outer = guardedCallJump;
  uint32_t floatMode = kiln_rt_float_mode();
  if (int status = sigsetjmp(jump, 0)) {
    kiln_rt_set_float_mode(floatMode);
    guardedCallJump = outer;
    return status;
  }
  guardedCallJump = &jump;
  body();
  guardedCallJump = outer;
  return kKilnCallOk;
}

} // namespace

bool kiln::runtime::abandonGuardedCall(int32_t status, size_t bytes) {
  if (!guardedCallJump)
    return false;
  failedBytes = bytes;
  siglongjmp(*guardedCallJump, status);
}

bool kiln::runtime::runGuardedRange(void (*task)(void *, int64_t, int64_t), void *context,
                                    int64_t begin, int64_t end, LoopFailure &failure) {
  int32_t status = runWithJumpTarget([&] { task(context, begin, end); });
  if (status == kKilnCallOk)
    return true;
  int32_t none = kKilnCallOk;
  if (failure.status.compare_exchange_strong(none, status, std::memory_order_acq_rel))
    failure.bytes = failedBytes;
  return false;
}

void kiln::runtime::raiseLoopFailure(const LoopFailure &failure) {
  int32_t status = failure.status.load(std::memory_order_acquire);
  if (status == kKilnCallOk)
    return;
  abandonGuardedCall(status, failure.bytes);
  if (status == kKilnCallOutOfMemory)
    std::fprintf(stderr,
                 "kiln: error: compiled code could not allocate %zu bytes (out of memory)\n",
                 failure.bytes);
  else
    std::fprintf(stderr, "kiln: error: a host callback failed outside a guarded call\n");
  std::abort();
}

bool kiln::runtime::hasHostCallback() { return hostCallback != nullptr; }

extern "C" {

int32_t kiln_rt_guarded_call(void (*fn)(void *const *), void *const *buffers,
                             size_t *bytesNotAllocated) {
  int32_t status = runWithJumpTarget([&] { fn(buffers); });
  if (bytesNotAllocated)
    *bytesNotAllocated = status == kKilnCallOutOfMemory ? failedBytes : 0;
  return status;
}

void kiln_rt_set_host_callback(KilnHostCallbackFn fn, void *context,
                               KilnHostCallbackFn *previous, void **previousContext) {
  if (previous)
    *previous = hostCallback;
  if (previousContext)
    *previousContext = hostCallbackContext;
  hostCallback = fn;
  hostCallbackContext = context;
}

void _mlir_ciface_kiln_rt_host_callback(int64_t index, KilnMemRef1<int64_t> *buffers) {
  if (!hostCallback) {
    std::fprintf(stderr,
                 "kiln: error: the compiled code called host callback %lld, but its caller "
                 "installed none (only kiln.jit runs programs with callbacks)\n",
                 static_cast<long long>(index));
    std::abort();
  }
  auto *pointers = reinterpret_cast<void *const *>(buffers->aligned + buffers->offset);
  int32_t status = hostCallback(hostCallbackContext, index, pointers);
  if (status == 0)
    return;
  if (!kiln::runtime::abandonGuardedCall(kKilnCallCallbackFailed, 0)) {
    std::fprintf(stderr,
                 "kiln: error: host callback %lld failed outside a guarded call\n",
                 static_cast<long long>(index));
    std::abort();
  }
}
}
