#pragma once
// Tile names. A tile is a triangle of a quadtree on one of the 20 base faces of the
// icosahedron: at level L the base face is cut into 4^L triangles, the faces of the lattice of
// frequency n = 2^L on that base face (geodesy/lattice.h), numbered like the mesh's faces: row
// j holds the up triangles (i, j), (i + 1, j), (i, j + 1) at 2i and the down triangles
// (i + 1, j), (i + 1, j + 1), (i, j + 1) at 2i + 1, for i < n - j (down: i < n - j - 1).
// Each triangle's four children are its corner triangles and the middle one of level L + 1.

#include <cstdint>

namespace tiles {

struct TileId {
  uint32_t base = 0;   // base face, 0..19
  uint32_t level = 0;  // 0 = the whole base face
  uint64_t index = 0;  // triangle number in the level's lattice, < 4^level

  friend bool operator==(const TileId&, const TileId&) = default;
};

// The tile's triangle in its base face's lattice of frequency 2^level.
struct TileSlot {
  uint64_t i = 0;
  uint64_t j = 0;
  bool down = false;
};

// Triangle number <-> (i, j, down) in the lattice of frequency n (n <= 2^27).
uint64_t slotIndex(uint64_t n, const TileSlot& slot);
TileSlot slotOf(uint64_t n, uint64_t index);  // index < n^2

// A tile id as one 64-bit key (for hash maps and files): level in bits 59..63, base face in
// bits 54..58, index in bits 0..53. Keys sort by level, then base face, then index.
uint64_t packTileId(const TileId& id);
TileId unpackTileId(uint64_t key);

}  // namespace tiles
