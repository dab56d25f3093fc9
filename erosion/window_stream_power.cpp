#include "erosion/window_stream_power.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <queue>

#include "geodesy/hash.h"

namespace erosion {
namespace {

// Stream of the receivers' perturbation in geodesy::hash3(seed ^ stream, point, neighbour).
constexpr uint64_t kJitterStream = 0x7061746368726376ull;  // "patchrcv"

struct FloodEntry {
  float level;
  uint64_t id;
  uint32_t cell;
};
struct Later {
  bool operator()(const FloodEntry& a, const FloodEntry& b) const {
    if (a.level != b.level) return a.level > b.level;
    return a.id > b.id;
  }
};

// Copies take their owners' values.
void syncCopies(const LatticePatch& patch, std::span<float> values) {
  for (const CellCopy& copy : patch.copies) values[copy.cell] = values[copy.owner];
}

}  // namespace

PatchFlow routePatch(const PatchFlowInput& input) {
  const LatticePatch& patch = *input.patch;
  const size_t n = patch.size();
  assert(input.height_m.size() == n && input.point_id.size() == n);
  const PatchNeighbours neighbours(patch);
  const std::span<const float> h = input.height_m;

  PatchFlow flow;
  flow.receiver.resize(n);
  for (uint32_t c = 0; c < n; ++c) flow.receiver[c] = c;
  flow.outlet.assign(n, 0);
  flow.area_m2.assign(n, 0.0f);
  std::vector<float> water(n, 0.0f);
  std::vector<uint32_t> parent(n, UINT32_MAX);
  std::vector<uint8_t> seen(n, 0);

  // Priority-flood from every outlet.
  std::priority_queue<FloodEntry, std::vector<FloodEntry>, Later> queue;
  size_t points = 0;
  for (uint32_t c = 0; c < n; ++c) {
    if (!patch.holds(c)) continue;
    ++points;
    const bool base = !input.base_level.empty() && input.base_level[c];
    if (patch.cells[c] == PatchCell::kEdge || base) {
      flow.outlet[c] = 1;
      seen[c] = 1;
      water[c] = h[c];
      queue.push({h[c], input.point_id[c], c});
    }
  }
  flow.order.reserve(points);
  while (!queue.empty()) {
    const FloodEntry top = queue.top();
    queue.pop();
    flow.order.push_back(top.cell);
    neighbours.forEach(top.cell, [&](uint32_t m) {
      if (seen[m]) return;
      seen[m] = 1;
      water[m] = std::max(h[m], top.level);
      parent[m] = top.cell;
      queue.push({water[m], input.point_id[m], m});
    });
  }
  // A patch with no outlet (never made by tiles) drains nowhere; its points keep themselves as
  // receivers and stay out of the order.

  // Receivers: steepest descent to a lower water level, perturbed per (point, neighbour); the
  // flood's path inside a depression or on a flat.
  const double jitter = input.receiver_jitter;
  for (const uint32_t c : flow.order) {
    if (flow.outlet[c]) continue;
    uint32_t best = UINT32_MAX;
    double best_slope = 0.0;
    uint64_t best_id = 0;
    if (!(water[c] > h[c])) {
      const uint64_t id = input.point_id[c];
      neighbours.forEach(c, [&](uint32_t m) {
        if (!(water[m] < water[c])) return;
        const double u = geodesy::unitFromHash(
            geodesy::hash3(input.seed ^ kJitterStream, id, input.point_id[m]));
        const double slope = (double(water[c]) - double(water[m])) * (1.0 - jitter * u);
        const uint64_t mid = input.point_id[m];
        if (best == UINT32_MAX || slope > best_slope || (slope == best_slope && mid < best_id)) {
          best = m, best_slope = slope, best_id = mid;
        }
      });
    }
    flow.receiver[c] = best != UINT32_MAX ? best : parent[c];
  }

  // Drainage: each point's own rain-weighted area, then downstream.
  const double cell_area = cellAreaM2(patch);
  std::vector<double> area(n, 0.0);
  for (const uint32_t c : flow.order) {
    area[c] = cell_area * (input.rain.empty() ? 1.0 : double(input.rain[c]));
  }
  for (size_t k = flow.order.size(); k-- > 0;) {
    const uint32_t c = flow.order[k];
    if (!flow.outlet[c]) area[flow.receiver[c]] += area[c];
  }
  for (uint32_t c = 0; c < n; ++c) flow.area_m2[c] = float(area[c]);
  syncCopies(patch, flow.area_m2);
  return flow;
}

void incise(const LatticePatch& patch, const PatchFlow& flow, const StreamPowerParams& params,
            std::span<float> height_m) {
  const double inv_cell = 1.0 / cellAreaM2(patch);
  const bool root = params.area_exponent == 0.5;
  double lowered = 0.0;
  for (const uint32_t c : flow.order) {
    if (flow.outlet[c]) continue;
    const double hr = height_m[flow.receiver[c]];
    const double hc = height_m[c];
    if (!(hc > hr)) continue;
    const double cells = double(flow.area_m2[c]) * inv_cell;
    const double power = root ? std::sqrt(cells) : std::pow(cells, params.area_exponent);
    const double f = std::min(params.incision * power, params.max_factor);
    // Braun & Willett 2013, eq. 21 with n = 1: the new height from the receiver's new height.
    height_m[c] = float((hc + f * hr) / (1.0 + f));
    lowered += hc - double(height_m[c]);
  }
  if (params.keep_mean && !flow.order.empty()) {
    const float lift = float(lowered / double(flow.order.size()));
    for (const uint32_t c : flow.order) height_m[c] += lift;
  }
  syncCopies(patch, height_m);
}

std::vector<double> spreadDrainage(const LatticePatch& patch, const PatchFlow& flow,
                                   std::span<const float> height_m, std::span<const uint8_t> anchor,
                                   double exponent) {
  const size_t n = height_m.size();
  const size_t m = flow.order.size();
  std::vector<double> area(n, 0.0), level(n, 0.0);
  std::vector<uint32_t> position(n, UINT32_MAX);
  for (size_t k = 0; k < m; ++k) {
    const uint32_t c = flow.order[k], r = flow.receiver[c];
    position[c] = uint32_t(k);
    area[c] += double(flow.area_m2[c]);
    const bool root = flow.outlet[c] || r == c;
    if (!root) area[r] -= double(flow.area_m2[c]);
    level[c] = root ? double(height_m[c]) : std::max(double(height_m[c]), level[r]);
  }
  for (const uint32_t c : flow.order) area[c] = std::max(area[c], 0.0);
  std::vector<uint32_t> sequence(flow.order.begin(), flow.order.end());
  std::sort(sequence.begin(), sequence.end(), [&](uint32_t a, uint32_t b) {
    if (level[a] != level[b]) return level[a] > level[b];
    return position[a] > position[b];
  });
  const PatchNeighbours neighbours(patch);
  std::array<uint32_t, 6> to{};
  std::array<double, 6> weight{};
  for (const uint32_t c : sequence) {
    if (anchor[c]) continue;
    int count = 0;
    double total = 0.0;
    neighbours.forEach(c, [&](uint32_t q) {
      if (position[q] == UINT32_MAX) return;  // not a point (at most 6 neighbours come)
      const double drop = level[c] - level[q];
      if (drop > 0.0 || (drop == 0.0 && position[q] < position[c])) {
        to[size_t(count)] = q;
        weight[size_t(count)] = drop > 0.0 ? std::pow(drop / patch.spacing_m, exponent) : 0.0;
        total += weight[size_t(count)];
        ++count;
      }
    });
    if (total > 0.0) {
      for (int k = 0; k < count; ++k) area[to[size_t(k)]] += area[c] * weight[size_t(k)] / total;
    } else {
      area[flow.receiver[c]] += area[c];
    }
  }
  return area;
}

namespace {

// height_m = h moved by one constant so its mean over the routed points is reference_m's.
void keepMean(const LatticePatch& patch, const PatchFlow& flow, std::span<const float> reference_m,
              const std::vector<double>& h, std::span<float> height_m) {
  double before = 0.0, after = 0.0;
  size_t count = 0;
  for (const uint32_t c : flow.order) before += double(reference_m[c]), after += h[c], ++count;
  const double offset = count ? (before - after) / double(count) : 0.0;
  for (const uint32_t c : flow.order) height_m[c] = float(h[c] + offset);
  syncCopies(patch, height_m);
}

double carve(const LatticePatch& patch, const PatchFlow& flow, const SteadyStateParams& params,
             std::span<const float> reference_m, std::span<float> height_m) {
  const double spacing = patch.spacing_m;
  std::vector<double> h(height_m.begin(), height_m.end());
  const double cap = params.max_slope * spacing;
  auto fallOf = [&](uint32_t c) {
    const double a = std::max(double(flow.area_m2[c]), cellAreaM2(patch));
    const double s =
        params.steepness_m *
        (params.concavity == 0.5 ? 1.0 / std::sqrt(a) : std::pow(a, -params.concavity));
    return std::min(s * spacing, cap);
  };
  if (params.reach_steps > 0) {
    // Bounded reach: each point from the ground along its own path downstream only.
    std::vector<double> fall(height_m.size(), 0.0);
    for (const uint32_t c : flow.order) {
      if (!flow.outlet[c] && flow.receiver[c] != c) fall[c] = fallOf(c);
    }
    for (const uint32_t c : flow.order) {
      double best = double(height_m[c]), drop = 0.0;
      uint32_t q = c;
      for (int k = 0; k < params.reach_steps; ++k) {
        const uint32_t r = flow.receiver[q];
        if (flow.outlet[q] || r == q) break;
        drop += fall[q];
        q = r;
        best = std::min(best, double(height_m[q]) + drop);
      }
      h[c] = best;
    }
  } else {
    // Breach: upstream first, each receiver (not an outlet) at least min_slope below its donors.
    const double fall = params.min_slope * spacing;
    for (size_t k = flow.order.size(); k-- > 0;) {
      const uint32_t c = flow.order[k];
      const uint32_t r = flow.receiver[c];
      if (flow.outlet[c] || flow.outlet[r] || r == c) continue;
      h[r] = std::min(h[r], h[c] - fall);
    }
    // Carve: from the outlets upstream, no steeper than the steady state or the threshold.
    for (const uint32_t c : flow.order) {
      const uint32_t r = flow.receiver[c];
      if (flow.outlet[c] || r == c) continue;
      h[c] = std::min(h[c], h[r] + fallOf(c));
    }
  }
  keepMean(patch, flow, reference_m, h, height_m);
  return params.steepness_m;
}

double hang(const LatticePatch& patch, const PatchFlow& flow, const SteadyStateParams& params,
            std::span<const float> reference_m, std::span<float> height_m) {
  const size_t n = height_m.size();
  const double spacing = patch.spacing_m;
  const double cell = cellAreaM2(patch);
  const double channel_m2 = params.channel_cells * cell;
  const double cap = params.max_slope * spacing;
  // Per point: its fall to its receiver on the steady state, 0 for channels and outlets (they
  // keep the ground).
  std::vector<double> fall(n, 0.0);
  std::vector<uint8_t> anchor(n, 1);
  for (const uint32_t c : flow.order) {
    const uint32_t r = flow.receiver[c];
    if (flow.outlet[c] || r == c || std::max(double(flow.area_m2[c]), cell) >= channel_m2) continue;
    anchor[c] = 0;
  }
  std::vector<double> spread;
  if (params.spread_exponent > 0.0)
    spread = spreadDrainage(patch, flow, height_m, anchor, params.spread_exponent);
  for (const uint32_t c : flow.order) {
    if (anchor[c]) continue;
    const double a = std::max(spread.empty() ? double(flow.area_m2[c]) : spread[c], cell);
    const double s =
        params.steepness_m *
        (params.concavity == 0.5 ? 1.0 / std::sqrt(a) : std::pow(a, -params.concavity));
    fall[c] = std::min(s * spacing, cap);
  }
  // The ground's finest relief: its height over the mean of its ring (and itself).
  const PatchNeighbours neighbours(patch);
  std::vector<double> fine(n, 0.0);
  for (const uint32_t c : flow.order) {
    double sum = double(height_m[c]);
    int count = 1;
    neighbours.forEach(c, [&](uint32_t m) { sum += double(height_m[m]), ++count; });
    fine[c] = double(height_m[c]) - sum / double(count);
  }
  std::vector<double> hung(n, 0.0);
  if (params.reach_steps > 0) {
    for (const uint32_t c : flow.order) {
      double rise = 0.0;
      uint32_t q = c;
      for (int k = 0; k < params.reach_steps && !anchor[q]; ++k)
        rise += fall[q], q = flow.receiver[q];
      hung[c] = double(height_m[q]) + rise;
    }
  } else {
    // From the outlets upstream: a point's receiver is hung (or a channel) before the point.
    for (const uint32_t c : flow.order)
      hung[c] = anchor[c] ? double(height_m[c]) : hung[flow.receiver[c]] + fall[c];
  }
  for (const uint32_t c : flow.order) {
    if (!anchor[c]) hung[c] += fine[c];
  }
  keepMean(patch, flow, reference_m, hung, height_m);
  return params.steepness_m;
}

}  // namespace

double steadyState(const LatticePatch& patch, const PatchFlow& flow,
                   const SteadyStateParams& params, std::span<const float> reference_m,
                   std::span<float> height_m) {
  const size_t n = patch.size();
  assert(reference_m.size() == n && height_m.size() == n);
  if (params.mode == SteadyStateMode::kCarve)
    return carve(patch, flow, params, reference_m, height_m);
  if (params.mode == SteadyStateMode::kHang)
    return hang(patch, flow, params, reference_m, height_m);
  const double inv_cell = 1.0 / cellAreaM2(patch);
  const double spacing = patch.spacing_m;
  // Per point in routing order: its receiver's position in the order, the slope factor
  // (A / cell)^-theta and the outlet's height.
  const size_t m = flow.order.size();
  if (m == 0) return 0.0;
  std::vector<uint32_t> position(n, UINT32_MAX);
  for (size_t k = 0; k < m; ++k) position[flow.order[k]] = uint32_t(k);
  std::vector<uint32_t> up(m);
  std::vector<double> factor(m, 0.0), base(m, 0.0), z(m, 0.0);
  double reference_mean = 0.0;
  for (size_t k = 0; k < m; ++k) {
    const uint32_t c = flow.order[k];
    reference_mean += double(reference_m[c]);
    if (flow.outlet[c] || flow.receiver[c] == c) {
      up[k] = uint32_t(k);
      base[k] = double(height_m[c]);
      continue;
    }
    up[k] = position[flow.receiver[c]];
    const double cells = std::max(1.0, double(flow.area_m2[c]) * inv_cell);
    factor[k] =
        params.concavity == 0.5 ? 1.0 / std::sqrt(cells) : std::pow(cells, -params.concavity);
  }
  reference_mean /= double(m);
  const double cap = params.max_slope * spacing;
  // Mean height of the surface of steepness k: increasing in k.
  auto lay = [&](double k) {
    double sum = 0.0;
    for (size_t j = 0; j < m; ++j) {
      z[j] = up[j] == j ? base[j] : z[up[j]] + std::min(k * factor[j] * spacing, cap);
      sum += z[j];
    }
    return sum / double(m);
  };
  double lo = 0.0, hi = 1.0;
  if (lay(lo) >= reference_mean) {
    hi = 0.0;  // the outlets alone stand above the mean: the flattest surface
  } else {
    while (lay(hi) < reference_mean && hi < 1e6) hi *= 2.0;
    for (int it = 0; it < 48; ++it) {
      const double mid = 0.5 * (lo + hi);
      (lay(mid) < reference_mean ? lo : hi) = mid;
    }
  }
  const double k = hi;
  lay(k);
  for (size_t j = 0; j < m; ++j) {
    const uint32_t c = flow.order[j];
    if (up[j] == j) continue;
    height_m[c] = float(z[j]);
  }
  syncCopies(patch, height_m);
  return k;
}

void relaxHillslopes(const LatticePatch& patch, std::span<const uint8_t> fixed,
                     const HillslopeParams& params, std::span<float> height_m) {
  const size_t n = patch.size();
  const PatchNeighbours neighbours(patch);
  std::vector<uint32_t> points;
  for (uint32_t c = 0; c < n; ++c) {
    if (patch.holds(c)) points.push_back(c);
  }
  std::vector<double> delta(n, 0.0);
  for (int step = 0; step < params.diffusion_steps; ++step) {
    for (const uint32_t c : points) {
      if (fixed[c]) continue;
      double sum = 0.0;
      neighbours.forEach(c, [&](uint32_t m) { sum += double(height_m[m]) - double(height_m[c]); });
      delta[c] = params.diffusion * sum;
    }
    for (const uint32_t c : points) {
      if (!fixed[c]) height_m[c] = float(double(height_m[c]) + delta[c]);
    }
    syncCopies(patch, height_m);
  }

  const double limit = params.talus_slope * patch.spacing_m;
  for (int step = 0; step < params.talus_steps; ++step) {
    std::fill(delta.begin(), delta.end(), 0.0);
    bool moved = false;
    for (const uint32_t c : points) {
      if (fixed[c]) continue;
      const double hc = height_m[c];
      double total = 0.0, largest = 0.0;
      neighbours.forEach(c, [&](uint32_t m) {
        const double excess = hc - double(height_m[m]) - limit;
        if (excess > 0.0) total += excess, largest = std::max(largest, excess);
      });
      if (!(total > 0.0)) continue;
      // Half the largest excess (times the rate) leaves, shared by the steep neighbours in
      // proportion to their excess: the steepest pair ends no steeper than the limit.
      const double leave = 0.5 * params.talus_rate * largest;
      neighbours.forEach(c, [&](uint32_t m) {
        const double excess = hc - double(height_m[m]) - limit;
        if (excess > 0.0) delta[m] += leave * excess / total;
      });
      delta[c] -= leave;
      moved = true;
    }
    if (!moved) break;
    for (const uint32_t c : points) {
      if (!fixed[c]) height_m[c] = float(double(height_m[c]) + delta[c]);
    }
    syncCopies(patch, height_m);
  }
}

}  // namespace erosion
