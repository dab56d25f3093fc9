// Run statistics (planet/run_stats.h): the peak memory of each stage.
#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

#include "planet/run_stats.h"

TEST_CASE("run stats: each stage's peak memory is its own, the run's peak the highest",
          "[planet]") {
  planet::StageTimer timer;
  if (!timer.trackMemory()) {
    WARN("the peak RSS cannot be reset here (/proc/self/clear_refs): nothing to check");
    return;
  }
  constexpr size_t kBig = size_t(256) << 20;
  timer.start("big");
  {
    std::vector<char> block(kBig);
    std::memset(block.data(), 1, block.size());  // resident, whatever the allocator did
    volatile char sink = block[kBig / 2];
    (void)sink;
  }  // freed: a 256 MB block goes back to the system
  timer.start("small");
  {
    std::vector<char> block(size_t(1) << 20, 1);
    volatile char sink = block[12];
    (void)sink;
  }
  timer.stop();
  const auto& peaks = timer.stagePeaks();
  REQUIRE(peaks.size() == 2);
  CHECK(peaks[0].first == "big");
  CHECK(peaks[1].first == "small");
  // Without the reset at the boundary, "small" would report big's peak.
  CHECK(peaks[0].second >= peaks[1].second + kBig * 3 / 4);
  CHECK(timer.peakRss() >= peaks[0].second);
  // A stage run twice keeps its higher peak.
  timer.start("small");
  timer.stop();
  REQUIRE(timer.stagePeaks().size() == 2);
  CHECK(timer.stagePeaks()[1].second >= peaks[1].second);
}
