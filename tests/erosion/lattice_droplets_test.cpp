// The tiles' droplet law on a lattice patch (erosion/lattice_droplets.h), in metric units: on a
// steep slope above a flat floor the droplets wear the slope and lay their load on the floor at
// its foot; what they wear does not grow with the lattice spacing; no droplet, no change.

#include <cmath>
#include <vector>

#include <catch2/catch.hpp>

#include "erosion/lattice_droplets.h"
#include "erosion/lattice_patch.h"

namespace {

// A rectangular patch (its outer ring kNone) of a slope of `slope` falling toward +x that
// ends in a flat floor at Cartesian x = foot_m: heights in metres.
struct SlopePatch {
  std::vector<erosion::PatchCell> cells;
  std::vector<float> height, droplets;
  std::vector<uint64_t> seed;
  erosion::LatticePatch patch;

  SlopePatch(uint32_t size, double spacing_m, double slope, double foot_m) {
    const size_t n = size_t(size) * size;
    cells.assign(n, erosion::PatchCell::kNone);
    height.assign(n, 0.0f), droplets.assign(n, 0.0f), seed.assign(n, 0);
    for (uint32_t b = 1; b + 1 < size; ++b) {
      for (uint32_t a = 1; a + 1 < size; ++a) {
        const size_t c = size_t(b) * size + a;
        const bool edge = a == 1 || b == 1 || a + 2 == size || b + 2 == size;
        cells[c] = edge ? erosion::PatchCell::kEdge : erosion::PatchCell::kInterior;
        const double x = (double(a) + 0.5 * double(b)) * spacing_m;
        height[c] = float(slope * std::max(0.0, foot_m - x));
        seed[c] = 0x9e3779b97f4a7c15ull * (c + 1);
      }
    }
    patch.width = size, patch.rows = size, patch.spacing_m = spacing_m;
    patch.cells = cells;
  }
  double x(size_t c) const {
    return (double(c % patch.width) + 0.5 * double(c / patch.width)) * patch.spacing_m;
  }
};

struct Worn {
  double slope_wear = 0.0, slope_laid = 0.0, floor_wear = 0.0, floor_laid = 0.0;
  erosion::LatticeDropletStats stats;
};

// Rains `per_point` droplets on the upper part of the slope (x below rain_to_m) and sums the
// depths worn and laid on the slope and on the floor's first 300 m, per point.
Worn rainOn(SlopePatch& s, double per_point, double rain_to_m, double foot_m) {
  for (size_t c = 0; c < s.cells.size(); ++c)
    s.droplets[c] = s.patch.holds(uint32_t(c)) && s.x(c) < rain_to_m ? float(per_point) : 0.0f;
  erosion::LatticeDropletInput in;
  in.patch = &s.patch;
  in.droplets = s.droplets;
  in.seed = s.seed;
  in.water_m = per_point > 0.0 ? 20.0 / per_point : 0.0;
  std::vector<float> eroded(s.cells.size(), 0.0f), deposited(s.cells.size(), 0.0f);
  Worn w;
  w.stats = erosion::erodeLatticeDroplets(in, {}, s.height, eroded, deposited);
  size_t on_slope = 0, on_floor = 0;
  for (size_t c = 0; c < s.cells.size(); ++c) {
    if (!s.patch.holds(uint32_t(c))) continue;
    const double x = s.x(c);
    if (x < foot_m - 3 * s.patch.spacing_m) {
      w.slope_wear += eroded[c], w.slope_laid += deposited[c], ++on_slope;
    } else if (x > foot_m && x < foot_m + 300.0) {
      w.floor_wear += eroded[c], w.floor_laid += deposited[c], ++on_floor;
    }
  }
  w.slope_wear /= double(on_slope), w.slope_laid /= double(on_slope);
  w.floor_wear /= double(on_floor), w.floor_laid /= double(on_floor);
  return w;
}

}  // namespace

TEST_CASE("lattice droplets: a steep wet slope is worn, the floor at its foot gets the load",
          "[erosion][lattice]") {
  // 30 m spacing, a slope of 0.5 (27 degrees) 1.5 km long, then a flat floor.
  SlopePatch s(96, 30.0, 0.5, 1500.0);
  const Worn w = rainOn(s, 0.5, 1400.0, 1500.0);
  INFO("slope: worn " << w.slope_wear << " m, laid " << w.slope_laid << " m; floor: worn "
                      << w.floor_wear << " m, laid " << w.floor_laid << " m");
  CHECK(w.stats.droplets > 1000);
  // The slope loses ground (net), the floor gains it, and the floor is barely worn.
  CHECK(w.slope_wear > 2.0 * w.slope_laid);
  CHECK(w.slope_wear > 0.05);
  CHECK(w.floor_laid > 2.0 * w.floor_wear);
  CHECK(w.floor_laid > 0.05);
  // Laid down inside the patch, never more than was taken.
  CHECK(w.stats.deposited_m3 <= w.stats.eroded_m3 * (1.0 + 1e-4));
}

