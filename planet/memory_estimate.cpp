#include "planet/memory_estimate.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>

namespace planet {
namespace {

// Measured peak bytes per vertex of a full generate run (mesh with adjacency, terrain,
// erosion buffers, export buffers), rounded up; see README "Benchmarks".
constexpr double kBytesPerVertex = 320.0;
constexpr double kFixedBytes = 64.0 * 1024 * 1024;

}  // namespace

uint64_t icosphereVertexCount(int frequency) {
  const uint64_t f = uint64_t(std::max(frequency, 0));
  return 10 * f * f + 2;
}

uint64_t availableMemoryBytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  uint64_t kib = 0;
  std::string unit;
  while (in >> key >> kib >> unit) {
    if (key == "MemAvailable:") return kib * 1024;
  }
  return 0;
}

MemoryEstimate estimateMemory(const Config& config) {
  MemoryEstimate e;
  const double v = double(icosphereVertexCount(config.planet.frequency));
  e.required_bytes = uint64_t(v * kBytesPerVertex + kFixedBytes);
  uint64_t available = availableMemoryBytes();
  if (config.limits.memory_cap_gib > 0.0) {
    const uint64_t cap = uint64_t(config.limits.memory_cap_gib * 1024.0 * 1024.0 * 1024.0);
    available = available ? std::min(available, cap) : cap;
  }
  e.available_bytes = available;
  if (available > kFixedBytes) {
    const double vertices = (double(available) - kFixedBytes) / kBytesPerVertex;
    e.largest_fitting_frequency = int(std::floor(std::sqrt(std::max(0.0, (vertices - 2) / 10))));
  }
  return e;
}

}  // namespace planet
