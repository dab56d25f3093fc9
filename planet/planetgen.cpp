#include "planet/planetgen.h"

#include <algorithm>

#include <tbb/global_control.h>
#include <tbb/task_arena.h>

#include "metrics/drainage_metrics.h"
#include "planet/default_config.h"
#include "planet/detail/planet_impl.h"
#include "planet/pipeline.h"
#include "planet/run_checks.h"
#include "planet/run_stats.h"
#include "planet/stage_progress.h"
#include "terrain/terrain.h"

namespace planetgen {

Config defaultConfig() {
  return planet::loadConfigText(std::string(planet::defaultConfigText()),
                                std::string(planet::kDefaultConfigOrigin));
}

Config loadConfig(const std::filesystem::path& file, std::span<const std::string> overrides) {
  return planet::loadConfig(file, overrides);
}

Planet::Planet() : impl_(std::make_shared<Impl>()) {}
Planet::~Planet() = default;
Planet::Planet(const Planet&) = default;
Planet& Planet::operator=(const Planet&) = default;

const Config& Planet::config() const {
  return impl_->config;
}
int Planet::frequency() const {
  return impl_->config.planet.frequency;
}
double Planet::radiusM() const {
  return impl_->config.planet.radius_m;
}
double Planet::seaLevelM() const {
  return impl_->state.sea_level_m;
}
size_t Planet::vertexCount() const {
  return impl_->state.elevation_m.size();
}

std::span<const glm::vec3> Planet::unitPositions() const {
  if (vertexCount() == 0) return {};
  return impl_->withMesh().mesh->positions;
}
std::span<const uint32_t> Planet::triangles() const {
  if (vertexCount() == 0) return {};
  return impl_->withMesh().mesh->indices;
}
std::span<const float> Planet::elevationM() const {
  return impl_->state.elevation_m;
}
std::span<const float> Planet::initialElevationM() const {
  return impl_->state.initial_elevation_m;
}
std::span<const float> Planet::rainfall() const {
  return impl_->state.rainfall;
}
std::span<const float> Planet::waterLevelM() const {
  return impl_->waterLevel();
}
std::string Planet::elevationHash() const {
  return planet::hashFloats(impl_->state.elevation_m);
}

const planet::PlanetState& Planet::state() const {
  if (vertexCount() == 0) return impl_->state;
  return impl_->withMesh();
}

Planet generate(const Config& config, const GenerateOptions& options) {
  planet::checkRun(config, "config");
  Planet result;
  Planet::Impl& p = *result.impl_;
  p.config = config;
  int erosion_runs = 0;
  double done = 0.0;  // stages without a share of their own keep the last one
  const planet::StageCallback on_stage = [&](const std::string& stage) {
    if (options.cancelled && options.cancelled()) throw Cancelled();
    if (stage == "erosion") ++erosion_runs;
    done = std::max(done, planet::stageFraction(stage, false, erosion_runs));
    if (options.on_progress) options.on_progress(stage, done);
  };
  p.state = planet::buildPlanet(config, p.timer, on_stage);
  planet::erodePlanet(p.state, config, p.timer, on_stage);
  if (options.cancelled && options.cancelled()) throw Cancelled();
  return result;
}

std::vector<std::string> writeOutputs(const Planet& planet, const std::filesystem::path& folder) {
  // The threads the outputs may use, as summary.json reports them: the caller's arena, within
  // any tbb::global_control limit.
  const int threads = int(std::min<size_t>(
      size_t(tbb::this_task_arena::max_concurrency()),
      tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism)));
  planet::StageTimer timer = planet.impl_->timer;
  return planet::writePlanet(
      planet.state(), planet.config(), folder, timer, [](const std::string&) {}, threads);
}

tiles::TileGenerator makeTileGenerator(const Planet& planet) {
  return makeTileGenerator(planet, planet.config().tiles.generator);
}

tiles::TileGenerator makeTileGenerator(const Planet& planet, const tiles::TileParams& params) {
  if (planet.vertexCount() == 0) throw ConfigError("makeTileGenerator: the planet is empty");
  const Config& config = planet.config();
  tiles::TilePlanet input;
  input.frequency = config.planet.frequency;
  input.radius_m = config.planet.radius_m;
  input.sea_level_m = planet.seaLevelM();
  input.elevation_m = planet.elevationM();
  input.water_level_m = planet.waterLevelM();
  input.spectrum = {terrain::detailNoiseSeed(config.planet.seed), config.terrain.frequency,
                    config.terrain.lacunarity, config.terrain.persistence};
  // Erosion takes the planet's rain and where each vertex drains (its rivers enter the
  // windows); the generator keeps what it needs, so the routing may go.
  // The routing is rivers.geojson's (drainageOf with the config's routing seed), so the
  // rivers the tiles continue are the planet's.
  metrics::DrainageNetwork drainage;
  if (params.erosion.enabled) {
    drainage = metrics::drainageOf(planet::drainageInputOf(planet.state(), config));
    input.receiver = drainage.routing.receiver;
    input.rainfall = planet.rainfall();
  }
  // The rivers the tiles carry on are rivers.geojson's: its threshold, runoff and widths.
  tiles::TileParams tile_params = params;
  tile_params.erosion.river_cells = config.rivers.min_drainage_cells;
  tile_params.erosion.river_runoff_mm_per_yr = config.rivers.runoff_mm_per_yr;
  tile_params.erosion.channel_width_coefficient = config.rivers.width_coefficient;
  try {
    return tiles::TileGenerator(input, tile_params);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(std::string("[tiles] ") + e.what());
  }
}

}  // namespace planetgen
