#pragma once
// What a planetgen::Planet holds (planetgen.cpp makes it, planet_file.cpp saves and loads it).

#include <memory>
#include <mutex>

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

  const planet::PlanetState& withMesh() {
    std::call_once(mesh_once, [this] {
      if (!state.mesh) {
        state.mesh = std::make_shared<const geodesy::SphereMesh>(
            geodesy::buildIcosphere(config.planet.frequency));
      }
    });
    return state;
  }
};

}  // namespace planetgen
