// erosion_bench: droplet erosion speed on a synthetic planet (an fBm-like sum of sines), so
// the erosion module can be measured alone. planetgen bench measures it on the real terrain.
//
//   erosion_bench [--frequency 256] [--threads 2] [--droplets 500000]
//                 [--brush lattice|precomputed|gathered]
//                 [--batch 0 (auto)] [--radius 3]

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <sys/resource.h>

#include <tbb/parallel_for.h>
#include <glm/geometric.hpp>

#include "app/erosion_bench.h"
#include "geodesy/hash.h"
#include "geodesy/sphere_mesh.h"
#include "weather/uniform_rain.h"

namespace {

// 8 octaves of 6 plane waves each with random directions and phases, amplitude halving and
// frequency doubling per octave: rough, fBm-like, about +-4 km.
std::vector<float> syntheticTerrain(const geodesy::SphereMesh& mesh, uint64_t seed) {
  struct Wave {
    glm::vec3 k;
    float phase, amplitude;
  };
  std::vector<Wave> waves;
  geodesy::HashStream rng(seed, 7, 0);
  double amplitude = 2000.0, frequency = 1.5;
  for (int octave = 0; octave < 8; ++octave, amplitude *= 0.5, frequency *= 2.0) {
    for (int i = 0; i < 6; ++i) {
      const double z = 2.0 * rng.uniform() - 1.0, phi = 6.283185307 * rng.uniform();
      const double r = std::sqrt(1.0 - z * z);
      const glm::vec3 dir(float(r * std::cos(phi)), float(z), float(r * std::sin(phi)));
      waves.push_back({dir * float(frequency), float(6.283185307 * rng.uniform()),
                       float(amplitude / std::sqrt(3.0))});
    }
  }
  std::vector<float> h(mesh.vertexCount());
  tbb::parallel_for(size_t(0), h.size(), [&](size_t v) {
    float sum = 0.0f;
    for (const Wave& w : waves)
      sum += w.amplitude * std::sin(glm::dot(w.k, mesh.positions[v]) + w.phase);
    h[v] = sum;
  });
  return h;
}

}  // namespace

int main(int argc, char** argv) {
  int frequency = 256, threads = 2, batch = 0;
  uint64_t droplets = 500000;
  double radius = 3.0;
  erosion::BrushMode mode = erosion::BrushMode::kLattice;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i], value = argv[i + 1];
    if (key == "--frequency")
      frequency = std::atoi(value.c_str());
    else if (key == "--threads")
      threads = std::atoi(value.c_str());
    else if (key == "--droplets")
      droplets = std::strtoull(value.c_str(), nullptr, 10);
    else if (key == "--batch")
      batch = std::atoi(value.c_str());
    else if (key == "--radius")
      radius = std::atof(value.c_str());
    else if (key == "--brush")
      mode = value == "precomputed" ? erosion::BrushMode::kPrecomputed
             : value == "gathered"  ? erosion::BrushMode::kGathered
                                    : erosion::BrushMode::kLattice;
    else {
      std::fprintf(stderr, "unknown option %s\n", key.c_str());
      return 2;
    }
  }
  const geodesy::SphereMesh mesh = geodesy::buildIcosphere(frequency);
  std::vector<float> elevation = syntheticTerrain(mesh, 42);
  // Sea level at the 60th percentile: 40 % land.
  std::vector<float> sorted = elevation;
  std::nth_element(sorted.begin(), sorted.begin() + sorted.size() * 6 / 10, sorted.end());
  const double sea_level = sorted[sorted.size() * 6 / 10];
  const auto spawns = weather::uniformRain(mesh, elevation, sea_level, droplets, 42);

  erosion::ErosionParams params;
  params.max_lifetime = 30;
  params.radius = radius;
  params.batch_size = batch;
  const app::ErosionBenchFigures f = app::runErosionBench(mesh, elevation, 6371000.0, sea_level,
                                                          spawns, threads, params, mode, 42);
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  std::printf(
      "frequency %d vertices %zu threads %d brush %s batch %d radius %.1f\n"
      "droplets %llu steps %llu mean_steps %.2f setup_s %.3f erosion_s %.3f cpu_s %.3f\n"
      "droplets_per_s %.0f droplet_steps_per_s %.0f brush_bytes %zu workspace_bytes %zu "
      "peak_rss_bytes %ld\n"
      "eroded_m3 %.6e deposited_m3 %.6e mass_error %.3e ended lifetime %llu dried %llu sea %llu "
      "flat %llu\n",
      frequency, mesh.vertexCount(), threads,
      mode == erosion::BrushMode::kLattice       ? "lattice"
      : mode == erosion::BrushMode::kPrecomputed ? "precomputed"
                                                 : "gathered",
      int(erosion::batchSize(params, mesh.vertexCount())), radius, (unsigned long long)f.droplets,
      (unsigned long long)f.droplet_steps, f.stats.mean_steps, f.setup_s, f.erosion_s,
      f.erosion_cpu_s, f.droplets_per_s, f.droplet_steps_per_s, f.brush_memory_bytes,
      f.workspace_memory_bytes, usage.ru_maxrss * 1024L, f.stats.eroded_volume_m3,
      f.stats.deposited_volume_m3, f.stats.mass_error, (unsigned long long)f.stats.ended_lifetime,
      (unsigned long long)f.stats.ended_dried, (unsigned long long)f.stats.ended_sea,
      (unsigned long long)f.stats.ended_flat);
  return 0;
}
