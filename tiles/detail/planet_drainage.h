#pragma once
// What the tiles' erosion takes from the planet's hydrology: rain per vertex relative to the
// mean over land, and the drainage area each vertex passes to its receiver (rain-weighted, as
// the planet's rivers are), accumulated over the planet's own routing. Built once with the
// tile generator.

#include <cstdint>
#include <span>
#include <vector>

#include "geodesy/lattice_numbering.h"

namespace tiles::detail {

struct PlanetDrainage {
  std::vector<float> rain;         // per vertex, 1 = the mean over land; empty = 1 everywhere
  std::vector<uint32_t> receiver;  // per vertex; empty = no routing given
  std::vector<double> area_m2;     // per vertex: rain-weighted drainage area; empty likewise
  double cell_m2 = 0.0;            // the planet's mean vertex cell area
};

// rainfall, receiver: per vertex or empty. uniform: the same rain everywhere (rain stays empty
// and the areas are plain). Land is elevation_m >= sea_level_m. Receivers that do not form a
// forest (a cycle) are refused with std::invalid_argument.
PlanetDrainage planetDrainage(std::span<const float> elevation_m, double sea_level_m,
                              std::span<const float> rainfall, std::span<const uint32_t> receiver,
                              double radius_m, bool uniform);

}  // namespace tiles::detail
