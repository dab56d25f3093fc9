#include "app/erosion_bench.h"

#include <chrono>
#include <ctime>
#include <memory>
#include <vector>

#include <tbb/task_arena.h>

namespace app {

ErosionBenchFigures runErosionBench(const geodesy::SphereMesh& mesh,
                                    std::span<const float> elevation_m, double radius_m,
                                    double sea_level_m,
                                    std::span<const geodesy::DropletSpawn> spawns, int threads,
                                    const erosion::ErosionParams& params,
                                    erosion::BrushMode brush_mode, uint64_t seed) {
  using Clock = std::chrono::steady_clock;
  auto seconds = [](Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
  };
  auto cpuSeconds = [] {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
  };
  ErosionBenchFigures figures;
  figures.threads = threads;
  std::vector<float> elevation(elevation_m.begin(), elevation_m.end());
  std::vector<float> change(elevation.size(), 0.0f);
  tbb::task_arena arena(threads);
  arena.execute([&] {
    const auto t0 = Clock::now();
    erosion::ErosionWorkspace workspace(mesh, params.radius, brush_mode);
    const auto t1 = Clock::now();
    const double cpu1 = cpuSeconds();
    erosion::ErosionInput input;
    input.mesh = &mesh;
    input.radius_m = radius_m;
    input.sea_level_m = sea_level_m;
    input.seed = seed;
    input.workspace = &workspace;
    figures.stats = erosion::erodeDroplets(input, spawns, params, elevation, change);
    const auto t2 = Clock::now();
    figures.erosion_cpu_s = cpuSeconds() - cpu1;
    figures.setup_s = seconds(t0, t1);
    figures.erosion_s = seconds(t1, t2);
    figures.brush_memory_bytes = workspace.brushMemoryBytes();
    figures.workspace_memory_bytes = workspace.memoryBytes();
  });
  figures.droplets = figures.stats.droplets;
  figures.droplet_steps = figures.stats.droplet_steps;
  if (figures.erosion_s > 0.0) {
    figures.droplets_per_s = double(figures.droplets) / figures.erosion_s;
    figures.droplet_steps_per_s = double(figures.droplet_steps) / figures.erosion_s;
  }
  return figures;
}

}  // namespace app
