#pragma once
// One eroded window: what a window keeps of its erosion, over the disk where its partition-of-
// unity weight is not zero, in its own chart.

#include <cstdint>
#include <vector>

#include "erosion/lattice_patch.h"

namespace tiles::detail {

// The chart offsets (x, y) where a window's bump is not zero: x^2 + x y + y^2 < R^2 (squared
// steps times 1 / R^2 below 1, the bump's own test), row by row. The same for every window of a
// model; a window keeps its values there only (a third less than its core's square: 43.8 k
// points against 66 k at a core of 128 steps).
class WindowDisk {
 public:
  WindowDisk() = default;
  // inv_r2: 1 / R^2, R the bump's radius in lattice steps.
  explicit WindowDisk(double inv_r2);

  // Whether the bump is not zero at (x, y), and its position in a window's arrays.
  static bool holds(double inv_r2, int64_t x, int64_t y) {
    return erosion::latticeSquaredLength(double(x), double(y)) * inv_r2 < 1.0;
  }
  size_t index(int64_t x, int64_t y) const {
    const size_t row = size_t(y + reach_);
    return start_[row] + size_t(x - low_[row]);
  }
  size_t size() const { return size_; }
  int64_t reach() const { return reach_; }
  // Row y's offsets: x from low(y) to high(y).
  int64_t low(int64_t y) const { return low_[size_t(y + reach_)]; }
  int64_t high(int64_t y) const { return high_[size_t(y + reach_)]; }

 private:
  int64_t reach_ = 0;
  std::vector<int64_t> low_, high_;
  std::vector<size_t> start_;
  size_t size_ = 0;
};

struct WindowResult {
  // Per offset of the window's disk (WindowDisk::index), the window's values at its level: the
  // change of the surface by erosion at this level and every coarser one (the eroded height
  // minus the surface before any erosion), the rain-weighted drainage area, the depths worn and
  // laid down at this level and coarser, and water (0 or 1).
  std::vector<float> change_m, flow_m2, wear_m, deposition_m;
  std::vector<uint8_t> water;
  uint64_t droplet_steps = 0;

  size_t bytes() const {
    return sizeof(*this) + change_m.size() * (4 * sizeof(float) + sizeof(uint8_t));
  }
};

}  // namespace tiles::detail
