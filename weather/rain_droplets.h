#pragma once
// Internal to weather/: turning the rain that clouds dropped on land into droplet spawns.

#include <cstdint>
#include <span>
#include <vector>

#include <glm/vec3.hpp>

#include "geodesy/droplet_spawn.h"
#include "weather/surface_sampling.h"

namespace weather {

// Rain one cloud dropped on land (as the cloud grid sees it) in one tick.
struct RainEvent {
  glm::dvec3 position{};  // cloud centre at the end of the tick, unit length
  glm::dvec3 from{};      // ... and at its start: the rain fell along the way
  uint32_t cell = 0;      // a grid vertex near the centre: events are placed in cell order
  double rain = 0.0;      // moisture units
  uint32_t cloud_id = 0;
  uint64_t tick = 0;
};

struct EpochDroplets {
  std::vector<geodesy::DropletSpawn> spawns;
  double land_rain = 0.0;  // rain of the events whose centre is land on the fine terrain
};

// Spreads exactly `count` droplets (water 1) over the events whose cloud centre is over land
// on the (fine) terrain, in proportion to their rain: event i gets floor(C_i k) -
// floor(C_{i-1} k) droplets, C the running total of their rain in event order and
// k = count / C_n, so they add up to count. (Events over water on the fine terrain, e.g. where
// the grid blurs a coast, keep their rain in the map but get no droplets.) Each droplet falls
// at a random land point within radius_rad of a random point of the cloud's path during the
// tick, drawn from the cloud's stream at the event's tick, or at the cloud centre after 8
// draws over water: every droplet is on land.
// The spawns are then shuffled (seed, shuffle_index), so that a batch of erosion gets droplets
// from all over the epoch's rain rather than a few clouds' worth. If no event is over land,
// returns no spawns and land_rain = 0. Parallel in the caller's arena; identical for any
// thread count.
EpochDroplets dropletsFromRain(const Terrain& terrain, std::span<const RainEvent> events,
                               uint64_t count, double radius_rad, uint64_t seed,
                               uint64_t shuffle_index);

// `count` droplets at land vertices drawn uniformly from the land vertices (ids hashed from
// seed and first_id + k). Empty if there is no land.
std::vector<geodesy::DropletSpawn> dropletsAtRandomLand(const Terrain& terrain, uint64_t count,
                                                        uint64_t seed, uint64_t first_id);

}  // namespace weather
