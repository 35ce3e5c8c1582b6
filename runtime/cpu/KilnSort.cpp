//===- KilnSort.cpp - the positions of lines in key order -----------------===//
//
// lax.sort and lax.top_k on the CPU (lowering/LaxToLinalgSort.cpp calls one
// of these per key, least significant first). Keys are i32 or i64 read as
// signed; each line's elements are ordered by (key, place), place being the
// element's index in the order given (its position in the first pass), so
// the order is strict and every algorithm gives the one stable result.
//
//===----------------------------------------------------------------------===//
#include "runtime/cpu/KilnRuntimeCpu.h"

#include <algorithm>
#include <vector>

namespace {

/// One element of a line: its key and its place in the order given.
template <typename K> struct Entry {
  K key;
  int32_t place;
  bool operator<(const Entry &other) const {
    return key < other.key || (key == other.key && place < other.place);
  }
};

/// The first k (key, place) pairs in order of the n pairs
/// (keyAt(p), p), p < n, into `line`'s front. For k below n, one pass keeps
/// the k best seen in a max-heap whose top (the worst kept) is the bar a
/// later pair must pass: its place is larger than every kept one's, so only
/// a smaller key passes. Sorting all would cost n log n; this costs n
/// compares of a key with the bar, and only the k kept are stored.
template <typename K, typename KeyAt>
void firstInOrder(std::vector<Entry<K>> &line, int64_t n, int64_t k, KeyAt keyAt) {
  if (k >= n) {
    for (int64_t p = 0; p < n; ++p)
      line[p] = {keyAt(p), int32_t(p)};
    std::sort(line.begin(), line.begin() + n);
    return;
  }
  if (k == 0)
    return;
  for (int64_t p = 0; p < k; ++p)
    line[p] = {keyAt(p), int32_t(p)};
  std::make_heap(line.begin(), line.begin() + k);
  K bar = line.front().key;
  auto consider = [&](int64_t p) {
    K key = keyAt(p);
    if (!(key < bar))
      return;
    std::pop_heap(line.begin(), line.begin() + k);
    line[k - 1] = {key, int32_t(p)};
    std::push_heap(line.begin(), line.begin() + k);
    bar = line.front().key;
  };
  // Blocks whose smallest key does not pass the bar are skipped whole (the
  // minimum vectorizes); once the bar is tight, that is nearly every block.
  constexpr int64_t kBlock = 32;
  int64_t p = k;
  for (; p + kBlock <= n; p += kBlock) {
    K smallest = keyAt(p);
    for (int64_t j = 1; j < kBlock; ++j)
      smallest = std::min(smallest, keyAt(p + j));
    if (smallest < bar)
      for (int64_t j = 0; j < kBlock; ++j)
        consider(p + j);
  }
  for (; p < n; ++p)
    consider(p);
  std::sort_heap(line.begin(), line.begin() + k);
}

/// Orders every line of `keys` ([outer, n, inner]): the places are the
/// positions of `order` (null: the positions 0..n-1 themselves), the first
/// k (`sorted`'s length) written as positions into `sorted`.
template <typename K>
void sortPositions(KilnMemRef3<K> *keys, KilnMemRef3<int32_t> *order,
                   KilnMemRef3<int32_t> *sorted) {
  int64_t outer = keys->sizes[0], n = keys->sizes[1], inner = keys->sizes[2];
  int64_t k = sorted->sizes[1], keyStride = keys->strides[1];
  const K *key = keys->aligned + keys->offset;
  int32_t *to = sorted->aligned + sorted->offset;
  std::vector<Entry<K>> line(n);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      const K *keyLine = key + o * keys->strides[0] + i * keys->strides[2];
      const int32_t *fromLine =
          order ? order->aligned + order->offset + o * order->strides[0] + i * order->strides[2]
                : nullptr;
      int64_t fromStride = order ? order->strides[1] : 0;
      if (fromLine)
        firstInOrder(line, n, k,
                     [&](int64_t p) { return keyLine[fromLine[p * fromStride] * keyStride]; });
      else if (keyStride == 1)
        firstInOrder(line, n, k, [&](int64_t p) { return keyLine[p]; });
      else
        firstInOrder(line, n, k, [&](int64_t p) { return keyLine[p * keyStride]; });
      int32_t *toLine = to + o * sorted->strides[0] + i * sorted->strides[2];
      for (int64_t r = 0; r < k; ++r)
        toLine[r * sorted->strides[1]] =
            fromLine ? fromLine[line[r].place * fromStride] : line[r].place;
    }
}

} // namespace

void _mlir_ciface_kiln_rt_sort_positions_i32(KilnMemRef3<int32_t> *keys,
                                             KilnMemRef3<int32_t> *sorted) {
  sortPositions<int32_t>(keys, nullptr, sorted);
}
void _mlir_ciface_kiln_rt_sort_positions_i64(KilnMemRef3<int64_t> *keys,
                                             KilnMemRef3<int32_t> *sorted) {
  sortPositions<int64_t>(keys, nullptr, sorted);
}
void _mlir_ciface_kiln_rt_sort_order_i32(KilnMemRef3<int32_t> *keys, KilnMemRef3<int32_t> *order,
                                         KilnMemRef3<int32_t> *sorted) {
  sortPositions<int32_t>(keys, order, sorted);
}
void _mlir_ciface_kiln_rt_sort_order_i64(KilnMemRef3<int64_t> *keys, KilnMemRef3<int32_t> *order,
                                         KilnMemRef3<int32_t> *sorted) {
  sortPositions<int64_t>(keys, order, sorted);
}
