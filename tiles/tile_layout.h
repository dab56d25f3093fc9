#pragma once
// Which lattice each tile level uses, and the quadtree's addressing: parent, children,
// neighbours across tile edges (also across base-face edges) and the tiles around the 12
// five-face corners, with the checks that refuse a tile id that does not exist.
//
// Level L has lattice frequency F_L = T * 2^L, T lattice steps per tile edge. The planet's
// vertices are the lattice points of its frequency f, so they are points of every level at
// least as fine as the planet exactly when f divides F_L. With f = 2^a * o, o odd, that needs
// o | T: T is therefore derived from f and the requested edge, as o * 2^k (k >= 1, so that
// every tile corner is also a point of the level above, for morphing) -- the largest such
// value not above the request, or 2 o when 2 o already exceeds it. For the usual planet
// frequencies (powers of two) T is the request itself.
//
// Thread-safe: a TileLayout is an immutable value.

#include <array>
#include <cstdint>

#include "tiles/lattice_point.h"
#include "tiles/tile_id.h"

namespace tiles {

// Largest requested tile edge: 8192 steps (33.5 M vertices per tile).
constexpr int kMaxTileEdge = 8192;

// The tile across one edge of a tile, and which of its edges that is (they run opposite ways).
struct TileNeighbour {
  TileId id;
  int edge = 0;
};

class TileLayout {
 public:
  // planet_frequency in [1, geodesy::kMaxFrequency]; requested_edge in [2, kMaxTileEdge].
  // Throws std::invalid_argument naming the value and the allowed range otherwise.
  TileLayout(int planet_frequency, int requested_edge);

  int planetFrequency() const { return planet_frequency_; }
  // T: lattice steps per tile edge; (T + 1)(T + 2) / 2 vertices per tile.
  int tileEdge() const { return tile_edge_; }
  uint64_t verticesPerTile() const { return uint64_t(tile_edge_ + 1) * (tile_edge_ + 2) / 2; }
  // The coarsest level that holds every planet vertex (f divides F_L). Coarser levels hold a
  // subset of the planet's vertices.
  int planetLevel() const { return planet_level_; }
  // The finest level: F_L <= kMaxLatticeFrequency, so lattice ids fit 64 bits.
  int deepestLevel() const { return deepest_level_; }

  uint64_t levelFrequency(int level) const { return uint64_t(tile_edge_) << level; }
  // Lattice step (radians on the unit sphere) of a level: the base-face edge arc over F_L.
  double levelSpacingRad(int level) const;
  // The coarsest level whose mean lattice step on a sphere of radius_m is at most spacing_m
  // (the deepest level if none is). Throws std::invalid_argument unless both are finite and
  // positive (a spacing often comes from a user or a file).
  int levelForSpacing(double spacing_m, double radius_m) const;

  // Throws std::invalid_argument if id names no tile of this layout (base face >= 20, level
  // past deepestLevel(), index >= 4^level), with a message that says which and what is allowed.
  void check(const TileId& id) const;

  // Addressing; each checks its argument like check(). parent() throws at level 0 and
  // children() at the deepest level.
  TileId parent(const TileId& id) const;
  std::array<TileId, 4> children(const TileId& id) const;  // corners 0, 1, 2, then the middle
  // neighbours()[k] shares the tile's edge k (from its corner k to corner k + 1).
  std::array<TileNeighbour, 3> neighbours(const TileId& id) const;
  // The five tiles of a level that meet at icosahedron corner `corner` (0..11),
  // counter-clockwise seen from outside, starting in the lowest-numbered base face.
  std::array<TileId, 5> cornerTiles(int corner, int level) const;

  // The tile's corners as lattice points of its level, in its base face's chart (not
  // canonical), counter-clockwise.
  std::array<LatticePoint, 3> tileCorners(const TileId& id) const;
  // Lattice point of the tile's vertex (u, v), u, v >= 0, u + v <= T: corner 0 + u steps
  // toward corner 1 + v steps toward corner 2, in the base face's chart.
  LatticePoint vertexPoint(const TileId& id, uint32_t u, uint32_t v) const;

  // 64-bit name of a lattice point of `level`, the same at every level that holds the point
  // (coordinates scaled to the deepest level's lattice) and for every base face that holds
  // it: canonical base face in bits 58..62, i and j in bits 29..57 and 0..28.
  uint64_t latticeId(int level, const LatticePoint& p) const;
  // The canonical point of a lattice id, at the deepest level's frequency.
  LatticePoint pointOfLatticeId(uint64_t id) const;

 private:
  int planet_frequency_ = 0;
  int tile_edge_ = 0;
  int planet_level_ = 0;
  int deepest_level_ = 0;
};

}  // namespace tiles
