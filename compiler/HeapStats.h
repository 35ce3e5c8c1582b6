//===- HeapStats.h - heap bytes held by compiled CPU code -------*- C++ -*-===//
//
// What kiln-run --check and the benchmarks report about the memory compiled
// code allocates through Kiln's CPU runtime (runtime/cpu's allocator).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_HEAPSTATS_H
#define KILN_COMPILER_HEAPSTATS_H

#include <cstdint>

namespace kiln {

/// Heap bytes that compiled CPU code holds (allocated through the runtime
/// library's allocator and not yet freed): now, and the most since the last
/// reset. Zeros until a CPU compile has loaded the runtime library.
struct HeapStats {
  int64_t live = 0;
  int64_t peak = 0;
};
/// With `resetPeak`, the peak restarts from the current live bytes (after
/// being read).
HeapStats runtimeHeapStats(bool resetPeak = false);

} // namespace kiln

#endif // KILN_COMPILER_HEAPSTATS_H
