//===- ChoiceSource.h - where the program generator's decisions come from -===//
//
// Every random decision of the program generator (ProgramGenerator.h) goes
// through a ChoiceSource: an integer below n, or a double in [0, 1). Two
// sources:
//
//   - PythonRandom: CPython's random.Random(seed) (MT19937, seeded through
//     init_by_array), bit for bit, so that a seed gives the program that
//     tests/differential/generate.py gave for it (the campaigns' seeds in
//     docs/soundness.md stay reproducible);
//   - ByteChoiceSource: libFuzzer's bytes, in the manner of LLVM's
//     FuzzedDataProvider: each choice consumes a few bytes, and once they run
//     out every choice is 0, so that any input gives a valid program and a
//     mutated byte changes one decision.
//
// Random implements, once, the algorithms of CPython 3.11's random.Random
// that the generator uses (randint, randrange, choice, choices, sample,
// shuffle, uniform, random) on top of either source.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TOOLS_KILN_DIFFTEST_CHOICESOURCE_H
#define KILN_TOOLS_KILN_DIFFTEST_CHOICESOURCE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace kiln::difftest {

class ChoiceSource {
public:
  virtual ~ChoiceSource() = default;
  /// An integer in [0, n), n > 0 (CPython's _randbelow).
  virtual uint64_t below(uint64_t n) = 0;
  /// A double in [0, 1) (CPython's random()).
  virtual double unit() = 0;
};

/// CPython's random.Random(seed) for an integer seed.
class PythonRandom : public ChoiceSource {
public:
  explicit PythonRandom(int64_t seed);
  uint64_t below(uint64_t n) override;
  double unit() override;

private:
  uint32_t next32();
  /// getrandbits(k) for 0 < k <= 32.
  uint32_t bits(unsigned k) { return next32() >> (32 - k); }

  std::array<uint32_t, 624> state;
  unsigned index = 625;
};

/// Decisions read from fuzzer bytes: below(n) takes as many bytes as n - 1
/// needs, unit() takes two; past the end every decision is 0.
class ByteChoiceSource : public ChoiceSource {
public:
  ByteChoiceSource(const uint8_t *data, size_t size) : data(data), size(size) {}
  uint64_t below(uint64_t n) override;
  double unit() override;

private:
  uint64_t take(unsigned bytes);

  const uint8_t *data;
  size_t size;
  size_t offset = 0;
};

/// CPython 3.11's random.Random methods over a ChoiceSource.
class Random {
public:
  explicit Random(ChoiceSource &source) : source(source) {}

  double random() { return source.unit(); }
  /// randrange(n): [0, n).
  int64_t randrange(int64_t n) { return int64_t(source.below(uint64_t(n))); }
  /// randint(a, b): [a, b].
  int64_t randint(int64_t a, int64_t b) { return a + randrange(b - a + 1); }
  double uniform(double a, double b) { return a + (b - a) * random(); }
  /// choice(seq): an index into a sequence of `size` elements.
  size_t choiceIndex(size_t size) { return size_t(source.below(size)); }
  template <typename T> const T &choice(llvm::ArrayRef<T> seq) { return seq[choiceIndex(seq.size())]; }
  template <typename T> const T &choice(const std::vector<T> &seq) {
    return seq[choiceIndex(seq.size())];
  }
  template <typename T> const T &choice(const llvm::SmallVectorImpl<T> &seq) {
    return seq[choiceIndex(seq.size())];
  }
  /// choices(population, weights)[0]: the index chosen.
  size_t weightedIndex(llvm::ArrayRef<unsigned> weights);
  /// sample(population, k): the indices into the population, in order drawn.
  llvm::SmallVector<size_t> sampleIndices(size_t n, size_t k);
  template <typename T> llvm::SmallVector<T> sample(llvm::ArrayRef<T> population, size_t k) {
    llvm::SmallVector<T> out;
    for (size_t i : sampleIndices(population.size(), k))
      out.push_back(population[i]);
    return out;
  }
  template <typename T> void shuffle(llvm::MutableArrayRef<T> x) {
    for (size_t i = x.size(); i-- > 1;)
      std::swap(x[i], x[source.below(i + 1)]);
  }

private:
  ChoiceSource &source;
};

} // namespace kiln::difftest

#endif // KILN_TOOLS_KILN_DIFFTEST_CHOICESOURCE_H
