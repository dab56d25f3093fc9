#pragma once
// `planetgen tiles --compare-rain`: compare's weather-versus-uniform question asked of a region
// at the tiles' scales. The region's tiles of the finest level are made three times from one
// planet: without the tiles' erosion, eroded under the planet's own rain (its clouds), and
// eroded under uniform rain (the planet's mean over land everywhere); only where the droplets
// fall differs. Written: top-down pictures of the three (no vertical exaggeration), the change
// of each eroded one, the rain, and metrics.json (docs/tile_erosion.md, "Weather up close").

#include <filesystem>
#include <string>
#include <vector>

#include "planet/planetgen.h"
#include "planet/tile_region.h"
#include "tiles/tile_generator.h"

namespace planet {

// The most tiles a comparison makes (three times each; about 200 bytes a vertex held for the
// pictures: 100 tiles of T = 256 hold about 700 MB).
inline constexpr size_t kMaxCompareTiles = 100;

struct TileCompareOptions {
  TileRegion region;
  double spacing_m = 30.0;  // the finest tiles: the coarsest level at most this fine
  int image_size = 1024;    // pixels along the pictures' longer side
  // Gullies (gully density): vertices with at least gully_cells lattice cells of drainage area
  // standing gully_depth_m or more below the mean of their six neighbours.
  double gully_cells = 20.0;
  double gully_depth_m = 0.5;
};

struct TileCompareResult {
  int level = 0;
  double spacing_m = 0.0;
  size_t tiles = 0;                   // tiles of `level` meeting the region, each made three times
  size_t vertices = 0;                // their vertices (shared edges counted in each tile)
  std::vector<std::string> warnings;  // the output transaction's (OutputTransaction::warnings)
};

// Runs the comparison and writes its files into out_dir, all or nothing. `params` are the
// tiles' parameters ([tiles]); erosion is switched on for the two eroded runs. Throws
// planetgen::ConfigError when the planet has no rain, the level is coarser than the tiles
// erode (TileErosionParams::max_spacing_m) or the region holds more than kMaxCompareTiles
// tiles, naming the value and what is allowed.
TileCompareResult compareTileRain(const planetgen::Planet& planet, const tiles::TileParams& params,
                                  const TileCompareOptions& options,
                                  const std::filesystem::path& out_dir);

}  // namespace planet
