#pragma once
// The ocean level: either an absolute level in metres or the level that puts a given
// fraction of the planet's surface under water (an area-weighted quantile of elevation).

#include <span>

namespace terrain {

enum class OceanMode {
  kFraction,  // the level that puts `fraction` of the surface under water
  kLevel,     // an absolute level, level_m
};

struct OceanParams {
  OceanMode mode = OceanMode::kFraction;
  double fraction = 0.65;  // [0, 1]: share of the surface area under water (kFraction)
  double level_m = 0.0;    // the level (kLevel)
};

// Smallest level L such that the vertices with elevation < L hold at least `fraction` of the
// total area (by vertex dual area). Deterministic; O(V) with a histogram refinement.
// Elevations and areas have equal, non-zero length; fraction in [0, 1].
double areaWeightedQuantile(std::span<const float> elevation_m, std::span<const float> areas,
                            double fraction);

// The sea level (m) for these params.
double oceanLevel(std::span<const float> elevation_m, std::span<const float> areas,
                  const OceanParams& params);

}  // namespace terrain
