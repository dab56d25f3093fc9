#pragma once
// A bake (`planetgen tiles`): the tiles of a region (tile_region.h) written into a folder, all or
// nothing (io::OutputTransaction), as an OGC 3D Tiles 1.1 tileset: per tile
//   tile_<level>_<base>_<index>.glb          the mesh (export/tile_glb.h)
//   tile_<level>_<base>_<index>_height.png   its heights on a square grid (16-bit)
//   tile_<level>_<base>_<index>_height.json  how to read the png (export/tile_heightmap.h)
// and tileset.json over the glbs. Tiles stream to the staging folder as they are made, a few at a
// time (as many as threads), so memory does not grow with the region.
//
// Shards: with shards = N, shard K (0 <= K < N) makes every N-th tile of the plan from the K-th,
// and shard 0 also writes tileset.json, whose boxes bound the tiles' vertices: it makes the
// other shards' tiles too for their extents (not their files). The N folders' files are
// disjoint, and together they are the files of one bake: copy them into one folder.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "planet/tile_region.h"
#include "tiles/tile_generator.h"

namespace planet {

struct TileBakeOptions {
  TileRegion region;
  double spacing_m = 30.0;  // the finest level is the coarsest whose spacing is at most this
  int shard = 0;            // 0 .. shards - 1
  int shards = 1;
  bool skirts = true;
  // The planet's sea level (m above the radius), for viewers: tileset.json's extras.
  double sea_level_m = 0.0;
  int threads = 1;  // tiles in flight at once (each made in parallel on the caller's arena)
  // Called on one thread at a time as each tile is written: tiles done, tiles of this shard.
  std::function<void(size_t done, size_t total)> on_tile;
};

struct TileBakeResult {
  int level = 0;                      // the finest level
  double spacing_m = 0.0;             // its lattice spacing
  size_t plan_tiles = 0;              // tiles in the tileset
  size_t shard_tiles = 0;             // tiles this shard made
  size_t region_tiles = 0;            // tiles of the finest level meeting the region
  uint64_t vertices = 0;              // vertices this shard made (without skirts)
  std::vector<std::string> warnings;  // the output transaction's, for the user
};

// The file stem of a tile: "tile_<level>_<base>_<index>".
std::string tileFileStem(const tiles::TileId& id);

// Bakes into `folder`. Throws std::invalid_argument for options that do not fit (a spacing the
// deepest level does not reach, a shard out of range), std::runtime_error naming the path when a
// write fails; the folder then holds what it held before.
TileBakeResult bakeTiles(const tiles::TileGenerator& generator, const TileBakeOptions& options,
                         const std::filesystem::path& folder);

// The tileset.json text of a plan (written by bakeTiles on shard 0): the tiles' boxes from each
// plan tile's content extent (tileContentExtent, with the skirts the bake writes), the planet's
// sphere (3DTILES_ellipsoid) and the region, finest level and sea level (extras.planetgen).
std::string tilesetJsonOf(const tiles::TileGenerator& generator, const TileBakePlan& plan,
                          const TileBakeOptions& options, std::span<const BoxExtent> content);

}  // namespace planet
