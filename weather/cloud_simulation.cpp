#include "weather/cloud_simulation.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>
#include <utility>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "weather/cloud_step.h"
#include "weather/rain_droplets.h"
#include "weather/rainfall.h"
#include "weather/weather_grid.h"

namespace weather {
namespace {

constexpr double kRadPerDeg = std::numbers::pi / 180.0;
// Clouds per parallel task: a cloud step costs a fraction of a microsecond.
constexpr size_t kCloudGrain = 64;

// A point drawn uniformly by area from the whole sphere.
glm::dvec3 uniformSpherePoint(geodesy::HashStream& rng) {
  const double y = 2.0 * rng.uniform() - 1.0;
  const double phi = 2.0 * std::numbers::pi * rng.uniform();
  const double r = std::sqrt(std::fmax(0.0, 1.0 - y * y));
  return {r * std::cos(phi), y, r * std::sin(phi)};
}

}  // namespace

struct CloudSimulation::State {
  State(const geodesy::SphereMesh& m, const WeatherParams& p, uint64_t s, uint64_t b)
      : mesh(&m), params(p), seed(s), budget(b), grid(m, p.grid_frequency) {}

  const geodesy::SphereMesh* mesh;  // the terrain's: droplets and the map live on it
  WeatherParams params;
  uint64_t seed;
  uint64_t budget;
  WeatherGrid grid;  // what the clouds move over

  int epoch = 0;
  uint64_t tick = 0;  // global tick counter, spin-up included: the randomness index
  uint32_t next_cloud_id = 0;
  std::vector<Cloud> clouds;  // alive, by id
  std::vector<CloudTick> results;

  std::vector<RainEvent> land_events;  // this epoch's
  double epoch_land_rain = 0.0;
  std::vector<double> epoch_rain;  // this epoch's rain per grid vertex, moisture units
  std::vector<double> total_rain;  // all epochs' rain per grid vertex, droplets
  double last_scale = 1.0;         // droplets per moisture unit, last epoch with land rain
  uint64_t carried_droplets = 0;   // shares of epochs whose land got no rain
  WeatherStats stats;

  std::vector<float> rainfall;  // the map on mesh, built on demand
  int rainfall_epoch = -1;      // epochs it includes

