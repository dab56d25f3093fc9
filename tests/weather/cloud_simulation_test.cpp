// Clouds, rain and droplet spawns (weather/cloud_simulation.h, uniform_rain.h, rainfall.h) on
// synthetic planets; the wind bands alone: wind_test.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <numbers>
#include <numeric>
#include <stdexcept>
#include <vector>

#include <tbb/task_arena.h>
#include <catch2/catch.hpp>
#include <glm/geometric.hpp>

#include "erosion/droplet_erosion.h"
#include "geodesy/latlon.h"
#include "geodesy/sphere_mesh.h"
#include "weather/cloud_simulation.h"
#include "weather/rainfall.h"
#include "weather/uniform_rain.h"

namespace {

using geodesy::DropletSpawn;
using geodesy::SphereMesh;
using weather::CloudSimulation;
using weather::WeatherParams;

constexpr double kDegPerRad = 180.0 / std::numbers::pi;

const SphereMesh& meshOf(int frequency) {
  static std::map<int, SphereMesh> meshes;
  auto it = meshes.find(frequency);
  if (it == meshes.end()) it = meshes.emplace(frequency, geodesy::buildIcosphere(frequency)).first;
  return it->second;
}

struct LatLonDeg {
  double lat, lon;
};

LatLonDeg latLonDeg(const glm::dvec3& p) {
  const geodesy::LatLon ll = geodesy::unitToLatLon(p);
  return {ll.lat_rad * kDegPerRad, ll.lon_rad * kDegPerRad};
}

// Elevation (m) at every vertex from a function of latitude and longitude in degrees.
std::vector<float> terrain(const SphereMesh& mesh,
                           const std::function<double(double, double)>& height_m) {
  std::vector<float> elevation(mesh.vertexCount());
  for (size_t v = 0; v < elevation.size(); ++v) {
    const LatLonDeg ll = latLonDeg(glm::dvec3(mesh.positions[v]));
    elevation[v] = float(height_m(ll.lat, ll.lon));
  }
  return elevation;
}

// Ocean at -1000 m; land 30-60 N between 25 W and 25 E at 100 m, with a north-south ridge
// 3000 m high along longitude 0, 10 deg wide on each side. The westerlies cross it eastward.
double ridgePlanet(double lat, double lon) {
  if (lat < 30.0 || lat > 60.0 || std::fabs(lon) > 25.0) return -1000.0;
  return 100.0 + 3000.0 * std::fmax(0.0, 1.0 - std::fabs(lon) / 10.0);
}

// A flat continent 200 m high, 20-70 N, 60 W to 60 E.
double continentPlanet(double lat, double lon) {
  if (lat < 20.0 || lat > 70.0 || std::fabs(lon) > 60.0) return -1000.0;
  return 200.0;
}

// Area-weighted mean of a per-vertex field over a latitude-longitude box.
double boxMean(const SphereMesh& mesh, const std::vector<float>& field, double lat0, double lat1,
               double lon0, double lon1) {
  double sum = 0.0, area = 0.0;
  for (size_t v = 0; v < field.size(); ++v) {
    const LatLonDeg ll = latLonDeg(glm::dvec3(mesh.positions[v]));
    if (ll.lat < lat0 || ll.lat >= lat1 || ll.lon < lon0 || ll.lon >= lon1) continue;
    sum += double(field[v]) * mesh.vertex_areas[v];
    area += mesh.vertex_areas[v];
  }
  return sum / area;
}

// Two short epochs on a cloud grid coarser than the test meshes, so the rain is resampled.
WeatherParams coarseGridParams() {
  WeatherParams p = WeatherParams{};
  p.grid_frequency = 24;
  p.ticks = 300;
  p.epochs = 2;
  return p;
}

struct RunResult {
  std::vector<std::vector<DropletSpawn>> epochs;
  std::vector<float> rainfall;
  weather::WeatherStats stats;
  std::vector<float> elevation;
};

// Runs every epoch; with erode, erosion runs on the spawns between epochs.
RunResult runClouds(const SphereMesh& mesh, std::vector<float> elevation,
                    const WeatherParams& params, uint64_t budget, uint64_t seed = 1,
                    bool erode = false) {
  CloudSimulation sim(mesh, params, seed, budget);
  RunResult out;
  std::vector<float> change(mesh.vertexCount(), 0.0f);
  erosion::ErosionParams erosion_params;
  // The synthetic planets have little land, so a default batch (1024 droplets, each reading
  // the heights frozen at the batch start) would pile many droplets onto the same slope; that
  // overshoots and diverges. Small batches keep erosion's own scheme out of the picture.
  erosion_params.batch_size = 64;
  while (!sim.done()) {
    const uint64_t first_id = sim.dropletsEmitted();
    out.epochs.push_back(sim.runEpoch(elevation, 0.0));
    if (erode) {
      erosion::ErosionInput input;
      input.mesh = &mesh;
      input.seed = seed;
      erosion::erodeDroplets(input, out.epochs.back(), erosion_params, elevation, change, first_id);
    }
  }
  out.rainfall = sim.rainfall();
  out.stats = sim.stats();
  out.elevation = std::move(elevation);
  return out;
}

uint64_t totalSpawns(const RunResult& r) {
  uint64_t n = 0;
  for (const auto& e : r.epochs) n += e.size();
  return n;
}

glm::dvec3 spawnPosition(const SphereMesh& mesh, const DropletSpawn& s) {
  const uint32_t* c = &mesh.indices[3 * size_t(s.point.face)];
  return glm::normalize(double(s.point.bary.x) * glm::dvec3(mesh.positions[c[0]]) +
                        double(s.point.bary.y) * glm::dvec3(mesh.positions[c[1]]) +
                        double(s.point.bary.z) * glm::dvec3(mesh.positions[c[2]]));
}

double elevationAt(const SphereMesh& mesh, const std::vector<float>& elevation,
                   const geodesy::SurfacePoint& at) {
  const uint32_t* c = &mesh.indices[3 * size_t(at.face)];
  return at.bary.x * elevation[c[0]] + at.bary.y * elevation[c[1]] + at.bary.z * elevation[c[2]];
}

}  // namespace

