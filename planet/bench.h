#pragma once
// `planetgen bench`: speed and memory figures, one JSON line per figure on stdout.

#include <cstdint>
#include <vector>

namespace planet {

struct BenchOptions {
  std::vector<int> frequencies{256, 1024};
  std::vector<int> threads{1, 2};
  uint64_t droplets = 500000;  // erosion figures; 0 skips erosion
  bool with_export = true;
  bool fluvial = true;  // the fluvial stage's figures
};

void runBench(const BenchOptions& options);

}  // namespace planet
