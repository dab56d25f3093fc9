#pragma once
// Clouds that carry moisture from the oceans and rain it onto the land as droplet spawns for
// erosion, in epochs so that later clouds see the eroded terrain.
//
// What goes past Kelley 2020 §4.3 (her clouds followed the band winds and rained under
// themselves, so "only the equator and poles get much rain", §5):
//  - moisture is picked up over the ocean and spent as rain, so it runs out inland;
//  - orographic lift: rain grows with the rise of the ground under the cloud, so windward
//    slopes are wet; descending air rains less (rain shadow), and what fell on the windward
//    side is gone, so lee sides are dry;
//  - winds blend smoothly between bands and bend around steep terrain (weather/wind.h);
//  - meridional wind components make clouds gather where the bands converge (equator, 60 deg)
//    and leave the subtropics (30 deg) dry.
//
// Typical use (the caller owns the terrain and runs erosion between epochs):
//
//   weather::CloudSimulation sim(mesh, params, seed, droplet_budget);
//   while (!sim.done()) {
//     auto spawns = sim.runEpoch(elevation_m, sea_level_m);
//     erosion::erodeDroplets(input, spawns, ..., elevation_m, change_m, sim.dropletsEmitted()
//                            - spawns.size());
//   }
//   use(sim.rainfall(), sim.stats());

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include <glm/vec3.hpp>

#include "geodesy/droplet_spawn.h"
#include "geodesy/sphere_mesh.h"
#include "weather/weather_params.h"

namespace weather {

struct WeatherStats {
  uint64_t ticks = 0;        // ticks run, spin-up included
  uint64_t cloud_steps = 0;  // one per cloud per tick
  uint64_t clouds_spawned = 0;
  uint64_t clouds_dissipated_dry = 0;       // moisture fell below dry_moisture
  uint64_t clouds_dissipated_lifetime = 0;  // reached cloud_lifetime
  uint64_t clouds_alive = 0;                // now
  uint64_t max_clouds_alive = 0;
  // Rain recorded after the spin-up, in moisture units, split by the ground under the cloud.
  double rain_land = 0.0;
  double rain_ocean = 0.0;
  uint64_t droplets = 0;  // emitted so far
  // Droplets placed by the fallback of an epoch in which no rain reached land (placed at
  // random land vertices so the budget still holds), included in droplets.
  uint64_t droplets_fallback = 0;
};

// One cloud as the simulation sees it now (for tests and pictures).
struct CloudSnapshot {
  uint32_t id = 0;        // order of birth, from 0
  glm::dvec3 position{};  // unit length
  glm::dvec3 velocity{};  // tangent at position, radians of arc per tick
  double moisture = 0.0;
  int age = 0;  // ticks lived
};

// Deterministic: given the same mesh, params, seed, budget and terrain per epoch, every output
// is bit-identical for any thread count (randomness is geodesy::hash3 of seed, cloud id and
// tick; per-cloud results are merged in cloud-id order).
// Parallelism: runEpoch uses the calling thread's oneTBB arena. Not thread-safe itself.
class CloudSimulation {
 public:
  // mesh must outlive the simulation. params are checked with validate() (throws
  // std::invalid_argument); droplet_budget droplets are emitted in total over params.epochs
  // epochs, as evenly as possible per epoch.
  CloudSimulation(const geodesy::SphereMesh& mesh, const WeatherParams& params, uint64_t seed,
                  uint64_t droplet_budget);
  ~CloudSimulation();
  CloudSimulation(const CloudSimulation&) = delete;
  CloudSimulation& operator=(const CloudSimulation&) = delete;

  // Runs the next epoch's ticks (the first epoch first runs params.spinup_ticks unrecorded
  // ticks) on this terrain: elevation_m has one value per mesh vertex; ground below
  // sea_level_m is ocean. Returns the epoch's droplet spawns, each with water = 1 and on land
  // (elevation >= sea_level_m where it falls), in a deterministic shuffled order so that an
  // erosion batch holds droplets from all over the epoch's rain. The epoch's share of the
  // budget (floor(budget (e+1) / epochs) - floor(budget e / epochs)) is spread over the rain
  // that fell on land in proportion to it; an epoch whose land got no rain hands its share to
  // the next, and the last epoch places it at random land vertices instead
  // (stats().droplets_fallback). So the droplets over all epochs add up to the budget exactly,
  // unless the planet has no land at all (then none). Must not be called once done().
  // Throws std::invalid_argument if elevation_m has the wrong size.
  std::vector<geodesy::DropletSpawn> runEpoch(std::span<const float> elevation_m,
                                              double sea_level_m);

  bool done() const;
  int epochsRun() const;
  uint64_t dropletsEmitted() const;  // so far: the first droplet id of the next epoch

  // Rain that fell so far (after the spin-up) per vertex of the mesh, ocean included, in
  // droplets (of water 1) per steradian: each epoch's rain is scaled by the same factor as its
  // droplets, so over land the map integrates to about the droplets emitted (exactly, up to
  // smoothing at the coasts). Rain is summed on the cloud grid (grid_frequency) at the cloud
  // centres and interpolated to the mesh: the expected rainfall, smooth at the grid scale,
  // of which the droplets are a random draw. Same unit and smoothing as rainfallFromSpawns
  // (weather/rainfall.h), so the maps of both modes compare. Built on the first call after an
  // epoch (in the caller's arena), then cached.
  const std::vector<float>& rainfall() const;
  // Frees the cached map (4 bytes per vertex) while its reader is done with it; the next
  // rainfall() builds it again. References from rainfall() become invalid.
  void releaseRainfall();

  WeatherStats stats() const;
  std::vector<CloudSnapshot> clouds() const;  // alive now, by id

  struct State;

 private:
  std::unique_ptr<State> state_;
};

}  // namespace weather
