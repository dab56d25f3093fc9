#pragma once
// Speed and memory figures of droplet erosion, for `planetgen bench` and erosion_bench
// (app/bench/): a benchmark, so planet's, not the erosion library's.

#include <cstddef>
#include <cstdint>
#include <span>

#include "erosion/droplet_erosion.h"
#include "geodesy/droplet_spawn.h"
#include "geodesy/sphere_mesh.h"

namespace app {

struct ErosionBenchFigures {
  int threads = 0;
  uint64_t droplets = 0;
  uint64_t droplet_steps = 0;
  double setup_s = 0.0;        // building the workspace (brushes, areas)
  double erosion_s = 0.0;      // erodeDroplets with the workspace built, wall clock
  double erosion_cpu_s = 0.0;  // the same in process CPU time (all threads)
  double droplets_per_s = 0.0;
  double droplet_steps_per_s = 0.0;
  size_t brush_memory_bytes = 0;
  size_t workspace_memory_bytes = 0;  // brushes + per-vertex records + per-thread buffers
  erosion::ErosionStats stats;
};

// Builds a workspace and erodes a copy of elevation_m with `spawns` in a oneTBB arena of
// `threads` threads (the input is not changed). Times both parts separately.
ErosionBenchFigures runErosionBench(const geodesy::SphereMesh& mesh,
                                    std::span<const float> elevation_m, double radius_m,
                                    double sea_level_m,
                                    std::span<const geodesy::DropletSpawn> spawns, int threads,
                                    const erosion::ErosionParams& params = {},
                                    erosion::BrushMode brush_mode = erosion::BrushMode::kLattice,
                                    uint64_t seed = 1);

}  // namespace app
