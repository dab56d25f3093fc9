#include "planet/run_stats.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

namespace planet {
namespace {

uint64_t statusKiB(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const size_t n = std::strlen(field);
  while (std::getline(in, line)) {
    if (line.compare(0, n, field) == 0) return std::stoull(line.substr(n + 1)) * 1024ull;
  }
  return 0;
}

}  // namespace

uint64_t peakRssBytes() {
  return statusKiB("VmHWM");
}
uint64_t currentRssBytes() {
  return statusKiB("VmRSS");
}

bool resetPeakRss() {
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
  return bool(out.flush());
}

std::string hashFloats(std::span<const float> values) {
  uint64_t h = 1469598103934665603ull;
  const auto* bytes = reinterpret_cast<const unsigned char*>(values.data());
  for (size_t i = 0; i < values.size_bytes(); ++i) {
    h ^= bytes[i];
    h *= 1099511628211ull;
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
  return text;
}

bool StageTimer::trackMemory() {
  untracked_peak_ = std::max(untracked_peak_, peakRssBytes());  // before: still the run's
  tracking_ = untracked_peak_ > 0 && resetPeakRss();
  return tracking_;
}

void StageTimer::recordPeak() {
  if (!tracking_) return;
  const uint64_t peak = peakRssBytes();
  resetPeakRss();
  if (running_.empty()) {
    untracked_peak_ = std::max(untracked_peak_, peak);
    return;
  }
  auto it =
      std::find_if(peaks_.begin(), peaks_.end(), [&](auto& p) { return p.first == running_; });
  if (it == peaks_.end())
    peaks_.emplace_back(running_, peak);
  else
    it->second = std::max(it->second, peak);
}

uint64_t StageTimer::peakRss() const {
  uint64_t peak = peakRssBytes();
  if (!tracking_) return peak;
  peak = std::max(peak, untracked_peak_);
  for (const auto& [name, bytes] : peaks_) peak = std::max(peak, bytes);
  return peak;
}

void StageTimer::start(std::string name) {
  stop();
  recordPeak();  // what ran between stages
  running_ = std::move(name);
  begin_ = std::chrono::steady_clock::now();
}

void StageTimer::stop() {
  if (running_.empty()) return;
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin_).count();
  stages_.emplace_back(running_, s);
  recordPeak();
  running_.clear();
}

double StageTimer::seconds(const std::string& name) const {
  double total = 0.0;
  for (const auto& [n, s] : stages_)
    if (n == name) total += s;
  return total;
}

nlohmann::json timingsJson(const StageTimer& timer) {
  nlohmann::json timings = nlohmann::json::object();
  double total = 0.0;
  for (const auto& [name, seconds] : timer.stages()) {
    timings[name + "_s"] = timings.value(name + "_s", 0.0) + seconds;
    total += seconds;
  }
  timings["total_s"] = total;
  return timings;
}

}  // namespace planet
