//===- KilnGuardedCall.h - ending a guarded call early ----------*- C++ -*-===//
//
// Internal to the CPU runtime: how its parts end the innermost
// kiln_rt_guarded_call of the calling thread (KilnGuardedCall.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_CPU_KILNGUARDEDCALL_H
#define KILN_RUNTIME_CPU_KILNGUARDEDCALL_H

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace kiln::runtime {
/// Jumps out of the compiled code to the innermost kiln_rt_guarded_call on
/// this thread, which returns `status` (and reports `bytes`, for an
/// allocation failure). Returns false, doing nothing, when this thread is
/// in no guarded call.
bool abandonGuardedCall(int32_t status, size_t bytes);

/// The first failure among the ranges of one parallel loop.
struct LoopFailure {
  std::atomic<int32_t> status{0}; ///< kKilnCallOk while none failed
  size_t bytes = 0;               ///< written by the range that set status
};

/// Runs `task(context, begin, end)` (a parallel loop's range) on this
/// thread within a jump target of its own: a failure inside it
/// (abandonGuardedCall) ends the range only, is recorded in `failure` (the
/// first one is kept) and returns false. The range may run on a worker,
/// which is in no guarded call, or on the loop's caller, whose guarded call
/// must not be jumped to while workers still run the loop's other ranges.
bool runGuardedRange(void (*task)(void *, int64_t, int64_t), void *context, int64_t begin,
                     int64_t end, LoopFailure &failure);

/// On the loop's caller once every range has ended: passes a recorded
/// failure on to the caller's guarded call (abandonGuardedCall), or prints
/// it and aborts where there is none. Returns when none was recorded.
void raiseLoopFailure(const LoopFailure &failure);

/// Whether the calling thread has a host callback handler installed
/// (kiln_rt_set_host_callback).
bool hasHostCallback();
} // namespace kiln::runtime

#endif // KILN_RUNTIME_CPU_KILNGUARDEDCALL_H
