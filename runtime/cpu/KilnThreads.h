//===- KilnThreads.h - the CPU runtime's worker threads ---------*- C++ -*-===//
//
// The runtime's one pool of worker threads (the GEMM's blocks, OpenBLAS and
// Eigen single-threaded inside it, and the parallel loops' ranges) and the
// thread counts calls may use (kiln_rt_set_default_threads,
// kiln_rt_set_thread_limit).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_CPU_KILNTHREADS_H
#define KILN_RUNTIME_CPU_KILNTHREADS_H

#include <cstdint>
#include <functional>

namespace kiln::runtime {

/// The most threads the calling thread's work may use now: its limit
/// (kiln_rt_set_thread_limit) when set, else the process default.
int threadsForCaller();

/// Runs `body(i)` for every i in [0, n), on the calling thread and on up
/// to `threads - 1` workers. Indices are claimed one at a time, so the
/// caller never waits for a worker that has not started: on a busy machine,
/// where a worker may not be scheduled for milliseconds, the caller runs
/// the indices itself and waits only for those a worker already runs.
/// Workers spin briefly for the next job, then sleep (no core is held
/// spinning between calls). Safe to call from several threads at once.
void parallelFor(int64_t n, int threads, const std::function<void(int64_t)> &body);

} // namespace kiln::runtime

#endif // KILN_RUNTIME_CPU_KILNTHREADS_H
