#pragma once
// One eroded window: what a window keeps of its erosion, over its core (the points where its
// partition-of-unity weight is not zero), in its own chart.

#include <cstdint>
#include <vector>

#include "tiles/detail/window_chart.h"

namespace tiles::detail {

struct WindowResult {
  WindowResult(uint64_t frequency, const LatticePoint& centre, uint32_t core)
      : chart(frequency, centre, core), core(core) {}

  WindowChart chart;
  uint32_t core = 0;
  // Per chart offset (x, y) of the core (|x|, |y|, |x + y| <= core; index()), the window's
  // values at its level: the change of the surface by erosion at this level and every coarser
  // one (the eroded height minus the surface before any erosion), the rain-weighted drainage
  // area, the depths worn and laid down at this level and coarser, and water (0 or 1).
  std::vector<float> change_m, flow_m2, wear_m, deposition_m;
  std::vector<uint8_t> water;
  uint64_t droplet_steps = 0;

  size_t width() const { return 2 * size_t(core) + 1; }
  size_t index(int64_t x, int64_t y) const {
    return size_t(y + int64_t(core)) * width() + size_t(x + int64_t(core));
  }
  size_t bytes() const {
    return sizeof(*this) + change_m.size() * (4 * sizeof(float) + sizeof(uint8_t));
  }
};

}  // namespace tiles::detail
