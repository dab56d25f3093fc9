#pragma once
// The vertices one droplet has been nearest to, for the trap test of DropletRun::stepLand: one
// set per droplet in flight (runDroplets), never cleared.
//
// A droplet's first kRecent vertices go to a short list that a few vector compares search: at
// the default max_lifetime of 30 that is all of them, and the lists of a worker's droplets in
// flight stay in its L1 cache. A longer life (max_lifetime up to 1000 through the config) spills
// the rest into a small open-addressing table whose entries carry the stamp of the droplet that
// wrote them, so starting a droplet is one increment. Internal to erosion/.

#include <array>
#include <cstdint>

#include "erosion/detail/simd.h"
#if PLANETGEN_SSE2
#include <emmintrin.h>
#endif

namespace erosion {

class VisitedSet {
 public:
  // A droplet lives at most 1000 steps by the config's max_lifetime limit: the table is at most
  // a quarter full. Past half full (a longer life through the API) it stops remembering.
  static constexpr uint32_t kSize = 4096;
  // Vertices kept in the short list (a multiple of four).
  static constexpr uint32_t kRecent = 64;

  void begin() {
    count_ = 0;
    if (++stamp_ == 0) {  // wrapped: forget every old entry
      entries_.fill(Entry{});
      stamp_ = 1;
    }
  }

  // Whether v was inserted since begin().
  bool contains(uint32_t v) const {
    const uint32_t listed = count_ < kRecent ? count_ : kRecent;
#if PLANETGEN_SSE2
    const __m128i key = _mm_set1_epi32(int(v));
    for (uint32_t i = 0; i < listed; i += 4) {
      const __m128i four = _mm_load_si128(reinterpret_cast<const __m128i*>(recent_.data() + i));
      const int hits = _mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(four, key)));
      // Lanes past `listed` hold vertices of an earlier droplet.
      const uint32_t valid = listed - i >= 4 ? 4 : listed - i;
      if (hits & ((1 << valid) - 1)) return true;
    }
#else
    for (uint32_t i = 0; i < listed; ++i)
      if (recent_[i] == v) return true;
#endif
    return count_ > kRecent && tableContains(v);
  }

  // A vertex already in the set may take a second place (contains() is the same); the one
  // repeat the trap test makes, the vertex inserted last, is skipped.
  void insert(uint32_t v) {
    if (count_ > 0 && v == last_) return;
    last_ = v;
    if (count_ < kRecent) {
      recent_[count_++] = v;
      return;
    }
    if (count_ >= kSize / 2) return;
    for (uint32_t i = slotOf(v);; i = (i + 1) & (kSize - 1)) {
      Entry& e = entries_[i];
      if (e.stamp != stamp_) {
        e = Entry{v, stamp_};
        ++count_;
        return;
      }
      if (e.vertex == v) return;
    }
  }

 private:
  struct Entry {
    uint32_t vertex = 0;
    uint32_t stamp = 0;
  };
  static uint32_t slotOf(uint32_t v) {
    return (v * 2654435761u) >> 20;
  }  // top 12 bits

  bool tableContains(uint32_t v) const {
    for (uint32_t i = slotOf(v);; i = (i + 1) & (kSize - 1)) {
      const Entry& e = entries_[i];
      if (e.stamp != stamp_) return false;
      if (e.vertex == v) return true;
    }
  }

  alignas(16) std::array<uint32_t, kRecent> recent_{};
  uint32_t count_ = 0;  // entries in the list and the table
  uint32_t last_ = 0;   // the vertex inserted last
  uint32_t stamp_ = 0;
  std::array<Entry, kSize> entries_{};
};

}  // namespace erosion
