// The fluvial stage in the pipeline (planet/pipeline.h): what a user of the shipped configs gets
// (docs/fluvial_stage.md).
#include <catch2/catch.hpp>

#include <algorithm>

#include <tbb/task_arena.h>
#include <nlohmann/json.hpp>

#include "planet/config.h"
#include "planet/pipeline.h"

using namespace planet;

namespace {

PlanetState eroded(const Config& config) {
  StageTimer timer;
  const StageCallback quiet = [](const std::string&) {};
  PlanetState planet = buildPlanet(config, timer, quiet);
  erodePlanet(planet, config, timer, quiet);
  return planet;
}

Config defaultAt(int frequency) {
  const std::string overrides[] = {"planet.frequency=" + std::to_string(frequency)};
  return loadConfig(std::string(PLANETGEN_SOURCE_DIR) + "/configs/default.toml", overrides);
}

}  // namespace

TEST_CASE("rivers: the default planet drains, keeps its coast and its peaks", "[rivers]") {
  const Config config = defaultAt(96);
  REQUIRE(config.weather.mode == "clouds");
  REQUIRE(config.fluvial.enabled);
  const PlanetState planet = eroded(config);
  const nlohmann::json d = drainageSummary(planet, config);
  INFO(d.dump(1));
  const auto& before = d["before"];
  const auto& after = d["after"];
  CHECK(before["pits_per_10k_land_vertices"].get<double>() > 5.0);  // the noise has pits
  CHECK(after["pits_per_10k_land_vertices"].get<double>() <= 5.0);
  CHECK(after["land_draining_to_sea"].get<double>() >= 0.8);
  CHECK(after["mean_channel_depth_m"].get<double>() >=
        2.0 * before["mean_channel_depth_m"].get<double>());
  CHECK(d["former_sea_raised_over_100m"].get<uint64_t>() == 0);
  CHECK(d["final_max_m"].get<double>() <= d["initial_max_m"].get<double>());
  CHECK(d["coastline_moved"].get<double>() <= 0.01);
  // Wetter land is cut deeper and has more channels than drier land.
  CHECK(d["wettest_quarter"]["mean_channel_depth_m"].get<double>() >
        d["driest_quarter"]["mean_channel_depth_m"].get<double>());
  CHECK(d["wettest_quarter"]["channel_length_km_per_1000km2"].get<double>() >=
        2.0 * d["driest_quarter"]["channel_length_km_per_1000km2"].get<double>());
  CHECK(planet.fluvial_stats.iterations == config.fluvial.iterations);
  CHECK(planet.fluvial_stats.sediment_balance_error < 1e-9);
}

TEST_CASE("rivers: clouds, fluvial stage and droplets bit-identical at 1, 2 and 4 threads",
          "[rivers]") {
  Config config = defaultAt(48);
  config.fluvial.coarse_frequency = 24;  // the coarse-to-fine path too
  std::vector<std::vector<float>> results;
  for (int threads : {1, 2, 4}) {
    tbb::task_arena arena(threads);
    arena.execute([&] { results.push_back(eroded(config).elevation_m); });
  }
  CHECK(results[0] == results[1]);
  CHECK(results[0] == results[2]);
}
