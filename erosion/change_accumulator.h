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

#include "erosion/large_array.h"

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

  explicit ChangeAccumulator(size_t vertex_count) {
    assignLarge(sum_, vertex_count, int64_t(0));
    dirty_.assign((vertex_count >> kBlockShift) + 1, 0);
  }

  // A droplet's handle on the buffer: raw pointers, kept in registers by copying the handle
  // into the hot loop (byte stores could alias its fields otherwise).
  class Writer {
   public:
    explicit Writer(ChangeAccumulator& a) : sum_(a.sum_.data()), dirty_(a.dirty_.data()) {}
    // Adds dh (normalised height) to vertex v, rounded to the nearest quantum (truncation would
    // lose up to a quantum per add, always toward zero, and bias the volume balance).
    void add(uint32_t v, float dh) {
      const float q = dh * float(kScale);
      sum_[v] += int64_t(q + (q >= 0.0f ? 0.5f : -0.5f));
      dirty_[v >> kBlockShift] = 1;
    }

   private:
    int64_t* sum_;
    uint8_t* dirty_;
  };

  // Fixed-point total of this thread for vertex v since the call began.
  int64_t sum(uint32_t v) const { return sum_[v]; }
  void clear(uint32_t v) { sum_[v] = 0; }
  // Whether a block of vertices changed since the last call, which clears it.
  uint8_t takeDirty(size_t block) {
    const uint8_t d = dirty_[block];
    dirty_[block] = 0;
    return d;
  }

  size_t memoryBytes() const { return sum_.capacity() * sizeof(int64_t) + dirty_.capacity(); }

 private:
  std::vector<int64_t> sum_;
  std::vector<uint8_t> dirty_;
};

}  // namespace erosion
