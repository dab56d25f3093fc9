#pragma once
// Wall and CPU time for the benchmarks and the CLI's figures (never for results).

#include <sys/resource.h>

#include <chrono>

namespace planet {

// Seconds of std::chrono::steady_clock since start.
inline double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// CPU seconds (user + system) this process has used so far.
inline double cpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * double(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

}  // namespace planet
