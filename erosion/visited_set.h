#pragma once
// The vertices one droplet has been nearest to, for the trap test of DropletRun::stepLand: a
// small open-addressing set, one per droplet in flight (runDroplets), that is never cleared. Each
// entry carries the stamp of the droplet that wrote it, so starting a droplet is one increment.
// Internal to erosion/.

#include <array>
#include <cstdint>

namespace erosion {

class VisitedSet {
 public:
  // A droplet lives at most 1000 steps by the config's max_lifetime limit: at most a quarter
  // full. Past half full (a longer life through the API) it stops remembering.
  static constexpr uint32_t kSize = 4096;

  void begin() {
    count_ = 0;
    if (++stamp_ == 0) {  // wrapped: forget every old entry
      entries_.fill(Entry{});
      stamp_ = 1;
    }
  }

  // Whether v was inserted since begin().
  bool contains(uint32_t v) const {
    for (uint32_t i = slotOf(v);; i = (i + 1) & (kSize - 1)) {
      const Entry& e = entries_[i];
      if (e.stamp != stamp_) return false;
      if (e.vertex == v) return true;
    }
  }

  void insert(uint32_t v) {
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
  static uint32_t slotOf(uint32_t v) { return (v * 2654435761u) >> 20; }  // top 12 bits

  std::array<Entry, kSize> entries_{};
  uint32_t stamp_ = 0;
  uint32_t count_ = 0;
};

}  // namespace erosion
