#pragma once
// `planetgen bench`: speed and memory figures, one JSON line per figure on stdout.

#include <cstdint>
#include <vector>

namespace app {

struct BenchOptions {
  std::vector<int> frequencies{256, 1024};
  std::vector<int> threads{1, 2};
  uint64_t droplets = 500000;  // erosion figures; 0 skips erosion
  bool with_export = true;
  bool fluvial = true;  // the fluvial stage's figures
  // The default config's whole pipeline at each frequency: every stage (stage_<name>_s), every
  // export output (export_<file>_s) and the run's peak memory per vertex.
  bool pipeline = true;
  // The tile figures (tile_*, and tiles_region_* when tiles_region_km > 0).
  bool tiles = true;
  // tiles_region_s: a cap of this radius (km) baked at 30 m with its ancestors; the default
  // covers 10^4 km^2, the area of a 100 km x 100 km region. 0 skips it.
  double tiles_region_km = 56.42;
  // The same region baked again with the tiles' erosion (tiles_region_eroded_*).
  bool tiles_region_erosion = false;
  // The eroding generators' window cache, MiB (TileErosionParams::cache_bytes).
  double tiles_cache_mib = 256.0;
  // The eroding generators with relief levels (TileErosionParams::relief).
  bool tiles_relief = false;
  int tiles_halo = 0;                 // 0: the library's default
  double tiles_bump_fraction = 0.0;   // 0: the library's default
  int tiles_window_subdivision = -1;  // -1: the library's default
};

void runBench(const BenchOptions& options);

}  // namespace app
