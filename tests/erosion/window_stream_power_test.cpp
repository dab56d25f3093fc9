// The steady state of stream power on a lattice patch (erosion/window_stream_power.h): a closed
// pit is cut through, not filled; every flow path falls with the slope S = k A^-theta of a
// steady-state channel (capped at the hillslopes' threshold); the mean height is the
// reference's.

#include <cmath>
#include <vector>

#include <catch2/catch.hpp>

#include "erosion/lattice_patch.h"
#include "erosion/window_stream_power.h"
#include "geodesy/hash.h"

namespace {

// A rectangular patch (its outer ring kNone, the next ring its edge: outlets) of a plane
// falling toward -x at `slope`, plus `noise_m` of hashed roughness per point.
struct PlanePatch {
  std::vector<erosion::PatchCell> cells;
  std::vector<float> height;
  std::vector<uint64_t> id;
  erosion::LatticePatch patch;

  PlanePatch(uint32_t size, double spacing_m, double slope, double noise_m) {
    const size_t n = size_t(size) * size;
    cells.assign(n, erosion::PatchCell::kNone);
    height.assign(n, 0.0f), id.assign(n, 0);
    for (uint32_t b = 1; b + 1 < size; ++b) {
      for (uint32_t a = 1; a + 1 < size; ++a) {
        const size_t c = size_t(b) * size + a;
        const bool edge = a == 1 || b == 1 || a + 2 == size || b + 2 == size;
        cells[c] = edge ? erosion::PatchCell::kEdge : erosion::PatchCell::kInterior;
        id[c] = 1000 + c;
        const double x = (double(a) + 0.5 * double(b)) * spacing_m;
        const double u = geodesy::unitFromHash(geodesy::hash3(7, 11, id[c]));
        height[c] = float(slope * x + noise_m * (u - 0.5));
      }
    }
    patch.width = size, patch.rows = size, patch.spacing_m = spacing_m;
    patch.cells = cells;
  }

  erosion::PatchFlow route(std::span<const float> h) const {
    erosion::PatchFlowInput in;
    in.patch = &patch;
    in.height_m = h;
    in.point_id = id;
    return erosion::routePatch(in);
  }

  double mean(std::span<const float> h) const {
    double sum = 0.0;
    size_t count = 0;
    for (size_t c = 0; c < cells.size(); ++c) {
      if (patch.holds(uint32_t(c))) sum += h[c], ++count;
    }
    return sum / double(count);
  }
};

}  // namespace

TEST_CASE("steady state: a closed pit is cut through along the routing, not filled",
          "[erosion][window]") {
  PlanePatch s(24, 30.0, 0.1, 0.0);
  // A pit 20 m deep at the middle, closed on every side.
  const size_t pit = size_t(12) * 24 + 12;
  s.height[pit] -= 20.0f;
  const std::vector<float> reference = s.height;
  const erosion::PatchFlow flow = s.route(s.height);
  // The priority flood fills the pit: its receiver is higher than it.
  REQUIRE(s.height[flow.receiver[pit]] > s.height[pit]);
  for (const erosion::SteadyStateMode mode :
       {erosion::SteadyStateMode::kCarve, erosion::SteadyStateMode::kLay}) {
    erosion::SteadyStateParams params;
    params.mode = mode;
    std::vector<float> h = s.height;
    const double k = erosion::steadyState(s.patch, flow, params, reference, h);
    CHECK(k > 0.0);
    // Every point now stands above its receiver, the pit's bottom among them.
    for (const uint32_t c : flow.order) {
      if (!flow.outlet[c]) CHECK(h[c] > h[flow.receiver[c]]);
    }
    // Routed again, no point needs filling: each drains by steepest descent to a lower neighbour.
    const erosion::PatchFlow again = s.route(h);
    for (const uint32_t c : again.order) {
      if (!again.outlet[c]) CHECK(h[again.receiver[c]] < h[c]);
    }
    CHECK(s.mean(h) == Approx(s.mean(reference)).margin(1e-3));
  }
}

