//===- KilnGuardedCall.h - ending a guarded call early ----------*- C++ -*-===//
//
// Internal to the CPU runtime: how its parts end the innermost
// kiln_rt_guarded_call of the calling thread (KilnGuardedCall.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_CPU_KILNGUARDEDCALL_H
#define KILN_RUNTIME_CPU_KILNGUARDEDCALL_H

#include <cstddef>
#include <cstdint>

namespace kiln::runtime {
/// Jumps out of the compiled code to the innermost kiln_rt_guarded_call on
/// this thread, which returns `status` (and reports `bytes`, for an
/// allocation failure). Returns false, doing nothing, when this thread is
/// in no guarded call.
bool abandonGuardedCall(int32_t status, size_t bytes);
} // namespace kiln::runtime

#endif // KILN_RUNTIME_CPU_KILNGUARDEDCALL_H