TEST_CASE("weather: mean cloud velocity has each band's direction in both hemispheres",
          "[weather]") {
  const SphereMesh& mesh = meshOf(32);
  const std::vector<float> ocean(mesh.vertexCount(), -1000.0f);
  WeatherParams p = WeatherParams{};
  p.spawn_rate = 3.0;
  p.ticks = 300;
  p.epochs = 1;
  CloudSimulation sim(mesh, p, 3, 0);
  sim.runEpoch(ocean, 0.0);
  const auto clouds = sim.clouds();
  REQUIRE(clouds.size() > 1000);
  // [hemisphere][band]: sum of the eastward velocity and count.
  double east[2][3] = {}, count[2][3] = {};
  for (const auto& c : clouds) {
    const double lat = latLonDeg(c.position).lat;
    const int h = lat >= 0.0 ? 0 : 1;
    const int band = std::min(2, int(std::fabs(lat) / 30.0));
    east[h][band] += glm::dot(c.velocity, geodesy::eastAt(c.position));
    count[h][band] += 1.0;
  }
  for (int h = 0; h < 2; ++h) {
    INFO("hemisphere " << (h == 0 ? "north" : "south"));
    for (int band = 0; band < 3; ++band) REQUIRE(count[h][band] >= 5.0);
    CHECK(east[h][0] / count[h][0] < 0.0);  // 0-30: westward
    CHECK(east[h][1] / count[h][1] > 0.0);  // 30-60: eastward
    CHECK(east[h][2] / count[h][2] < 0.0);  // 60-90: westward
  }
}

TEST_CASE("weather: clouds spawn only over the ocean", "[weather]") {
  const SphereMesh& mesh = meshOf(32);
  // Half the planet is land, in irregular patches.
  const std::vector<float> elevation = terrain(mesh, [](double lat, double lon) {
    return 500.0 * std::sin(lat / 9.0) * std::cos(lon / 13.0) + 100.0;
  });
  WeatherParams p = WeatherParams{};
  p.trade_strength_deg = p.westerly_strength_deg = p.polar_strength_deg = 0.0;  // no motion
  p.spinup_ticks = 0;
  p.ticks = 50;
  p.epochs = 1;
  p.spawn_rate = 5.0;
  CloudSimulation sim(mesh, p, 5, 100);
  sim.runEpoch(elevation, 0.0);
  const auto clouds = sim.clouds();
  REQUIRE(clouds.size() > 500);
  CHECK(sim.stats().clouds_spawned == clouds.size());  // none dissipated yet
  size_t over_land = 0;
  for (const auto& c : clouds) {
    CHECK(glm::length(c.velocity) == 0.0);
    const geodesy::SurfacePoint at = mesh.locate(glm::vec3(c.position));
    if (elevationAt(mesh, elevation, at) >= 0.0) ++over_land;
  }
  CHECK(over_land == 0);
  // The birth rate is per unit ocean area: about spawn_rate * ocean area * ticks.
  double ocean_area = 0.0;
  for (size_t v = 0; v < mesh.vertexCount(); ++v) {
    if (elevation[v] < 0.0) ocean_area += mesh.vertex_areas[v];
  }
  const double expected = p.spawn_rate * ocean_area * p.ticks;
  CHECK(double(clouds.size()) == Approx(expected).epsilon(0.1));
}