TEST_CASE("steady state: every flow path falls at S = k A^-theta, the mean height kept",
          "[erosion][window]") {
  for (const double theta : {0.5, 0.4}) {
    PlanePatch s(48, 30.0, 0.05, 20.0);
    const std::vector<float> reference = s.height;
    const erosion::PatchFlow flow = s.route(s.height);
    erosion::SteadyStateParams params;
    params.mode = erosion::SteadyStateMode::kLay;
    params.concavity = theta;
    params.max_slope = 0.8;
    std::vector<float> h = s.height;
    const double k = erosion::steadyState(s.patch, flow, params, reference, h);
    REQUIRE(k > 0.0);
    const double cell = erosion::cellAreaM2(s.patch);
    // Along every path: the steady-state channel slope, or the threshold slope where that
    // would be steeper. Least squares of log S on log A over the points below the threshold.
    double sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0;
    size_t count = 0, capped = 0;
    for (const uint32_t c : flow.order) {
      if (flow.outlet[c]) continue;
      const double a = double(flow.area_m2[c]) / cell;
      const double slope = (double(h[c]) - double(h[flow.receiver[c]])) / s.patch.spacing_m;
      const double expected = std::min(k * std::pow(a, -theta), params.max_slope);
      CHECK(slope == Approx(expected).epsilon(2e-3).margin(2e-4));
      if (expected >= params.max_slope) {
        ++capped;
        continue;
      }
      const double x = std::log10(a), y = std::log10(slope);
      sx += x, sy += y, sxx += x * x, sxy += x * y, syy += y * y, ++count;
    }
    REQUIRE(count > 100);
    const double n = double(count);
    const double cov = sxy - sx * sy / n, vx = sxx - sx * sx / n, vy = syy - sy * sy / n;
    CHECK(-cov / vx == Approx(theta).margin(0.01));
    CHECK(cov * cov / (vx * vy) > 0.99);
    CHECK(s.mean(h) == Approx(s.mean(reference)).margin(1e-3));
    INFO("capped " << capped);
  }
}

TEST_CASE("steady state: carved channels fall at S = k_s A^-theta where the ground was steeper",
          "[erosion][window]") {
  PlanePatch s(48, 30.0, 0.3, 10.0);
  const std::vector<float> reference = s.height;
  const erosion::PatchFlow flow = s.route(s.height);
  erosion::SteadyStateParams params;
  params.steepness_m = 10.0;
  std::vector<float> h = s.height;
  erosion::steadyState(s.patch, flow, params, reference, h);
  // The carve is h = min(h, h_r + S d) upstream from the outlets, then one constant for the
  // mean: slopes along the paths never exceed the steady state's, and down the channels
  // (30 cells or more: S_ss 0.07, the plane 0.3) they are exactly it.
  const double cell = erosion::cellAreaM2(s.patch);
  size_t channel = 0;
  for (const uint32_t c : flow.order) {
    if (flow.outlet[c] || flow.outlet[flow.receiver[c]]) continue;
    const double a = std::max(double(flow.area_m2[c]), cell);
    const double expected = std::min(10.0 / std::sqrt(a), params.max_slope);
    const double slope = (double(h[c]) - double(h[flow.receiver[c]])) / s.patch.spacing_m;
    CHECK(slope <= expected * (1 + 2e-3) + 2e-4);
    if (a >= 30.0 * cell) {
      CHECK(slope == Approx(expected).epsilon(2e-3).margin(2e-4));
      ++channel;
    }
  }
  CHECK(channel > 50);
  CHECK(s.mean(h) == Approx(s.mean(reference)).margin(1e-3));
}

