#include "planet/stage_progress.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace planet {
namespace {

// "k/n" at the end of "erosion, epoch k/n" as (k, n); (1, 1) without one.
std::pair<int, int> epochOf(const std::string& stage) {
  const size_t slash = stage.rfind('/');
  const size_t space = stage.rfind(' ', slash);
  if (slash == std::string::npos || space == std::string::npos) return {1, 1};
  try {
    const int k = std::stoi(stage.substr(space + 1, slash - space - 1));
    const int n = std::stoi(stage.substr(slash + 1));
    if (k >= 1 && n >= k) return {k, n};
  } catch (const std::exception&) {
  }
  return {1, 1};
}

}  // namespace

double stageFraction(const std::string& stage, bool compare, int erosion_runs) {
  // Rough shares of the default planet's wall time: the erosion epochs take most of it.
  constexpr double kErosionStart = 0.10, kErosionEnd = 0.85;
  if (stage == "icosphere") return 0.0;
  if (stage == "terrain") return 0.02;
  if (stage == "metrics") return 0.85;
  if (stage == "export") return compare ? 0.88 : kErosionEnd;
  const bool weather = stage.rfind("weather", 0) == 0;
  if (!weather && stage.rfind("erosion", 0) != 0) return 0.0;
  const int runs = compare ? 2 : 1;
  const int run = std::clamp(erosion_runs, 1, runs) - 1;
  const auto [k, n] = epochOf(stage);
  // Within an epoch, the weather takes the first half and the erosion the second.
  double epoch_part = stage == "erosion" ? 0.0 : (k - 1 + (weather ? 0.0 : 0.5)) / n;
  const double run_share = (kErosionEnd - kErosionStart) / runs;
  return kErosionStart + run_share * (run + epoch_part);
}

}  // namespace planet