TEST_CASE("weather: a ridge in the westerlies is wet on its windward side, dry in its lee",
          "[weather]") {
  const SphereMesh& mesh = meshOf(64);
  const RunResult r = runClouds(mesh, terrain(mesh, ridgePlanet), WeatherParams{}, 200000);
  const double windward = boxMean(mesh, r.rainfall, 32.0, 58.0, -10.0, 0.0);
  const double lee = boxMean(mesh, r.rainfall, 32.0, 58.0, 0.0, 10.0);
  INFO("windward " << windward << " lee " << lee << " ratio " << windward / lee);
  CHECK(windward >= 2.0 * lee);
  CHECK(lee > 0.0);
  // The droplets themselves follow: count them per area on each flank.
  std::vector<DropletSpawn> all;
  for (const auto& e : r.epochs) all.insert(all.end(), e.begin(), e.end());
  const std::vector<float> droplet_map = weather::rainfallFromSpawns(mesh, all, 64);
  const double windward_drops = boxMean(mesh, droplet_map, 32.0, 58.0, -10.0, 0.0);
  const double lee_drops = boxMean(mesh, droplet_map, 32.0, 58.0, 0.0, 10.0);
  INFO("droplets per sr: windward " << windward_drops << " lee " << lee_drops);
  CHECK(windward_drops >= 2.0 * lee_drops);
}

TEST_CASE("weather: continental interiors are drier than the windward coast", "[weather]") {
  const SphereMesh& mesh = meshOf(64);
  const RunResult r = runClouds(mesh, terrain(mesh, continentPlanet), WeatherParams{}, 100000);
  // The westerlies come ashore at 60 W; rain per area in 20-deg strips going east.
  std::vector<double> strips;
  for (double lon = -60.0; lon < 60.0; lon += 20.0) {
    strips.push_back(boxMean(mesh, r.rainfall, 35.0, 55.0, lon, lon + 20.0));
  }
  for (size_t i = 0; i + 1 < strips.size(); ++i) {
    INFO("strip " << i << ": " << strips[i] << " -> " << strips[i + 1]);
    CHECK(strips[i + 1] < strips[i]);
  }
  CHECK(strips.front() > 4.0 * strips.back());
}

TEST_CASE("weather: uniform rain with the same budget is spatially uniform", "[weather]") {
  const SphereMesh& mesh = meshOf(32);
  const std::vector<float> land(mesh.vertexCount(), 100.0f);
  const uint64_t budget = 100000;
  const auto spawns = weather::uniformRain(mesh, land, 0.0, budget, 9);
  REQUIRE(spawns.size() == budget);
  // Equal-area bins (Archimedes): 10 bands equal in y times 20 sectors in longitude.
  constexpr int kBands = 10, kSectors = 20;
  std::vector<double> counts(kBands * kSectors, 0.0);
  for (const DropletSpawn& s : spawns) {
    const glm::dvec3 p = spawnPosition(mesh, s);
    const int band = std::min(kBands - 1, int((p.y + 1.0) * 0.5 * kBands));
    const double lon = std::atan2(-p.z, p.x) + std::numbers::pi;
    const int sector = std::min(kSectors - 1, int(lon / (2.0 * std::numbers::pi) * kSectors));
    counts[band * kSectors + sector] += 1.0;
  }
  const double expected = double(budget) / counts.size();
  double chi2 = 0.0;
  for (double c : counts) chi2 += (c - expected) * (c - expected) / expected;
  // 199 degrees of freedom: mean 199, sd 20; 280 is p ~ 1e-4.
  INFO("chi2 " << chi2);
  CHECK(chi2 < 280.0);
  // Its rainfall map is flat, in the same unit as the clouds' map (integral = droplets).
  const std::vector<float> map = weather::rainfallFromSpawns(mesh, spawns, 16);
  double integral = 0.0;
  for (size_t v = 0; v < map.size(); ++v) integral += double(map[v]) * mesh.vertex_areas[v];
  CHECK(integral == Approx(double(budget)).epsilon(0.01));
  CHECK(boxMean(mesh, map, 0.0, 45.0, 0.0, 90.0) ==
        Approx(budget / (4.0 * std::numbers::pi)).epsilon(0.05));
}

