#pragma once
// The amplitude of the tile detail at each planet vertex: what the planet knows about how rough
// the ground there is at scales it cannot resolve (DetailParams in tile_planet.h).

#include <span>
#include <vector>

#include "geodesy/lattice_numbering.h"
#include "tiles/tile_planet.h"

namespace tiles {

// Detail amplitude in metres at every planet vertex: relief_roughness x (highest - lowest
// elevation over the vertex and its ring), times valley_floor at a concave vertex (the ring's
// mean a quarter of the relief or more above it; linear in between), lake_bed where the water
// surface stands 0.5 m or more above the ground, sea_floor below sea level. Zero everywhere
// when detail is disabled. Parallel on the caller's oneTBB arena; the same for any thread
// count.
std::vector<float> detailRoughness(const geodesy::LatticeNumbering& numbering,
                                   std::span<const float> elevation_m,
                                   std::span<const float> water_level_m, double sea_level_m,
                                   const DetailParams& params);

}  // namespace tiles
