//===- CpuSoftFloatTest.cpp - bf16 conversions of the CPU runtime ---------===//
//
// __truncsfbf2 / __truncdfbf2 (runtime/cpu/KilnSoftFloat.cpp) against an
// independent reference: the nearest of the two bf16 neighbours of x,
// ties to the even one, computed in long double.
//
//===----------------------------------------------------------------------===//
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <dlfcn.h>
#include <limits>

namespace {

float bf16ToFloat(uint16_t bits) {
  uint32_t u = uint32_t(bits) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

/// The correctly rounded bf16 of finite `x`.
uint16_t referenceBf16(long double x) {
  float toward = float(x); // a float near x; its top 16 bits bracket x
  uint32_t u;
  std::memcpy(&u, &toward, sizeof u);
  uint16_t lo = uint16_t(u >> 16);
  // Step `lo` so that bf16(lo) <= |x| < bf16(lo + 1) in magnitude.
  while (std::fabs((long double)bf16ToFloat(lo)) > std::fabs(x))
    --lo;
  while (!std::isinf(bf16ToFloat(uint16_t(lo + 1))) &&
         std::fabs((long double)bf16ToFloat(uint16_t(lo + 1))) <= std::fabs(x))
    ++lo;
  uint16_t hi = uint16_t(lo + 1);
  // Past the largest finite bf16, infinity stands where 2^128 would be.
  long double hiValue = std::isinf(bf16ToFloat(hi))
                            ? std::copysign(std::ldexp(1.0L, 128), x)
                            : (long double)bf16ToFloat(hi);
  long double dLo = std::fabs(x - bf16ToFloat(lo)), dHi = std::fabs(hiValue - x);
  if (dLo < dHi)
    return lo;
  if (dHi < dLo)
    return hi;
  return (lo & 1) ? hi : lo;
}

struct CpuSoftFloatTest : ::testing::Test {
  void SetUp() override {
    lib = dlopen(KILN_RUNTIME_CPU_PATH, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(lib, nullptr) << dlerror();
    fromFloat = reinterpret_cast<_Float16 (*)(float)>(dlsym(lib, "__truncsfbf2"));
    fromDouble = reinterpret_cast<_Float16 (*)(double)>(dlsym(lib, "__truncdfbf2"));
    ASSERT_TRUE(fromFloat && fromDouble);
  }
  void TearDown() override {
    if (lib)
      dlclose(lib);
  }
  static uint16_t bits(_Float16 h) {
    uint16_t b;
    std::memcpy(&b, &h, sizeof b);
    return b;
  }
  void *lib = nullptr;
  _Float16 (*fromFloat)(float) = nullptr;
  _Float16 (*fromDouble)(double) = nullptr;
};

TEST_F(CpuSoftFloatTest, FloatRoundsToNearestEven) {
  // Ties both ways (1 + 2^-8 is halfway between 1 and 1 + 2^-7), negatives,
  // subnormals, the largest finite float and values across the range.
  const float cases[] = {1.0f, 1.00390625f, 1.01171875f, -1.00390625f, 3.14159265f, -2.71828f,
                         1e-40f, -1e-42f, 3.4e38f, 65504.0f, 1e-10f, 0.0f, -0.0f};
  for (float x : cases)
    EXPECT_EQ(bits(fromFloat(x)), referenceBf16(x)) << x;
  for (int i = 0; i < 20000; ++i) {
    float x = std::ldexp(1.0f + float(i) / 20000.0f, (i % 200) - 100) * ((i & 1) ? -1.0f : 1.0f);
    ASSERT_EQ(bits(fromFloat(x)), referenceBf16(x)) << x;
  }
}

TEST_F(CpuSoftFloatTest, DoubleRoundsOnce) {
  // Just above the 1 / 1 + 2^-7 tie: through a float rounded to nearest it
  // would become the tie itself and round down to 1.
  double above = 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30);
  EXPECT_EQ(bits(fromDouble(above)), referenceBf16(above));
  EXPECT_EQ(bits(fromDouble(above)), 0x3f81);
  for (int i = 0; i < 20000; ++i) {
    double x = std::ldexp(1.0 + double(i) / 20000.0 + 1e-12, (i % 200) - 100);
    ASSERT_EQ(bits(fromDouble(x)), referenceBf16(x)) << x;
  }
}

TEST_F(CpuSoftFloatTest, NaNStaysNaNAndInfinityStays) {
  EXPECT_TRUE(std::isnan(bf16ToFloat(bits(fromFloat(std::numeric_limits<float>::quiet_NaN())))));
  EXPECT_TRUE(std::isnan(bf16ToFloat(bits(fromDouble(std::numeric_limits<double>::quiet_NaN())))));
  EXPECT_EQ(bits(fromFloat(std::numeric_limits<float>::infinity())), 0x7f80);
  EXPECT_EQ(bits(fromDouble(-std::numeric_limits<double>::infinity())), 0xff80);
}

} // namespace