TEST_CASE("steady state: laid on the routing, outlets keep their heights", "[erosion][window]") {
  PlanePatch s(20, 50.0, 0.2, 5.0);
  const std::vector<float> reference = s.height;
  const erosion::PatchFlow flow = s.route(s.height);
  std::vector<float> h = s.height;
  erosion::SteadyStateParams params;
  params.mode = erosion::SteadyStateMode::kLay;
  erosion::steadyState(s.patch, flow, params, reference, h);
  for (size_t c = 0; c < h.size(); ++c) {
    if (s.patch.holds(uint32_t(c)) && flow.outlet[c]) CHECK(h[c] == reference[c]);
  }
}

TEST_CASE("steady state: a bounded carve hangs each point from its own path's next N points",
          "[erosion][window]") {
  PlanePatch s(48, 30.0, 0.3, 10.0);
  const std::vector<float> ground = s.height;
  const erosion::PatchFlow flow = s.route(s.height);
  erosion::SteadyStateParams params;
  params.steepness_m = 10.0;
  params.reach_steps = 6;
  std::vector<float> h = s.height;
  erosion::steadyState(s.patch, flow, params, ground, h);
  // By hand, per point: the least of its ground height and, for k = 1..6 steps down its path,
  // the ground there plus the steady state's falls on the way; then one constant for the mean.
  const double cell = erosion::cellAreaM2(s.patch);
  auto fall = [&](uint32_t c) {
    const double a = std::max(double(flow.area_m2[c]), cell);
    return std::min(10.0 / std::sqrt(a), params.max_slope) * s.patch.spacing_m;
  };
  std::vector<double> expected(ground.size(), 0.0);
  double before = 0.0, after = 0.0, deepest = 0.0;
  for (const uint32_t c : flow.order) {
    double best = ground[c], drop = 0.0;
    uint32_t q = c;
    for (int k = 0; k < 6 && !flow.outlet[q] && flow.receiver[q] != q; ++k) {
      drop += fall(q);
      q = flow.receiver[q];
      best = std::min(best, double(ground[q]) + drop);
    }
    expected[c] = best;
    before += ground[c], after += best;
    deepest = std::max(deepest, double(ground[c]) - best);
  }
  const double offset = (before - after) / double(flow.order.size());
  for (const uint32_t c : flow.order) CHECK(h[c] == Approx(expected[c] + offset).margin(1e-3));
  // Cut, and no deeper than six steps of the plane's fall (and its roughness) can give.
  CHECK(deepest > 5.0);
  CHECK(deepest < 6 * 0.3 * 30.0 * 1.5 + 10.0);
  CHECK(s.mean(h) == Approx(s.mean(ground)).margin(1e-3));
}

TEST_CASE("steady state: hung hillslopes fall at k_s A^-theta to channels that keep the ground",
          "[erosion][window]") {
  // A smooth plane (its finest relief is 0): every point that drains less than 20 cells falls
  // to its receiver by exactly the steady state's min(k_s A^-theta, max_slope) * spacing;
  // channels (20 cells or more) and outlets keep the plane, all moved by one constant that
  // keeps the mean.
  PlanePatch s(48, 30.0, 0.05, 0.0);
  const std::vector<float> ground = s.height;
  const erosion::PatchFlow flow = s.route(s.height);
  erosion::SteadyStateParams params;
  params.mode = erosion::SteadyStateMode::kHang;
  params.steepness_m = 30.0;
  params.channel_cells = 20.0;
  std::vector<float> h = s.height;
  erosion::steadyState(s.patch, flow, params, ground, h);
  const double cell = erosion::cellAreaM2(s.patch);
  double offset = 0.0;
  bool first = true;
  size_t hung = 0, channels = 0;
  for (const uint32_t c : flow.order) {
    const double a = std::max(double(flow.area_m2[c]), cell);
    if (flow.outlet[c] || a >= 20.0 * cell) {
      if (first) offset = double(h[c]) - double(ground[c]), first = false;
      CHECK(double(h[c]) - double(ground[c]) == Approx(offset).margin(1e-3));
      ++channels;
      continue;
    }
    const double expected = std::min(30.0 / std::sqrt(a), params.max_slope) * s.patch.spacing_m;
    CHECK(double(h[c]) - double(h[flow.receiver[c]]) == Approx(expected).margin(1e-3));
    ++hung;
  }
  CHECK(hung > 500);
  CHECK(channels > 50);
  // Hillslopes rise above the plane (the steady state is steeper there), so the constant
  // lowers the channels.
  CHECK(offset < -1.0);
  CHECK(s.mean(h) == Approx(s.mean(ground)).margin(1e-3));
}

