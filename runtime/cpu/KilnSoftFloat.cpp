//===- KilnSoftFloat.cpp - bf16 conversions the JIT code may call ---------===//
//
// On CPUs without AVX512-BF16, LLVM lowers `fptrunc float/double to bfloat`
// to the compiler-rt builtins __truncsfbf2 / __truncdfbf2. Debian 12's
// libgcc (GCC 12) has neither, so JIT code with a bf16 convert failed to
// link there ("Symbols not found: __truncsfbf2"). They are defined here, in
// the runtime library the JIT already searches.
//
// Rounding is to nearest, ties to even, as the hardware instruction does;
// NaNs stay (quiet) NaNs. double -> bf16 goes through float rounded to odd,
// which makes the second rounding exact (no double-rounding error).
//
// The bf16 result travels in the low 16 bits of xmm0, the same register and
// bits as a _Float16 return value, which GCC 12 supports.
//
//===----------------------------------------------------------------------===//
#include <cmath>
#include <cstdint>
#include <cstring>

namespace {

uint16_t floatToBf16Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u) // NaN: keep the sign, force quiet
    return uint16_t((u >> 16) | 0x40u);
  return uint16_t((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

_Float16 asReturnValue(uint16_t bits) {
  _Float16 h;
  std::memcpy(&h, &bits, sizeof h);
  return h;
}

} // namespace

extern "C" {

_Float16 __truncsfbf2(float f) { return asReturnValue(floatToBf16Bits(f)); }

_Float16 __truncdfbf2(double d) {
  float f = float(d);
  // Round to odd: truncate toward zero, and an inexact result gets its
  // lowest mantissa bit set, so rounding it again to bf16 rounds as `d`
  // itself would.
  if (double(f) != d && f == f && f - f == 0.0f) {
    if (std::fabs(double(f)) > std::fabs(d))
      f = std::nextafter(f, 0.0f);
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    u |= 1u;
    std::memcpy(&f, &u, sizeof f);
  }
  return asReturnValue(floatToBf16Bits(f));
}

} // extern "C"
