// Times buildIcosphere and locate and reports the mesh's memory and edge-length spread.
//   geodesy_bench <frequency> <threads> [sine|flat] [repeats]
// Peak RSS is the process high-water mark, so run one frequency per process for clean numbers.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <sys/resource.h>
#include <tbb/task_arena.h>
#include <glm/geometric.hpp>

#include "geodesy/hash.h"
#include "geodesy/sphere_mesh.h"
#include "planet/detail/stopwatch.h"

namespace {

using planet::cpuSeconds;
using planet::secondsSince;

using Clock = std::chrono::steady_clock;

// The process's minor page faults so far.
long minorFaults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

// VmHWM from /proc/self/status, in bytes.
double peakRssBytes() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::atof(line.c_str() + 6) * 1024.0;
  }
  return 0.0;
}

template <typename T>
double bytesOf(const std::vector<T>& v) {
  return double(v.capacity() * sizeof(T));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s <frequency> <threads> [sine|flat] [repeats]\n", argv[0]);
    return 2;
  }
  const int frequency = std::atoi(argv[1]);
  const int threads = std::atoi(argv[2]);
  geodesy::IcosphereOptions options;
  if (argc > 3 && std::string(argv[3]) == "flat") options.spacing = geodesy::Spacing::kFlat;
  const int repeats = argc > 4 ? std::atoi(argv[4]) : 1;

  tbb::task_arena arena(threads);
  const double rss_before = peakRssBytes();
  double best_s = 1e30, best_cpu_s = 1e30;
  long faults = 0;
  geodesy::SphereMesh mesh;
  for (int r = 0; r < repeats; ++r) {
    mesh = {};
    const auto t0 = Clock::now();
    const double cpu0 = cpuSeconds();
    const long faults0 = minorFaults();
    arena.execute([&] { mesh = geodesy::buildIcosphere(frequency, options); });
    best_s = std::min(best_s, secondsSince(t0));
    best_cpu_s = std::min(best_cpu_s, cpuSeconds() - cpu0);
    faults = minorFaults() - faults0;
  }
  const double peak = peakRssBytes();
  const double vertices = double(mesh.vertexCount());
  const double mesh_bytes = bytesOf(mesh.positions) + bytesOf(mesh.indices) +
                            bytesOf(mesh.neighbour_offsets) + bytesOf(mesh.neighbours) +
                            bytesOf(mesh.vertex_areas);

  geodesy::EdgeLengthStats stats;
  arena.execute([&] { stats = geodesy::edgeLengthStats(mesh); });

  // locate on random points, and locateFrom on a point one edge away from the last one.
  const int samples = 1000000;
  std::vector<glm::vec3> points(samples);
  for (int s = 0; s < samples; ++s) {
    geodesy::HashStream rng(1, 0xbe, uint64_t(s));
    const double z = 2.0 * rng.uniform() - 1.0, phi = 2.0 * M_PI * rng.uniform();
    const double r = std::sqrt(1.0 - z * z);
    points[s] = glm::vec3(float(r * std::cos(phi)), float(r * std::sin(phi)), float(z));
  }
  uint64_t checksum = 0;
  auto t0 = Clock::now();
  for (const glm::vec3& p : points) checksum += mesh.locate(p).face;
  const double locate_ns = secondsSince(t0) / samples * 1e9;
  // A great-circle path in steps of about one edge, located from the previous face.
  const glm::vec3 axis = glm::normalize(glm::vec3(0.3f, 0.8f, 0.52f));
  const glm::vec3 start = glm::normalize(glm::cross(axis, glm::vec3(1, 0, 0)));
  const glm::vec3 side = glm::cross(axis, start);
  uint32_t face = mesh.locate(start).face;
  t0 = Clock::now();
  for (int s = 0; s < samples; ++s) {
    const double angle = s * mesh.mean_edge_length;
    const glm::vec3 p = float(std::cos(angle)) * start + float(std::sin(angle)) * side;
    face = mesh.locateFrom(face, p).face;
    checksum += face;
  }
  const double walk_ns = secondsSince(t0) / samples * 1e9;

  std::printf(
      "frequency %d  threads %d  spacing %s  vertices %.0f  faces %zu\n"
      "build %.3f s wall, %.3f s CPU (best of %d), %ld page faults\n"
      "edge arc min %.6g max %.6g mean %.6g  max/min %.5f\n"
      "mesh arrays %.1f B/vertex  peak RSS %.1f MB = %.1f B/vertex (%.1f before build)\n"
      "locate %.0f ns/point  locateFrom (1-edge steps) %.0f ns/point  [checksum %llu]\n",
      frequency, threads, options.spacing == geodesy::Spacing::kFlat ? "flat" : "sine", vertices,
      mesh.faceCount(), best_s, best_cpu_s, repeats, faults, stats.min_rad, stats.max_rad,
      stats.mean_rad, stats.ratio(), mesh_bytes / vertices, peak / 1e6, peak / vertices,
      rss_before / 1e6, locate_ns, walk_ns, (unsigned long long)checksum);
  return 0;
}
