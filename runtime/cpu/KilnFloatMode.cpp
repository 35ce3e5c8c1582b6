//===- KilnFloatMode.cpp - subnormal flushing around compiled code --------===//
//
// XLA:CPU runs compiled code with subnormals flushed to zero: inputs read as
// zero (x86's DAZ) and results that would be subnormal written as zero
// (FTZ). Code compiled with flush-subnormals (kiln-flush-subnormals) sets
// the same mode on entry to each function other threads or callers enter
// (the entry, each parallel loop's task body) and puts the caller's mode
// back before it returns. The mode is per thread. On hosts other than
// x86-64 the functions do nothing (IEEE subnormals stay).
//
//===----------------------------------------------------------------------===//
#include "runtime/cpu/KilnRuntimeCpu.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <xmmintrin.h>
#define KILN_HAVE_MXCSR 1
#endif

namespace {
#ifdef KILN_HAVE_MXCSR
/// MXCSR's flush-to-zero (bit 15) and denormals-are-zero (bit 6).
constexpr uint32_t kFlushBits = 0x8040;
#endif
} // namespace

extern "C" {
uint32_t kiln_rt_float_mode() {
#ifdef KILN_HAVE_MXCSR
  return _mm_getcsr();
#else
  return 0;
#endif
}

void kiln_rt_set_float_mode(uint32_t mode) {
#ifdef KILN_HAVE_MXCSR
  _mm_setcsr(mode);
#else
  (void)mode;
#endif
}

uint32_t kiln_rt_flush_subnormals_begin() {
  uint32_t saved = kiln_rt_float_mode();
#ifdef KILN_HAVE_MXCSR
  if ((saved & kFlushBits) != kFlushBits)
    _mm_setcsr(saved | kFlushBits);
#endif
  return saved;
}
}