  // Droplets due by the end of epoch e: floor(budget * e / epochs) without overflow.
  uint64_t budgetUpTo(int e) const {
    const uint64_t n = uint64_t(params.epochs);
    return budget / n * uint64_t(e) + budget % n * uint64_t(e) / n;
  }
  // air: the grid terrain; ground: the caller's terrain (for the droplets).
  void runTick(const Terrain& air, bool record);
  void spawnClouds(const Terrain& air);
  std::vector<geodesy::DropletSpawn> endEpoch(const Terrain& ground);
};

CloudSimulation::CloudSimulation(const geodesy::SphereMesh& mesh, const WeatherParams& params,
                                 uint64_t seed, uint64_t droplet_budget) {
  validate(params);
  const double expected_clouds =
      params.spawn_rate * 4.0 * std::numbers::pi * double(params.ticks + params.spinup_ticks);
  if (expected_clouds > 1e9) {
    throw std::invalid_argument("[weather] spawn_rate * 4 pi * (ticks + spinup_ticks) = " +
                                std::to_string(expected_clouds) +
                                " clouds is not allowed; allowed: at most 1e9.");
  }
  state_ = std::make_unique<State>(mesh, params, seed, droplet_budget);
  const size_t grid_vertices = state_->grid.mesh().vertexCount();
  state_->epoch_rain.assign(grid_vertices, 0.0);
  state_->total_rain.assign(grid_vertices, 0.0);
}

CloudSimulation::~CloudSimulation() = default;

void CloudSimulation::State::spawnClouds(const Terrain& air) {
  // Attempts are uniform on the whole sphere and only those over ocean become clouds, so the
  // birth rate per ocean area is spawn_rate wherever the ocean is.
  const double attempts = params.spawn_rate * 4.0 * std::numbers::pi;
  const double whole = std::floor(attempts);
  const double u = geodesy::unitFromHash(geodesy::hash3(seed, kStreamSpawnCount, tick));
  const uint64_t n = uint64_t(whole) + (u < attempts - whole ? 1 : 0);
  for (uint64_t k = 0; k < n; ++k) {
    geodesy::HashStream rng(geodesy::hash3(seed, kStreamSpawnPoint, tick), 0x5ba4, k);
    const glm::dvec3 p = uniformSpherePoint(rng);
    const geodesy::SurfacePoint at = air.mesh->locate(glm::vec3(p));
    if (elevationAt(air, at) >= air.sea_level_m) continue;
    clouds.push_back(spawnCloud(p, at, air, params, next_cloud_id++));
    ++stats.clouds_spawned;
  }
}

void CloudSimulation::State::runTick(const Terrain& air, bool record) {
  results.resize(clouds.size());
  tbb::parallel_for(tbb::blocked_range<size_t>(0, clouds.size(), kCloudGrain),
                    [&](const tbb::blocked_range<size_t>& r) {
                      for (size_t i = r.begin(); i != r.end(); ++i) {
                        results[i] = stepCloud(clouds[i], air, params);
                      }
                    });
  // Merge in cloud-id order: the sums and the event list do not depend on scheduling.
  size_t kept = 0;
  for (size_t i = 0; i < clouds.size(); ++i) {
    const CloudTick& r = results[i];
    if (record && r.rain > 0.0) {
      splatWater(*air.mesh, r.at, r.rain, epoch_rain);
      if (r.over_land) {
        const uint32_t* corners = &air.mesh->indices[3 * size_t(r.at.face)];
        const glm::vec3 b = r.at.bary;
        const uint32_t cell = corners[b.x >= b.y ? (b.x >= b.z ? 0 : 2) : (b.y >= b.z ? 1 : 2)];
        land_events.push_back({clouds[i].position, r.from, cell, r.rain, clouds[i].id, tick});
        epoch_land_rain += r.rain;
        stats.rain_land += r.rain;
      } else {
        stats.rain_ocean += r.rain;
      }
    }
    if (r.end == CloudTick::End::kDry) {
      ++stats.clouds_dissipated_dry;
    } else if (r.end == CloudTick::End::kLifetime) {
      ++stats.clouds_dissipated_lifetime;
    } else {
      clouds[kept++] = clouds[i];
    }
  }
  stats.cloud_steps += clouds.size();
  clouds.resize(kept);
  spawnClouds(air);
  stats.max_clouds_alive = std::max<uint64_t>(stats.max_clouds_alive, clouds.size());
  ++tick;
  ++stats.ticks;
}

std::vector<geodesy::DropletSpawn> CloudSimulation::State::endEpoch(const Terrain& ground) {
  // This epoch's share: an even split of the budget plus what earlier epochs could not place.
  const uint64_t share = budgetUpTo(epoch + 1) - budgetUpTo(epoch) + carried_droplets;
  EpochDroplets placed;
  if (epoch_land_rain > 0.0) {
    placed = dropletsFromRain(ground, land_events, share, params.cloud_radius_deg * kRadPerDeg,
                              seed, uint64_t(epoch));
  }
  std::vector<geodesy::DropletSpawn>& spawns = placed.spawns;
  if (placed.land_rain > 0.0) {
    carried_droplets = 0;
    last_scale = double(share) / placed.land_rain;
  } else if (epoch + 1 == params.epochs) {
    spawns = dropletsAtRandomLand(ground, share, seed, stats.droplets);
    stats.droplets_fallback += spawns.size();
    carried_droplets = 0;
  } else {
    carried_droplets = share;
  }
  stats.droplets += spawns.size();
  for (size_t g = 0; g < epoch_rain.size(); ++g) {
    total_rain[g] += epoch_rain[g] * last_scale;
    epoch_rain[g] = 0.0;
  }
  land_events.clear();
  epoch_land_rain = 0.0;
  ++epoch;
  return std::move(spawns);
}

std::vector<geodesy::DropletSpawn> CloudSimulation::runEpoch(std::span<const float> elevation_m,
                                                             double sea_level_m) {
  State& s = *state_;
  assert(!done());
  if (elevation_m.size() != s.mesh->vertexCount()) {
    throw std::invalid_argument("CloudSimulation::runEpoch: elevation_m has " +
                                std::to_string(elevation_m.size()) + " values, the mesh " +
                                std::to_string(s.mesh->vertexCount()) + " vertices");
  }
  s.grid.resample(elevation_m, sea_level_m);
  const Terrain air = s.grid.terrain();
  if (s.epoch == 0) {
    for (int t = 0; t < s.params.spinup_ticks; ++t) s.runTick(air, false);
  }
  const uint64_t ticks = uint64_t(s.params.ticks), epochs = uint64_t(s.params.epochs);
  const uint64_t e = uint64_t(s.epoch);
  const uint64_t epoch_ticks = ticks * (e + 1) / epochs - ticks * e / epochs;
  for (uint64_t t = 0; t < epoch_ticks; ++t) s.runTick(air, true);
  return s.endEpoch(Terrain{s.mesh, elevation_m, {}, sea_level_m});
}

bool CloudSimulation::done() const {
  return state_->epoch >= state_->params.epochs;
}
int CloudSimulation::epochsRun() const {
  return state_->epoch;
}
uint64_t CloudSimulation::dropletsEmitted() const {
  return state_->stats.droplets;
}

const std::vector<float>& CloudSimulation::rainfall() const {
  State& s = *state_;
  if (s.rainfall_epoch != s.epoch) {
    const geodesy::SphereMesh& grid = s.grid.mesh();
    std::vector<double> density(s.total_rain.size());
    for (size_t g = 0; g < density.size(); ++g) {
      density[g] = s.total_rain[g] / double(grid.vertex_areas[g]);
    }
    std::vector<float>().swap(s.rainfall);  // not held beside its successor
    if (&grid == s.mesh) {
      s.rainfall.assign(density.begin(), density.end());
    } else {
      s.rainfall = resampleField(grid, density, *s.mesh);
    }
    s.rainfall_epoch = s.epoch;
  }
  return s.rainfall;
}

void CloudSimulation::releaseRainfall() {
  std::vector<float>().swap(state_->rainfall);
  state_->rainfall_epoch = -1;
}

WeatherStats CloudSimulation::stats() const {
  WeatherStats out = state_->stats;
  out.clouds_alive = state_->clouds.size();
  return out;
}

std::vector<CloudSnapshot> CloudSimulation::clouds() const {
  std::vector<CloudSnapshot> out;
  out.reserve(state_->clouds.size());
  for (const Cloud& c : state_->clouds) {
    out.push_back({c.id, c.position, c.velocity, c.moisture, c.age});
  }
  return out;
}

}  // namespace weather
