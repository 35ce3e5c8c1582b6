//===- KilnSort.cpp - the positions of lines in key order -----------------===//
//
// kiln_rt_sort_positions: lax.sort and lax.top_k on the CPU
// (lowering/LaxToLinalgSort.cpp calls it once per key).
//
//===----------------------------------------------------------------------===//
#include "runtime/cpu/KilnRuntimeCpu.h"

#include <algorithm>
#include <vector>

namespace {

/// One element of a line: its key and its place in the order given.
struct Entry {
  int64_t key;
  int32_t place;
  bool operator<(const Entry &other) const {
    return key < other.key || (key == other.key && place < other.place);
  }
};

} // namespace

void _mlir_ciface_kiln_rt_sort_positions(KilnMemRef3<int64_t> *keys,
                                                    KilnMemRef3<int32_t> *order,
                                                    KilnMemRef3<int32_t> *sorted) {
  int64_t outer = keys->sizes[0], n = keys->sizes[1], inner = keys->sizes[2];
  int64_t k = sorted->sizes[1];
  const int64_t *key = keys->aligned + keys->offset;
  const int32_t *from = order->aligned + order->offset;
  int32_t *to = sorted->aligned + sorted->offset;
  std::vector<Entry> line(n);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      const int32_t *fromLine = from + o * order->strides[0] + i * order->strides[2];
      const int64_t *keyLine = key + o * keys->strides[0] + i * keys->strides[2];
      for (int64_t p = 0; p < n; ++p) {
        int32_t position = fromLine[p * order->strides[1]];
        line[p] = {keyLine[position * keys->strides[1]], int32_t(p)};
      }
      // The order is strict (places differ), so every algorithm gives the
      // one stable result; the first k only need a partial sort.
      if (k < n)
        std::partial_sort(line.begin(), line.begin() + k, line.end());
      else
        std::sort(line.begin(), line.end());
      int32_t *toLine = to + o * sorted->strides[0] + i * sorted->strides[2];
      for (int64_t r = 0; r < k; ++r)
        toLine[r * sorted->strides[1]] = fromLine[line[r].place * order->strides[1]];
    }
}
