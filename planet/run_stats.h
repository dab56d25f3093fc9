#pragma once
// Process measurements for summary.json and the benchmark: peak memory, elevation hashes,
// stage timings.

#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace planet {

// Peak resident set size of this process in bytes (VmHWM), 0 if unknown.
uint64_t peakRssBytes();
// Current resident set size in bytes (VmRSS), 0 if unknown.
uint64_t currentRssBytes();
// Resets the peak to the current RSS (Linux /proc/self/clear_refs); false if not supported.
bool resetPeakRss();

// FNV-1a 64 over the exact bytes of the floats, as 16 hex digits: equal hashes mean
// bit-identical arrays.
std::string hashFloats(std::span<const float> values);

// Wall-clock time of named stages, in the order they ran.
class StageTimer {
 public:
  void start(std::string name);
  void stop();  // stops the running stage, if any
  double seconds(const std::string& name) const;
  const std::vector<std::pair<std::string, double>>& stages() const { return stages_; }
  // Parts of a stage that ran concurrently (e.g. each export output): their own wall time,
  // not added to the stage list (their sum may exceed the stage's time).
  void addPart(std::string name, double seconds) { parts_.emplace_back(std::move(name), seconds); }
  const std::vector<std::pair<std::string, double>>& parts() const { return parts_; }

 private:
  std::vector<std::pair<std::string, double>> stages_;
  std::vector<std::pair<std::string, double>> parts_;
  std::string running_;
  std::chrono::steady_clock::time_point begin_;
};

// summary.json's and metrics.json's "timings": {"<stage>_s": seconds, summed over the
// stages of that name, ..., "total_s": the sum of all}.
nlohmann::json timingsJson(const StageTimer& timer);

}  // namespace planet
