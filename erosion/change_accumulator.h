#pragma once
// One thread's share of the height changes of a call's droplets, in fixed point.
//
// Integer addition is associative, so the sum over threads of these arrays does not depend on
// which thread ran which droplet: this is what makes erosion bit-identical for any thread count
// (see README, "Determinism"). Internal to erosion/.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace erosion {

class ChangeAccumulator {
 public:
  // Quanta per normalised height unit (one mean edge length of height, see droplet.h).
  // 2^44 resolves 6e-14 edge lengths and holds +-5e5 edge lengths of change.
  static constexpr double kScale = 17592186044416.0;  // 2^44
  // Changes are tracked by blocks of 2^kBlockShift consecutive vertices: marking a block is one
  // byte store, and publishing a block is a short contiguous sweep.
  static constexpr int kBlockShift = 5;
  static constexpr size_t kBlock = size_t(1) << kBlockShift;

  explicit ChangeAccumulator(size_t vertex_count)
      : sum_(vertex_count, 0), dirty_((vertex_count >> kBlockShift) + 1, 0) {}

  // A droplet's handle on the buffer: raw pointers in registers, so the hot loop reloads
  // nothing after each store.
  class Writer {
   public:
    explicit Writer(ChangeAccumulator& a) : sum_(a.sum_.data()), dirty_(a.dirty_.data()) {}
    // Adds dh (normalised height) to vertex v.
    void add(uint32_t v, float dh) {
      sum_[v] += int64_t(dh * float(kScale));
      dirty_[v >> kBlockShift] = 1;
    }

    void prefetch(uint32_t v) const { __builtin_prefetch(&sum_[v], 1); }

   private:
    int64_t* sum_;
    uint8_t* dirty_;
  };

  // Fixed-point total of this thread for vertex v since the call began.
  int64_t sum(uint32_t v) const { return sum_[v]; }
  void clearSum(uint32_t v) { sum_[v] = 0; }
  // Blocks changed since the last clearDirty (one byte each, 1 = changed).
  const std::vector<uint8_t>& dirty() const { return dirty_; }
  void clearDirty() { std::fill(dirty_.begin(), dirty_.end(), uint8_t(0)); }

  size_t memoryBytes() const { return sum_.capacity() * sizeof(int64_t) + dirty_.capacity(); }

 private:
  std::vector<int64_t> sum_;
  std::vector<uint8_t> dirty_;
};

}  // namespace erosion
