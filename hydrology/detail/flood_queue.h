#pragma once
// Internal to hydrology/: the priority-flood's queue. Pops come lowest level first and, among
// equal levels, in the order pushed, which is the order of a min-heap on (level, push count).
// The flood only pushes levels at or above the last one popped (it visits levels in rising
// order), so this is a monotone queue: a radix heap (Ahuja, Mehlhorn, Orlin & Tarjan 1990) on
// the level's bits. Entries sit in 33 buckets by the highest bit in which their level's bits
// differ from the last level popped; bucket 0 holds that level itself and is taken in order.
// When it runs out, the lowest non-empty bucket is emptied into lower ones around its lowest
// level. Every bucket keeps its entries in the order pushed (a bucket below the one emptied is
// empty then, and pushes only append), so equal levels come out first pushed first. Each entry
// moves down at most 32 times, and in practice a few, where a binary heap sifts through log n
// levels of scattered memory at every push and pop.

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace hydrology::detail {

// A float's bits as an unsigned integer in the same order as the floats, equal for equal
// floats (-0 as +0). NaN has no place in that order (nor had it in the heap before this queue):
// not for NaN.
inline uint32_t orderedBits(float x) {
  const uint32_t bits = std::bit_cast<uint32_t>(x == 0.0f ? 0.0f : x);
  return bits & 0x80000000u ? ~bits : bits | 0x80000000u;
}

class FloodQueue {
 public:
  // level must not be below the last level popped (std::logic_error: such a push would come
  // out in the wrong place, and the flood's routing with it).
  void push(float level, uint32_t value) {
    const uint32_t key = orderedBits(level);
    if (key < last_) throw std::logic_error("FloodQueue: a level pushed below the last popped");
    buckets_[bucketOf(key)].push_back({key, value});
    ++size_;
  }
  bool empty() const { return size_ == 0; }
  // Removes the entry of the lowest level, the first pushed of that level, and returns its
  // value. The queue must not be empty.
  uint32_t pop() {
    assert(size_ > 0);
    std::vector<Entry>& now = buckets_[0];
    if (head_ == now.size()) {
      now.clear();
      head_ = 0;
      size_t b = 1;
      while (buckets_[b].empty()) ++b;
      std::vector<Entry>& from = buckets_[b];
      last_ = std::min_element(from.begin(), from.end(), [](const Entry& x, const Entry& y) {
                return x.key < y.key;
              })->key;
      for (const Entry& e : from) buckets_[bucketOf(e.key)].push_back(e);
      from.clear();  // keeps its capacity: freeing and growing it again costs more
    }
    --size_;
    return now[head_++].value;
  }

 private:
  struct Entry {
    uint32_t key;  // orderedBits of the level
    uint32_t value;
  };
  size_t bucketOf(uint32_t key) const { return size_t(std::bit_width(key ^ last_)); }

  std::array<std::vector<Entry>, 33> buckets_;
  size_t head_ = 0;  // the next entry of bucket 0 to pop
  uint32_t last_ = 0;
  size_t size_ = 0;
};

}  // namespace hydrology::detail
