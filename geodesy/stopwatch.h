#pragma once
// Wall time for the benchmarks and the CLI's figures (never for results).

#include <chrono>

namespace geodesy {

// Seconds of std::chrono::steady_clock since start.
inline double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace geodesy