TEST_CASE("weather: the droplet budget is honoured exactly", "[weather]") {
  const SphereMesh& mesh = meshOf(32);
  const std::vector<float> ridge = terrain(mesh, ridgePlanet);
  for (int epochs : {1, 3, 4}) {
    for (uint64_t budget : {uint64_t(0), uint64_t(1), uint64_t(7), uint64_t(12345)}) {
      WeatherParams p = WeatherParams{};
      p.epochs = epochs;
      p.ticks = 240;
      const RunResult r = runClouds(mesh, ridge, p, budget);
      INFO("epochs " << epochs << " budget " << budget);
      CHECK(r.epochs.size() == size_t(epochs));
      CHECK(totalSpawns(r) == budget);
      CHECK(r.stats.droplets == budget);
      // Even split over the epochs (the land got rain in each one here).
      for (int e = 0; e < epochs; ++e) {
        CHECK(r.epochs[e].size() == budget * (e + 1) / epochs - budget * e / epochs);
      }
      for (const auto& epoch : r.epochs) {
        for (const DropletSpawn& s : epoch) {
          CHECK(s.water == 1.0f);
          CHECK(elevationAt(mesh, ridge, s.point) >= 0.0);  // on land
        }
      }
    }
  }
  // No clouds at all: the last epoch still places the whole budget, at random land points.
  WeatherParams calm = WeatherParams{};
  calm.spawn_rate = 0.0;
  calm.ticks = 30;
  calm.epochs = 3;
  const RunResult none = runClouds(mesh, ridge, calm, 1000);
  CHECK(none.epochs[0].empty());
  CHECK(none.epochs[1].empty());
  CHECK(none.epochs[2].size() == 1000);
  CHECK(none.stats.droplets_fallback == 1000);
  // No land at all: nowhere to put droplets.
  const RunResult drowned =
      runClouds(mesh, std::vector<float>(mesh.vertexCount(), -10.0f), WeatherParams{}, 1000);
  CHECK(totalSpawns(drowned) == 0);
  CHECK(drowned.stats.rain_land == 0.0);
  CHECK(drowned.stats.rain_ocean > 0.0);
}

TEST_CASE("weather: a grid coarser than the mesh keeps droplets on land and the budget exact",
          "[weather]") {
  const SphereMesh& mesh = meshOf(96);
  const std::vector<float> ridge = terrain(mesh, ridgePlanet);
  const RunResult r = runClouds(mesh, ridge, coarseGridParams(), 20001);
  CHECK(totalSpawns(r) == 20001);
  size_t off_land = 0;
  for (const auto& epoch : r.epochs) {
    for (const DropletSpawn& s : epoch) off_land += elevationAt(mesh, ridge, s.point) < 0.0;
  }
  CHECK(off_land == 0);
  REQUIRE(r.rainfall.size() == mesh.vertexCount());
  CHECK(boxMean(mesh, r.rainfall, 32.0, 58.0, -10.0, 0.0) >
        2.0 * boxMean(mesh, r.rainfall, 32.0, 58.0, 0.0, 10.0));
}

TEST_CASE("weather: a released rain map is made again the same", "[weather]") {
  // The grid coarser than the mesh: the map is resampled (the pipeline frees it between an
  // epoch's fluvial share and its droplets).
  const SphereMesh& mesh = meshOf(48);
  const std::vector<float> ridge = terrain(mesh, ridgePlanet);
  CloudSimulation sim(mesh, coarseGridParams(), 4, 5000);
  sim.runEpoch(ridge, 0.0);
  const std::vector<float> first = sim.rainfall();
  sim.releaseRainfall();
  CHECK(sim.rainfall() == first);
  sim.runEpoch(ridge, 0.0);
  const std::vector<float> second = sim.rainfall();
  CHECK(second != first);  // the second epoch's rain is added
  sim.releaseRainfall();
  CHECK(sim.rainfall() == second);
  CHECK(std::accumulate(second.begin(), second.end(), 0.0) > 0.0);
}

