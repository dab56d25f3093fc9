#pragma once
// Memory a run will need, estimated from the config before anything large is allocated, so
// that a run that cannot fit is refused in milliseconds (exit 3) instead of failing after
// minutes. One model counts every knob that costs memory; docs/reliability.md gives the
// measurements its constants come from.

#include <cstdint>
#include <string>
#include <vector>

#include "planet/config.h"

namespace planet {

// One term of the estimate: the memory a knob (or a group of knobs) costs.
struct MemoryTerm {
  std::string knob;     // "[planet] frequency", "[weather] spawn_rate", ...
  std::string value;    // its value in the config, as text
  uint64_t bytes = 0;   // what it costs
  std::string fitting;  // the largest value that fits with every other knob unchanged ("" if none)
};

struct MemoryEstimate {
  uint64_t required_bytes = 0;
  uint64_t available_bytes = 0;  // min(MemAvailable, configured cap); 0 = unknown, no cap
  int largest_fitting_frequency = 0;
  std::vector<MemoryTerm> terms;  // the knobs' costs, largest first (fixed costs not listed)
  bool fits() const { return available_bytes == 0 || required_bytes <= available_bytes; }
};

enum class RunKind { kGenerate, kCompare };

// Vertices of an icosphere of frequency f (10 f^2 + 2), without overflow for any int f.
uint64_t icosphereVertexCount(int frequency);

// Peak resident memory of a run of `config` on `threads` worker threads (each keeps a change
// buffer of 8 bytes per vertex). Counts the icosphere frequency, the droplet budget (explicit
// or per land vertex), [weather] clouds (spawn_rate, ticks, epochs, cloud_lifetime), the
// [export] maps (map_width), cube faces (cube_size), chunk nodes (chunks) and, for compare,
// its three planets and globe renders (globe_size_px). A positive limits.memory_cap_gib is
// always a cap (however small); MemAvailable is the other bound.
MemoryEstimate estimateMemory(const Config& config, int threads = 2,
                              RunKind kind = RunKind::kGenerate);

// "needs about N MiB but only M MiB are available; ..." naming the knobs that cost the most
// and the largest value of each that fits. For the exit-3 message.
std::string describeShortfall(const MemoryEstimate& estimate);

// "the largest costs of this run are [erosion] droplets_per_land_vertex = 1000 (about 7600 MiB);
// lower [erosion] droplets_per_land_vertex": the knobs that cost at least a quarter of the
// largest, for a run that ran out of memory although the estimate let it start.
std::string describeLargestCosts(const MemoryEstimate& estimate);

// MemAvailable from /proc/meminfo, in bytes (0 if unknown).
uint64_t availableMemoryBytes();

}  // namespace planet
