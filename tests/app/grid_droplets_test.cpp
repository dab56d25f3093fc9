// The bench's yardstick eroder (app/grid_droplets.h): a droplet on an inclined plane walks
// straight down it one cell per step until the grid's edge or its last step; flat ground makes
// no step; the same seed gives the same bits.

#include <cstdint>
#include <vector>

#include <catch2/catch.hpp>

#include "app/grid_droplets.h"

namespace {

// A plane falling one unit per cell toward +x.
std::vector<float> plane(uint32_t size) {
  std::vector<float> h(size_t(size) * size);
  for (uint32_t y = 0; y < size; ++y)
    for (uint32_t x = 0; x < size; ++x) h[size_t(y) * size + x] = float(size - x);
  return h;
}

}  // namespace

TEST_CASE("grid droplets: on a plane each droplet walks straight down to the edge or its end",
          "[bench]") {
  // Without erosion or deposition the plane stays a plane, so a droplet starting at x0 steps
  // +x once per step while x0 + k < size - 1, at most 30 times: with x0 uniform on [0, 40),
  // steps = min(30, ceil(40 - x0) - 1), whose mean is (0 + 1 + ... + 30 + 9 x 30) / 40.
  constexpr uint32_t kSize = 41;
  std::vector<float> h = plane(kSize);
  const std::vector<float> before = h;
  app::GridDropletParams params;
  params.erode = 0.0f, params.deposit = 0.0f;
  constexpr uint64_t kDroplets = 20000;
  const app::GridDropletStats stats = app::erodeGridDroplets(h, kSize, kDroplets, 11, params);
  CHECK(h == before);
  CHECK(stats.droplets == kDroplets);
  const double expected = (30.0 * 31.0 / 2.0 + 9.0 * 30.0) / 40.0;  // 18.375
  // The mean of 20 000 draws of a spread of about 11 steps is within 0.08 at one sigma.
  CHECK(double(stats.steps) / double(kDroplets) == Approx(expected).margin(0.4));
}

TEST_CASE("grid droplets: flat ground makes no step and no change", "[bench]") {
  std::vector<float> h(32 * 32, 5.0f);
  const app::GridDropletStats stats = app::erodeGridDroplets(h, 32, 1000, 3, {});
  CHECK(stats.steps == 0);
  CHECK(h == std::vector<float>(32 * 32, 5.0f));
}

TEST_CASE("grid droplets: a plane is worn, and the same seed wears it the same way", "[bench]") {
  std::vector<float> a = plane(64), b = plane(64);
  const std::vector<float> before = a;
  app::erodeGridDroplets(a, 64, 5000, 7, {});
  app::erodeGridDroplets(b, 64, 5000, 7, {});
  CHECK(a == b);
  double change = 0.0;
  for (size_t c = 0; c < a.size(); ++c) change += double(a[c]) - double(before[c]);
  CHECK(change < 0.0);  // droplets carry material off the grid's low edge
}
