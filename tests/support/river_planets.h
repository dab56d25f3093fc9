#pragma once
// The planets of the river tests (hydrology/rivers_test, planet/rivers_output_test,
// metrics/drainage_metrics_test): the default config at f = 64, eroded, with its river network
// (built once per test executable).

#include <string>

#include "hydrology/rivers.h"
#include "planet/config.h"
#include "planet/pipeline.h"
#include "planet/rivers_output.h"

namespace river_fixtures {

using namespace planet;

// Tolerances stated in README "Rivers and lakes as data" and docs/rivers.md.
inline constexpr double kOnSurfaceM = 0.05;  // point elevation vs the interpolated surface
inline constexpr double kRiseM = 0.05;       // largest rise between consecutive points

inline PlanetState eroded(const Config& config) {
  StageTimer timer;
  const StageCallback quiet = [](const std::string&) {};
  PlanetState planet = buildPlanet(config, timer, quiet);
  erodePlanet(planet, config, timer, quiet);
  return planet;
}

inline Config configAt(const std::string& file, int frequency) {
  const std::string overrides[] = {"planet.frequency=" + std::to_string(frequency)};
  return loadConfig(std::string(PLANETGEN_SOURCE_DIR) + "/configs/" + file, overrides);
}

struct Fixture {
  Config config;
  PlanetState planet;
  hydrology::RiverNetwork network;
};

inline const Fixture& defaultPlanet() {
  static const Fixture f = [] {
    Fixture x;
    x.config = configAt("default.toml", 64);
    x.planet = eroded(x.config);
    x.network = riversOf(x.planet, x.config);
    return x;
  }();
  return f;
}

}  // namespace river_fixtures
