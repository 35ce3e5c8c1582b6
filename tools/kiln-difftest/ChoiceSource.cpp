//===- ChoiceSource.cpp - CPython's random.Random and fuzzer bytes --------===//

#include "tools/kiln-difftest/ChoiceSource.h"

#include "llvm/ADT/bit.h"

#include <algorithm>
#include <cmath>
#include <set>

using namespace kiln::difftest;

// MT19937 as CPython's Modules/_randommodule.c has it.
PythonRandom::PythonRandom(int64_t seed) {
  // init_genrand(19650218)
  state[0] = 19650218u;
  for (unsigned i = 1; i < 624; ++i)
    state[i] = 1812433253u * (state[i - 1] ^ (state[i - 1] >> 30)) + i;
  // init_by_array over the 32-bit words of abs(seed), least significant
  // first ([0] for 0).
  uint64_t magnitude = seed < 0 ? uint64_t(0) - uint64_t(seed) : uint64_t(seed);
  llvm::SmallVector<uint32_t, 2> key{uint32_t(magnitude)};
  if (magnitude >> 32)
    key.push_back(uint32_t(magnitude >> 32));
  unsigned i = 1, j = 0;
  for (unsigned k = std::max<unsigned>(624, key.size()); k; --k) {
    state[i] = (state[i] ^ ((state[i - 1] ^ (state[i - 1] >> 30)) * 1664525u)) + key[j] + j;
    ++i;
    ++j;
    if (i >= 624) {
      state[0] = state[623];
      i = 1;
    }
    if (j >= key.size())
      j = 0;
  }
  for (unsigned k = 623; k; --k) {
    state[i] = (state[i] ^ ((state[i - 1] ^ (state[i - 1] >> 30)) * 1566083941u)) - i;
    ++i;
    if (i >= 624) {
      state[0] = state[623];
      i = 1;
    }
  }
  state[0] = 0x80000000u;
  index = 624;
}

uint32_t PythonRandom::next32() {
  constexpr uint32_t upperMask = 0x80000000u, lowerMask = 0x7fffffffu, matrixA = 0x9908b0dfu;
  if (index >= 624) {
    unsigned kk = 0;
    for (; kk < 624 - 397; ++kk) {
      uint32_t y = (state[kk] & upperMask) | (state[kk + 1] & lowerMask);
      state[kk] = state[kk + 397] ^ (y >> 1) ^ ((y & 1) ? matrixA : 0);
    }
    for (; kk < 623; ++kk) {
      uint32_t y = (state[kk] & upperMask) | (state[kk + 1] & lowerMask);
      state[kk] = state[kk + (397 - 624)] ^ (y >> 1) ^ ((y & 1) ? matrixA : 0);
    }
    uint32_t y = (state[623] & upperMask) | (state[0] & lowerMask);
    state[623] = state[396] ^ (y >> 1) ^ ((y & 1) ? matrixA : 0);
    index = 0;
  }
  uint32_t y = state[index++];
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680u;
  y ^= (y << 15) & 0xefc60000u;
  y ^= y >> 18;
  return y;
}

uint64_t PythonRandom::below(uint64_t n) {
  // _randbelow_with_getrandbits: k = n.bit_length(), rejection sampling.
  // The generator's ranges are small; wider ones would need getrandbits of
  // several words.
  unsigned k = 64 - llvm::countl_zero(n);
  if (k > 32)
    std::abort();
  uint64_t r = bits(k);
  while (r >= n)
    r = bits(k);
  return r;
}

double PythonRandom::unit() {
  uint32_t a = next32() >> 5, b = next32() >> 6;
  return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}

uint64_t ByteChoiceSource::take(unsigned bytes) {
  uint64_t v = 0;
  for (unsigned i = 0; i < bytes && offset < size; ++i)
    v = (v << 8) | data[offset++];
  return v;
}

uint64_t ByteChoiceSource::below(uint64_t n) {
  if (n <= 1)
    return 0;
  unsigned bytes = (64 - llvm::countl_zero(n - 1) + 7) / 8;
  return take(bytes) % n;
}

double ByteChoiceSource::unit() { return double(take(2)) / 65536.0; }

size_t Random::weightedIndex(llvm::ArrayRef<unsigned> weights) {
  // cum_weights, then bisect_right(cum_weights, random() * total, 0, n - 1).
  llvm::SmallVector<double, 32> cumulative;
  double total = 0;
  for (unsigned w : weights)
    cumulative.push_back(total += w);
  double x = random() * total;
  return std::upper_bound(cumulative.begin(), cumulative.end() - 1, x) - cumulative.begin();
}

llvm::SmallVector<size_t> Random::sampleIndices(size_t n, size_t k) {
  llvm::SmallVector<size_t> result;
  size_t setsize = 21; // CPython's: a small set's size minus an empty list's
  if (k > 5)
    setsize += size_t(std::pow(4.0, std::ceil(std::log(double(k * 3)) / std::log(4.0))));
  if (n <= setsize) {
    llvm::SmallVector<size_t> pool;
    for (size_t i = 0; i < n; ++i)
      pool.push_back(i);
    for (size_t i = 0; i < k; ++i) {
      size_t j = size_t(source.below(n - i));
      result.push_back(pool[j]);
      pool[j] = pool[n - i - 1];
    }
    return result;
  }
  std::set<size_t> selected;
  for (size_t i = 0; i < k; ++i) {
    size_t j = size_t(source.below(n));
    // A source that repeats itself (exhausted fuzzer bytes) must not loop:
    // after many draws take the first index left.
    for (unsigned tries = 0; selected.count(j); ++tries)
      j = tries < 1000 ? size_t(source.below(n)) : (j + 1) % n;
    selected.insert(j);
    result.push_back(j);
  }
  return result;
}
