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

// Wall-clock time of named stages, in the order they ran; optionally the peak memory of each.
class StageTimer {
 public:
  // From now on also measures each stage's peak resident memory: at every stage boundary the
  // process's peak (VmHWM) is read and reset, so anything else reading it (peakRssBytes(),
  // getrusage, /usr/bin/time) sees only the time since the last boundary: use peakRss(). For
  // the benchmark, which owns its process. False, and nothing measured, where the peak cannot
  // be reset.
  bool trackMemory();
  void start(std::string name);
  void stop();  // stops the running stage, if any
  double seconds(const std::string& name) const;
  const std::vector<std::pair<std::string, double>>& stages() const { return stages_; }
  // Parts of a stage that ran concurrently (e.g. each export output): their own wall time,
  // not added to the stage list (their sum may exceed the stage's time).
  void addPart(std::string name, double seconds) { parts_.emplace_back(std::move(name), seconds); }
  const std::vector<std::pair<std::string, double>>& parts() const { return parts_; }
  // Tracked: the peak RSS of each stage name (the highest over its runs), in first-run order.
  const std::vector<std::pair<std::string, uint64_t>>& stagePeaks() const { return peaks_; }
  // The process's peak RSS since it started (tracked: the highest of every stage, of what ran
  // between them, and of the time before trackMemory).
  uint64_t peakRss() const;

 private:
  void recordPeak();  // tracked: the peak since the last boundary goes to the running stage

  bool tracking_ = false;
  uint64_t untracked_peak_ = 0;  // outside the stages
  std::vector<std::pair<std::string, uint64_t>> peaks_;
  std::vector<std::pair<std::string, double>> stages_;
  std::vector<std::pair<std::string, double>> parts_;
  std::string running_;
  std::chrono::steady_clock::time_point begin_;
};

// summary.json's and metrics.json's "timings": {"<stage>_s": seconds, summed over the
// stages of that name, ..., "total_s": the sum of all}.
nlohmann::json timingsJson(const StageTimer& timer);

}  // namespace planet
