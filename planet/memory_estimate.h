#pragma once
// Memory the pipeline will need, estimated before anything large is allocated, so that an
// absurd size is refused in milliseconds instead of failing after minutes.

#include <cstdint>

#include "planet/config.h"

namespace planet {

struct MemoryEstimate {
  uint64_t required_bytes = 0;
  uint64_t available_bytes = 0;  // min(MemAvailable, configured cap)
  int largest_fitting_frequency = 0;
};

// Vertices of an icosphere of frequency f (10 f^2 + 2), without overflow for any int f.
uint64_t icosphereVertexCount(int frequency);

MemoryEstimate estimateMemory(const Config& config);

// MemAvailable from /proc/meminfo, in bytes (0 if unknown).
uint64_t availableMemoryBytes();

}  // namespace planet
