#pragma once
// Uniform rain: droplets spread evenly by area over land, the baseline that weather-driven
// rain is compared with (Kelley 2020 §4.4, "weather system turned off").

#include <cstdint>
#include <span>
#include <vector>

#include "geodesy/droplet_spawn.h"
#include "geodesy/sphere_mesh.h"

namespace weather {

// Up to `count` droplets with water 1, spread uniformly by area over the land (where the
// interpolated elevation is at or above sea_level_m). Droplet i draws from
// geodesy::HashStream(seed, rain stream, i): a face among those with a corner at or above sea
// level, by flat area; a point uniform on that flat triangle; kept with the probability that
// turns flat area into solid angle (above 0.997 at f = 16, 0.99999 at f = 512) and if it is on
// land, else redrawn, at most kMaxRainTries times. No search on the sphere: 0.56 s for 1.57 M
// droplets at f = 512 on 2 cores (2.6 s with 3.3 locate() calls per droplet). A droplet is
// left out only if all its tries miss land, so fewer than `count` come back only on nearly
// drowned planets; none if there is no land. Order is by i. Parallel in the caller's oneTBB
// arena; the result does not depend on the thread count.
std::vector<geodesy::DropletSpawn> uniformRain(const geodesy::SphereMesh& mesh,
                                               std::span<const float> elevation_m,
                                               double sea_level_m, uint64_t count, uint64_t seed);

inline constexpr int kMaxRainTries = 64;

}  // namespace weather