TEST_CASE("lattice droplets: the depth worn does not grow with the spacing", "[erosion][lattice]") {
  // The same ground and rain at 30 m and 60 m spacing: the mean depth worn on the slope stays
  // within a factor of two (in spacing units, Lague's law, it doubles with the spacing).
  SlopePatch fine(96, 30.0, 0.5, 1500.0);
  SlopePatch coarse(48, 60.0, 0.5, 1500.0);
  const Worn a = rainOn(fine, 0.5, 1400.0, 1500.0);
  const Worn b = rainOn(coarse, 0.5, 1400.0, 1500.0);
  INFO("worn on the slope: " << a.slope_wear << " m at 30 m, " << b.slope_wear << " m at 60 m");
  CHECK(b.slope_wear < 2.0 * a.slope_wear);
  CHECK(a.slope_wear < 2.0 * b.slope_wear);
}

TEST_CASE("lattice droplets: no rain, no change", "[erosion][lattice]") {
  SlopePatch s(32, 30.0, 0.5, 600.0);
  const std::vector<float> before = s.height;
  const Worn w = rainOn(s, 0.0, 1e9, 600.0);
  CHECK(w.stats.droplets == 0);
  CHECK(s.height == before);
}

TEST_CASE("lattice droplets: a channel carries the load on instead of laying it on its floor",
          "[erosion][lattice]") {
  // The floor at the slope's foot as a channel (its flow at least channel_cells): what the
  // slope gives up no longer settles there; the slope is worn as before.
  auto run = [](double channel_cells) {
    SlopePatch s(64, 30.0, 0.5, 900.0);
    std::vector<float> flow(s.cells.size(), 1.0f);
    for (size_t c = 0; c < s.cells.size(); ++c) {
      if (s.x(c) > 900.0) flow[c] = 500.0f;
    }
    for (size_t c = 0; c < s.cells.size(); ++c)
      s.droplets[c] = s.patch.holds(uint32_t(c)) && s.x(c) < 600.0 ? 1.0f : 0.0f;
    erosion::LatticeDropletInput in;
    in.patch = &s.patch;
    in.droplets = s.droplets;
    in.seed = s.seed;
    in.flow_cells = flow;
    in.water_m = 20.0;
    erosion::LatticeDropletParams params;
    params.channel_cells = channel_cells;
    std::vector<float> eroded(s.cells.size(), 0.0f), deposited(s.cells.size(), 0.0f);
    erosion::erodeLatticeDroplets(in, params, s.height, eroded, deposited);
    double slope_wear = 0.0, floor_laid = 0.0;
    for (size_t c = 0; c < s.cells.size(); ++c) {
      if (!s.patch.holds(uint32_t(c))) continue;
      if (s.x(c) < 800.0) slope_wear += eroded[c];
      if (s.x(c) > 930.0) floor_laid += deposited[c];
    }
    return std::pair{slope_wear, floor_laid};
  };
  const auto [wear_plain, laid_plain] = run(0.0);
  const auto [wear_channel, laid_channel] = run(100.0);
  CHECK(laid_plain > 1.0);
  CHECK(laid_channel < 0.05 * laid_plain);
  CHECK(wear_channel == Approx(wear_plain).epsilon(0.05));
}

TEST_CASE("lattice droplets: droplets that cannot reach the kept disk do not run",
          "[erosion][lattice]") {
  // Rain everywhere on a slope falling toward +x; droplets run at most 5 steps (150 m at 30 m).
  // Kept: 4 steps around cell (12, 32), near the top. A droplet runs only while it can still
  // come within 4 + 1.5 (brush) + 1 steps of it, so it starts within 11.5 steps and wears
  // nothing beyond 11.5 + 5 + 1.5 = 18 steps from it; without the disk the ground there wears.
  const auto run = [](bool keep, std::vector<float>& height) {
    SlopePatch s(64, 30.0, 0.5, 1800.0);
    for (size_t c = 0; c < s.cells.size(); ++c) s.droplets[c] = s.patch.holds(uint32_t(c));
    erosion::LatticeDropletInput in;
    in.patch = &s.patch;
    in.droplets = s.droplets;
    in.seed = s.seed;
    in.water_m = 20.0;
    if (keep) in.keep_radius = 4.0, in.keep_x = 12.0, in.keep_y = 32.0;
    erosion::LatticeDropletParams params;
    params.max_length_m = 150.0;
    const std::vector<float> before = s.height;
    const erosion::LatticeDropletStats stats =
        erosion::erodeLatticeDroplets(in, params, s.height, {}, {});
    height.resize(s.height.size());
    for (size_t c = 0; c < s.height.size(); ++c) height[c] = s.height[c] - before[c];
    return stats;
  };
  std::vector<float> kept, all;
  const erosion::LatticeDropletStats with = run(true, kept);
  const erosion::LatticeDropletStats without = run(false, all);
  size_t far_changed_kept = 0, far_changed_all = 0, near_changed_kept = 0;
  for (size_t c = 0; c < kept.size(); ++c) {
    const double da = double(c % 64) - 12.0, db = double(c / 64) - 32.0;
    const double steps = std::sqrt(da * da + da * db + db * db);
    if (steps > 18.0) {
      far_changed_kept += kept[c] != 0.0f;
      far_changed_all += all[c] != 0.0f;
    } else if (steps <= 4.0) {
      near_changed_kept += kept[c] != 0.0f;
    }
  }
  INFO("steps " << with.steps << " kept, " << without.steps << " all");
  CHECK(far_changed_kept == 0);
  CHECK(far_changed_all > 100);
  CHECK(near_changed_kept > 10);
  CHECK(with.steps < without.steps / 4);
}
