#pragma once
// Uniform rain: droplets spread evenly by area over land, the baseline that weather-driven
// rain is compared with (Kelley 2020 §4.4, "weather system turned off").

#include <cstdint>
#include <span>
#include <vector>

#include "geodesy/droplet_spawn.h"
#include "geodesy/sphere_mesh.h"

namespace weather {

// Up to `count` droplets with water 1, droplet i at a point drawn uniformly by area on the
// sphere from geodesy::HashStream(seed, rain stream, i) and kept if the interpolated
// elevation there is at or above sea_level_m; otherwise redrawn, at most kMaxRainTries times.
// A droplet that finds no land in that many tries is left out (on a planet with 5 % land, 4 %
// of them), so fewer than `count` come back only on nearly drowned planets; none if there is
// no land. Order is by i. Parallel in the caller's oneTBB arena; the result does not depend on
// the thread count.
std::vector<geodesy::DropletSpawn> uniformRain(const geodesy::SphereMesh& mesh,
                                               std::span<const float> elevation_m,
                                               double sea_level_m, uint64_t count, uint64_t seed);

inline constexpr int kMaxRainTries = 64;

}  // namespace weather
