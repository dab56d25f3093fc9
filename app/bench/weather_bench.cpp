// Times the cloud weather on a synthetic planet (not a test; build with
// `cmake --build <dir> --target weather_bench`):
//   weather_bench <frequency> <threads> [droplets_per_land_vertex]
// Prints one JSON line: wall and CPU seconds of the epochs (ticks and droplet placement), the
// rainfall map, and the cloud counts. The planet has 30 % land in large high blocks, like
// configs/earthlike.toml; compare the figures with erosion's for the same droplet count.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <sys/resource.h>
#include <tbb/task_arena.h>
#include <glm/geometric.hpp>

#include "geodesy/hash.h"
#include "geodesy/sphere_mesh.h"
#include "planet/detail/stopwatch.h"
#include "weather/cloud_simulation.h"

namespace {

using planet::cpuSeconds;
using planet::secondsSince;

using Clock = std::chrono::steady_clock;

// Soft Voronoi blocks at random heights plus ripples, shifted so 70 % of the area is ocean.
std::vector<float> syntheticElevation(const geodesy::SphereMesh& mesh) {
  constexpr int kBlocks = 24;
  std::vector<glm::dvec3> centre(kBlocks);
  std::vector<double> height(kBlocks);
  for (int k = 0; k < kBlocks; ++k) {
    geodesy::HashStream rng(42, 0xbe7c, uint64_t(k));
    centre[k] =
        glm::normalize(glm::dvec3(rng.uniform() - 0.5, rng.uniform() - 0.5, rng.uniform() - 0.5));
    height[k] = -4000.0 + 7000.0 * rng.uniform();
  }
  std::vector<float> elevation(mesh.vertexCount());
  for (size_t v = 0; v < elevation.size(); ++v) {
    const glm::dvec3 p(mesh.positions[v]);
    double sum = 0.0, weight = 0.0;
    for (int k = 0; k < kBlocks; ++k) {
      const double w = std::exp(12.0 * glm::dot(p, centre[k]));
      sum += w * height[k];
      weight += w;
    }
    elevation[v] = float(sum / weight + 600.0 * std::sin(9.0 * p.x) * std::sin(11.0 * p.z + p.y));
  }
  std::vector<float> sorted = elevation;
  const size_t quantile = size_t(0.7 * double(sorted.size()));
  std::nth_element(sorted.begin(), sorted.begin() + quantile, sorted.end());
  const float sea = sorted[quantile];
  for (float& e : elevation) e -= sea;
  return elevation;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: weather_bench <frequency> <threads> [droplets_per_land_vertex]\n");
    return 2;
  }
  const int frequency = std::atoi(argv[1]);
  const int threads = std::atoi(argv[2]);
  const double per_land_vertex = argc > 3 ? std::atof(argv[3]) : 2.0;
  tbb::task_arena arena(threads);
  arena.execute([&] {
    const geodesy::SphereMesh mesh = geodesy::buildIcosphere(frequency);
    const std::vector<float> elevation = syntheticElevation(mesh);
    const auto land =
        std::count_if(elevation.begin(), elevation.end(), [](float e) { return e >= 0.0f; });
    const uint64_t budget = uint64_t(std::llround(per_land_vertex * double(land)));
    weather::WeatherParams params;

    const double cpu0 = cpuSeconds();
    const auto t0 = Clock::now();
    weather::CloudSimulation sim(mesh, params, 1, budget);
    uint64_t droplets = 0;
    while (!sim.done()) droplets += sim.runEpoch(elevation, 0.0).size();
    const double epochs_s = secondsSince(t0), epochs_cpu = cpuSeconds() - cpu0;
    const auto t1 = Clock::now();
    const double map_sum = double(sim.rainfall()[0]);
    const double map_s = secondsSince(t1);
    const weather::WeatherStats s = sim.stats();
    std::printf(
        "{\"frequency\": %d, \"threads\": %d, \"vertices\": %zu, \"land_vertices\": %ld, "
        "\"droplets\": %llu, \"weather_s\": %.4f, \"weather_cpu_s\": %.4f, "
        "\"rainfall_map_s\": %.4f, \"ticks\": %llu, \"cloud_steps\": %llu, "
        "\"clouds_spawned\": %llu, \"max_clouds_alive\": %llu, \"map_probe\": %g}\n",
        frequency, threads, mesh.vertexCount(), long(land), (unsigned long long)droplets, epochs_s,
        epochs_cpu, map_s, (unsigned long long)s.ticks, (unsigned long long)s.cloud_steps,
        (unsigned long long)s.clouds_spawned, (unsigned long long)s.max_clouds_alive, map_sum);
  });
  return 0;
}
