#pragma once
// `planetgen compare`'s figures (metrics.json without the timings): the two eroded runs of one
// terrain measured on the land of the initial terrain. Internal to planet/compare.cpp.

#include <vector>

#include <nlohmann/json.hpp>

#include "metrics/latitude_bands.h"
#include "planet/config.h"
#include "planet/pipeline.h"

namespace planet {

// One terrain and its two erosions: with cloud rain and with uniform rain.
struct CompareRuns {
  PlanetState base, weather, uniform;
  Config weather_config, uniform_config;
};

// One run's figures (metrics.json's "weather" or "uniform") and its latitude bands.
struct ModeMetrics {
  nlohmann::json json;
  std::vector<metrics::LatitudeBand> bands;
};

struct CompareMetrics {
  nlohmann::json json;  // metrics.json without timings, threads and peak memory
  ModeMetrics weather, uniform;
  std::vector<float> water_weather, water_uniform;  // rivers and lakes, for the pictures
};

// Every figure of the comparison (the "metrics" stage).
CompareMetrics compareMetrics(const CompareRuns& runs, const Config& config);

}  // namespace planet
