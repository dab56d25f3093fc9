#pragma once
// A tile resampled onto a square grid for engine heightmap terrains (export/tile_heightmap.h):
// the square around the tile in the plane tangent to the sphere at its centre, +x east, +y
// north, 2^n + 1 samples a side with 2^n >= T (samples no farther apart than the tile's
// vertices, give or take the projection). A sample's height is the level's surface under it as
// the tile's mesh draws it: linear over the lattice triangle that holds it, from the tile's own
// heights inside the tile and the generator's heights of the same level around it (the square
// reaches past the triangle), so neighbouring tiles' squares agree where they overlap.

#include <span>

#include "export/tile_heightmap.h"
#include "tiles/tile_generator.h"

namespace planet {

// Heights of a tile of the mesh's level made before (TileMesh::height_m; T + 1 choose 2 + ...
// one per vertex): the grid takes the heights of lattice points outside its tile from such
// tiles where they hold them, instead of asking the generator (the same values:
// TileGenerator::heights gives what generate gives).
struct KnownTile {
  tiles::TileId id;
  std::span<const float> height_m;
};

// Parallel on the caller's oneTBB arena; the same values for any thread count and any `known`.
planet_export::TileHeightmap tileHeightmap(const tiles::TileGenerator& generator,
                                           const tiles::TileMesh& mesh,
                                           std::span<const KnownTile> known = {});

}  // namespace planet
