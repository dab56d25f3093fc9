#pragma once
// The stages in order: icosphere -> terrain -> ocean level -> erosion -> export.
// Each stage is a free function of the one before; this file only sequences them.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "erosion/droplet_erosion.h"
#include "export/planet_surface.h"
#include "geodesy/sphere_mesh.h"
#include "metrics/drainage_metrics.h"
#include "planet/config.h"
#include "planet/run_stats.h"
#include "weather/cloud_simulation.h"

namespace planet {

// Everything known about one generated planet.
struct PlanetState {
  // Shared, never mutated: copies of a PlanetState (compare's two runs) share one mesh.
  std::shared_ptr<const geodesy::SphereMesh> mesh;
  std::vector<float> initial_elevation_m;  // after terrain and ocean, before erosion
  std::vector<float> elevation_m;          // current (eroded)
  std::vector<float> change_m;             // elevation_m - initial_elevation_m
  double sea_level_m = 0.0;
  uint64_t land_vertices = 0;
  erosion::ErosionStats erosion_stats;
  erosion::FluvialStats fluvial_stats;
  // Pits and flats the droplets (or, without droplets, the fluvial stage's kept lakes) left,
  // filled at the end (hydrology::fillDepressionsEpsilon).
  double pit_fill_m3 = 0.0;
  std::vector<float> rainfall;  // per vertex, droplets per steradian (weather/rainfall.h)
  // The rain that fell: the droplets actually spawned, binned like rainfall (for uniform rain
  // rainfall is the constant expectation, this is the random draw around it). Only filled
  // when erodePlanet is asked for it.
  std::vector<float> droplet_density;
  weather::WeatherStats weather_stats;  // clouds mode only
  std::optional<RainMode> rain_mode;    // the rain that eroded it; empty when nothing eroded
};

// Called with the name of each stage as it starts (for the progress line).
using StageCallback = std::function<void(const std::string& stage)>;

// Icosphere, terrain and ocean level. Sea level is 0 m after this: in "fraction" mode the
// terrain is shifted so that the quantile lands on 0.
PlanetState buildPlanet(const Config& config, StageTimer& timer, const StageCallback& on_stage);

// Rain (uniform or clouds, [weather] mode), the fluvial stage ([fluvial]) and droplet erosion
// ([erosion]): updates elevation_m, change_m, erosion_stats, fluvial_stats, rainfall and
// weather_stats. The clouds rain on the noise terrain in all their epochs; the fluvial stage
// builds the relief from the run's rain; then the droplets of every epoch run on it, in the
// order spawned. Last, the pits and flats the droplets left are filled (epsilon gradient).
// with_droplet_density also bins the spawned droplets into droplet_density (compare's metric;
// its own timer, "droplet_density": about 0.25 s at f = 512 on 2 cores).
void erodePlanet(PlanetState& planet, const Config& config, StageTimer& timer,
                 const StageCallback& on_stage, bool with_droplet_density = false);

// The drainage metrics' input for planet's current elevations and rain (the routing seed and
// lake evaporation of config).
metrics::DrainageInput drainageInputOf(const PlanetState& planet, const Config& config);

// Drainage metrics before and after erosion, by rain quarter, and at the coast: summary.json's
// "drainage" section (docs/fluvial.md), as a JSON text.
nlohmann::json drainageSummary(const PlanetState& planet, const Config& config);
// The same, with the network of planet's current terrain already routed
// (drainageOf(drainageInputOf(planet, config))), so callers that need it too route it once.
nlohmann::json drainageSummary(const PlanetState& planet, const Config& config,
                               const metrics::DrainageNetwork& after);
// The same, dropping this share of `after` once it is measured, before the initial terrain is
// routed: a caller that uses the network beside it (writePlanet's rivers) drops its own share
// when done, so the two networks are rarely held at once (the rivers stage's peak memory).
nlohmann::json drainageSummary(const PlanetState& planet, const Config& config,
                               std::shared_ptr<const metrics::DrainageNetwork> after);

// Number of droplets the config asks for on this planet.
uint64_t dropletBudget(const Config& config, uint64_t land_vertices);

// The export view of a planet: mesh, elevations, _EROSION/_RAINFALL attributes and the root
// node extras (seed, frequency, full config). Refers to planet's arrays: keep planet alive.
planet_export::PlanetSurface surfaceOf(const PlanetState& planet, const Config& config);

// Writes planet.glb, planet.obj, planet.mtl, the PNG maps and summary.json into out_dir,
// all or nothing (temporary files, renamed together at the end). Returns the output
// transaction's warnings for the user (OutputTransaction::warnings).
std::vector<std::string> writePlanet(const PlanetState& planet, const Config& config,
                                     const std::filesystem::path& out_dir, StageTimer& timer,
                                     const StageCallback& on_stage, int threads);

}  // namespace planet