TEST_CASE("stream power: keep_mean lifts the incised patch back to its mean height",
          "[erosion][window]") {
  PlanePatch s(48, 30.0, 0.3, 10.0);
  const erosion::PatchFlow flow = s.route(s.height);
  erosion::StreamPowerParams params;
  params.incision = 1.0;
  params.max_factor = 1000.0;
  std::vector<float> lowered = s.height, kept = s.height;
  erosion::incise(s.patch, flow, params, lowered);
  params.keep_mean = true;
  erosion::incise(s.patch, flow, params, kept);
  // The same incision, shifted by one constant that restores the mean.
  CHECK(s.mean(lowered) < s.mean(s.height) - 1.0);
  CHECK(s.mean(kept) == Approx(s.mean(s.height)).margin(1e-3));
  const double lift = s.mean(s.height) - s.mean(lowered);
  for (const uint32_t c : flow.order) CHECK(kept[c] - lowered[c] == Approx(lift).margin(1e-3));
}

TEST_CASE("spread drainage: conserves the points' areas, and a steep exponent is the routing's",
          "[erosion][window]") {
  // Outlets (the patch's edge) are the only anchors: every point's own area (a cell each, no
  // rain given) ends in them.
  auto anchors = [](const PlanePatch& s, const erosion::PatchFlow& flow) {
    std::vector<uint8_t> anchor(s.cells.size(), 1);
    for (const uint32_t c : flow.order) anchor[c] = flow.outlet[c];
    return anchor;
  };
  const PlanePatch rough(40, 30.0, 0.05, 2.0);
  const erosion::PatchFlow rough_flow = rough.route(rough.height);
  const std::vector<uint8_t> rough_anchor = anchors(rough, rough_flow);
  const std::vector<double> area =
      erosion::spreadDrainage(rough.patch, rough_flow, rough.height, rough_anchor, 1.1);
  const double cell = erosion::cellAreaM2(rough.patch);
  double into_outlets = 0.0;
  size_t spread_out = 0;  // points whose area differs from the routing's
  for (const uint32_t c : rough_flow.order) {
    CHECK(area[c] >= cell * (1.0 - 1e-6));  // the routing's areas are floats
    if (rough_flow.outlet[c]) into_outlets += area[c];
    if (std::abs(area[c] - double(rough_flow.area_m2[c])) > 1e-3 * cell) ++spread_out;
  }
  CHECK(into_outlets == Approx(double(rough_flow.order.size()) * cell).epsilon(1e-6));
  CHECK(spread_out > rough_flow.order.size() / 4);
  // On a plane every point's steepest neighbour is the next one down the plane (a drop twice
  // the other two lower neighbours'), which the routing takes whatever its jitter; with an
  // exponent of 60 (shares 1 : 2^-60 : 2^-60) the spread is the routing's area.
  const PlanePatch plane(40, 30.0, 0.05, 0.0);
  const erosion::PatchFlow plane_flow = plane.route(plane.height);
  const std::vector<double> steep = erosion::spreadDrainage(plane.patch, plane_flow, plane.height,
                                                            anchors(plane, plane_flow), 60.0);
  for (const uint32_t c : plane_flow.order)
    CHECK(steep[c] == Approx(double(plane_flow.area_m2[c])).epsilon(1e-6));
}