TEST_CASE("weather: bit-identical rain and spawns at 1, 2 and 4 threads", "[weather]") {
  const SphereMesh& mesh = meshOf(48);
  const std::vector<float> ridge = terrain(mesh, ridgePlanet);
  WeatherParams p = WeatherParams{};
  p.ticks = 300;
  p.epochs = 3;
  // PLANETGEN_WEATHER_THREAD_TICKS=<n> runs n ticks instead of 300 (CI's tsan stage: still 3
  // epochs, each with its droplets eroding in batches).
  if (const char* ticks = std::getenv("PLANETGEN_WEATHER_THREAD_TICKS"))
    p.ticks = std::clamp(std::atoi(ticks), 30, 300);
  std::vector<RunResult> runs;
  for (int threads : {1, 2, 4}) {
    tbb::task_arena arena(threads);
    arena.execute([&] { runs.push_back(runClouds(mesh, ridge, p, 30000, 11, true)); });
  }
  for (size_t i = 1; i < runs.size(); ++i) {
    REQUIRE(runs[i].epochs.size() == runs[0].epochs.size());
    for (size_t e = 0; e < runs[0].epochs.size(); ++e) {
      const auto& a = runs[0].epochs[e];
      const auto& b = runs[i].epochs[e];
      REQUIRE(a.size() == b.size());
      CHECK(std::memcmp(a.data(), b.data(), a.size() * sizeof(DropletSpawn)) == 0);
    }
    CHECK(std::memcmp(runs[0].rainfall.data(), runs[i].rainfall.data(),
                      runs[0].rainfall.size() * sizeof(float)) == 0);
    CHECK(std::memcmp(runs[0].elevation.data(), runs[i].elevation.data(),
                      runs[0].elevation.size() * sizeof(float)) == 0);
    CHECK(runs[0].stats.rain_land == runs[i].stats.rain_land);
    CHECK(runs[0].stats.clouds_spawned == runs[i].stats.clouds_spawned);
  }
}

TEST_CASE("weather: erosion follows the rain", "[weather]") {
  const SphereMesh& mesh = meshOf(64);
  const std::vector<float> before = terrain(mesh, ridgePlanet);
  // Few droplets: at f = 64 the erosion defaults flatten this ridge in ~10 droplets per land
  // vertex, whatever the rain.
  const uint64_t budget = 2000;
  const RunResult clouds = runClouds(mesh, before, WeatherParams{}, budget, 1, true);
  // The same budget of uniform rain, also in 4 epochs on the terrain eroded so far.
  std::vector<float> uniform = before, change(mesh.vertexCount(), 0.0f);
  erosion::ErosionParams erosion_params;
  erosion_params.batch_size = 64;
  for (uint64_t e = 0; e < 4; ++e) {
    const auto spawns = weather::uniformRain(mesh, uniform, 0.0, budget / 4, 100 + e);
    erosion::ErosionInput input;
    input.mesh = &mesh;
    input.seed = 1;
    erosion::erodeDroplets(input, spawns, erosion_params, uniform, change, e * budget / 4);
  }
  // The ridge starts symmetric. Rain on its windward flank wears that flank down, so the lee
  // flank ends higher; uniform rain keeps the two about level.
  auto leeMinusWindward = [&](const std::vector<float>& after) {
    return boxMean(mesh, after, 32.0, 58.0, 0.0, 10.0) -
           boxMean(mesh, after, 32.0, 58.0, -10.0, 0.0);
  };
  const double clouds_m = leeMinusWindward(clouds.elevation);
  const double uniform_m = leeMinusWindward(uniform);
  INFO("lee minus windward mean height: clouds " << clouds_m << " m, uniform " << uniform_m
                                                 << " m");
  CHECK(clouds_m > 75.0);
  CHECK(clouds_m > uniform_m + 50.0);
}

TEST_CASE("weather: inconsistent settings are refused with the key named", "[weather]") {
  const SphereMesh& mesh = meshOf(4);
  WeatherParams p = WeatherParams{};
  p.band_edge_2_deg = 20.0;  // below band_edge_1_deg
  CHECK_THROWS_WITH(CloudSimulation(mesh, p, 1, 10), Catch::Contains("band_edge_2_deg"));
  p = WeatherParams{};
  p.band_blend_deg = 40.0;  // wider than a band
  CHECK_THROWS_WITH(weather::validate(p), Catch::Contains("band_blend_deg"));
  p = WeatherParams{};
  p.epochs = 0;
  CHECK_THROWS_AS(weather::validate(p), std::invalid_argument);
  CHECK_NOTHROW(weather::validate(WeatherParams{}));
}
