#pragma once
// What a planetgen::Planet holds (planetgen.cpp makes it, planet_file.cpp saves and loads it).

#include <memory>
#include <mutex>
#include <vector>

#include "hydrology/flow_routing.h"

#include "planet/pipeline.h"
#include "planet/planetgen.h"
#include "planet/run_stats.h"

namespace planetgen {

struct Planet::Impl {
  Config config;
  planet::PlanetState state;
  planet::StageTimer timer;  // the stages that made it (summary.json's timings)
  // A loaded planet has no icosphere until one is asked for (state.mesh stays null till then).
  std::once_flag mesh_once;
  // The water surface per vertex (Planet::waterLevelM): a loaded planet has it from its file; a
  // generated one routes its flow the first time it is asked for.
  std::vector<float> water_level_m;
  std::once_flag water_once;

  const planet::PlanetState& withMesh() {
    std::call_once(mesh_once, [this] {
      if (!state.mesh) {
        state.mesh = std::make_shared<const geodesy::SphereMesh>(
            geodesy::buildIcosphere(config.planet.frequency));
      }
    });
    return state;
  }

  const std::vector<float>& waterLevel() {
    std::call_once(water_once, [this] {
      if (water_level_m.empty() && !state.elevation_m.empty()) {
        const planet::PlanetState& s = withMesh();
        water_level_m = hydrology::routeFlow(*s.mesh, s.elevation_m, s.sea_level_m).water_level_m;
      }
    });
    return water_level_m;
  }
};

}  // namespace planetgen
