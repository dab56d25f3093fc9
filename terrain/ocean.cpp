#include "terrain/ocean.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>
#include <vector>

namespace terrain {

double areaWeightedQuantile(std::span<const float> elevation_m, std::span<const float> areas,
                            double fraction) {
  const size_t n = elevation_m.size();
  const auto [lo_it, hi_it] = std::minmax_element(elevation_m.begin(), elevation_m.end());
  const float lo = *lo_it, hi = *hi_it;
  double total = 0.0;
  for (float a : areas) total += a;
  if (fraction <= 0.0) return lo;
  if (fraction >= 1.0 || hi <= lo) return fraction >= 1.0 ? std::nextafter(hi, INFINITY) : lo;
  const double target = fraction * total;

  // Pass 1: area histogram over [lo, hi]; find the bin where the cumulative area crosses.
  constexpr int kBins = 1 << 16;
  const double scale = (kBins - 1) / (double(hi) - double(lo));
  auto bin_of = [&](float e) { return std::min(kBins - 1, int((double(e) - lo) * scale)); };
  std::vector<double> hist(kBins, 0.0);
  for (size_t v = 0; v < n; ++v) hist[bin_of(elevation_m[v])] += areas[v];
  double below = 0.0;
  int bin = 0;
  for (; bin < kBins - 1 && below + hist[bin] < target; ++bin) below += hist[bin];

  // Pass 2: sort the few vertices of that bin exactly.
  std::vector<std::pair<float, float>> in_bin;
  for (size_t v = 0; v < n; ++v)
    if (bin_of(elevation_m[v]) == bin) in_bin.emplace_back(elevation_m[v], areas[v]);
  std::sort(in_bin.begin(), in_bin.end());
  for (const auto& [e, a] : in_bin) {
    below += a;
    if (below >= target) return e;
  }
  return in_bin.empty() ? lo : in_bin.back().first;
}

double oceanLevel(std::span<const float> elevation_m, std::span<const float> areas,
                  const OceanParams& params) {
  if (params.mode == OceanMode::kLevel) return params.level_m;
  return areaWeightedQuantile(elevation_m, areas, params.fraction);
}

}  // namespace terrain
