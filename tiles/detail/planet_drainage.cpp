#include "tiles/detail/planet_drainage.h"

#include <numbers>
#include <stdexcept>
#include <string>

namespace tiles::detail {

PlanetDrainage planetDrainage(std::span<const float> elevation_m, double sea_level_m,
                              std::span<const float> rainfall, std::span<const uint32_t> receiver,
                              double radius_m, bool uniform) {
  const size_t n = elevation_m.size();
  PlanetDrainage out;
  out.cell_m2 = 4.0 * std::numbers::pi * radius_m * radius_m / double(n);
  if (!uniform && !rainfall.empty()) {
    double sum = 0.0;
    size_t land = 0;
    for (size_t v = 0; v < n; ++v) {
      if (double(elevation_m[v]) >= sea_level_m) sum += double(rainfall[v]), ++land;
    }
    const double mean = land > 0 ? sum / double(land) : 0.0;
    if (mean > 0.0) {
      out.rain.resize(n);
      for (size_t v = 0; v < n; ++v) out.rain[v] = float(std::max(0.0, double(rainfall[v]) / mean));
    }
  }
  if (receiver.empty()) return out;

  // Each vertex's own rain-weighted cell, passed downstream in topological order (sources
  // first: a vertex goes once everything that drains to it has).
  out.receiver.assign(receiver.begin(), receiver.end());
  out.area_m2.resize(n);
  std::vector<uint32_t> inflowing(n, 0);
  for (size_t v = 0; v < n; ++v) {
    if (receiver[v] >= n) {
      throw std::invalid_argument("planet receiver " + std::to_string(receiver[v]) + " of vertex " +
                                  std::to_string(v) + " is not a vertex; allowed: 0 to " +
                                  std::to_string(n - 1));
    }
    out.area_m2[v] = out.cell_m2 * (out.rain.empty() ? 1.0 : double(out.rain[v]));
    if (receiver[v] != v) ++inflowing[receiver[v]];
  }
  std::vector<uint32_t> ready;
  for (size_t v = 0; v < n; ++v) {
    if (inflowing[v] == 0) ready.push_back(uint32_t(v));
  }
  size_t done = 0;
  while (!ready.empty()) {
    const uint32_t v = ready.back();
    ready.pop_back();
    ++done;
    const uint32_t r = receiver[v];
    if (r == v) continue;
    out.area_m2[r] += out.area_m2[v];
    if (--inflowing[r] == 0) ready.push_back(r);
  }
  if (done != n) {
    throw std::invalid_argument("planet receivers form a cycle (" + std::to_string(n - done) +
                                " vertices drain in a circle); allowed: every path ends at a "
                                "vertex that is its own receiver");
  }
  return out;
}

}  // namespace tiles::detail
