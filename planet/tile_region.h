#pragma once
// Which tiles a bake makes (`planetgen tiles`): the tiles of the level whose spacing is at most
// the requested one that cover a region, and every coarser ancestor up to the 20 base faces, as
// one 3D Tiles tree. Refinement is by replacement, so a refined tile lists all four children
// (else the children would leave holes where the parent was): the tree is refined only where
// the region is, and the children outside it stay leaves. With each tile its bounding box and
// geometric error: the boxes bound the made tiles' vertices (tileBoxes).

#include <array>
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include <glm/vec3.hpp>

#include "tiles/tile_generator.h"

namespace planet {

// A cap of the sphere: every point within radius_m (along the surface) of the centre.
struct TileRegion {
  double lat_deg = 0.0;
  double lon_deg = 0.0;
  double radius_m = 0.0;
};

struct BakeTile {
  tiles::TileId id;
  int64_t parent = -1;             // index into TileBakePlan::tiles; -1 at level 0
  std::vector<uint32_t> children;  // indices; empty for a leaf
  bool in_region = false;          // the tile meets the region
};

struct TileBakePlan {
  int level = 0;  // the finest level
  // Level by level (level 0: base faces 0..19), each level in the order of its parents, each
  // parent's children in TileLayout::children order.
  std::vector<BakeTile> tiles;
};

// The tiles of `level` meeting the region, with their ancestors and the ancestors' other
// children. A tile meets the region when the cap reaches its triangle (its corners joined by
// great circles, widened by a level step for the lattice lines' bend), so a tile the cap only
// grazes may be included, none it covers left out.
TileBakePlan planTileBake(const tiles::TileGenerator& generator, const TileRegion& region,
                          int level);

// Which shard (0 .. shards - 1) makes tile `k` of a plan: round robin over the plan's order, so
// each shard gets every level's share.
inline int shardOf(size_t k, int shards) {
  return int(k % size_t(shards));
}

// Depth of the skirts under a tile's edges: how much the heights along its edges vary (a
// coarser neighbour's edge runs between two of their points, so its crack is no deeper), plus
// a hundredth of the level's spacing against the float offsets' rounding.
double skirtDepth(const tiles::TileMesh& mesh, double spacing_m);

// A tile's box frame: east, north and up (unit, planet frame) at the direction of the mean of
// its corners.
struct BoxFrame {
  glm::dvec3 axes[3];
};
BoxFrame tileBoxFrame(const tiles::TileGenerator& generator, const tiles::TileId& id);

// How far points reach along a frame's axes (metres from the planet's centre).
struct BoxExtent {
  double lo[3] = {INFINITY, INFINITY, INFINITY};
  double hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  void add(const BoxFrame& frame, const glm::dvec3& p);
};

// The extent of a made tile's vertices as its glb stores them (the double centre plus each
// float offset), with its skirts' vertices when skirt_depth_m > 0.
BoxExtent tileContentExtent(const BoxFrame& frame, const tiles::TileMesh& mesh,
                            double skirt_depth_m);

// The 3D Tiles box (centre, then the three half-axis vectors; planet frame) of an extent in
// its frame, widened by kBoxMarginM on every side against the rounding of the sums.
constexpr double kBoxMarginM = 1e-3;
std::array<double, 12> boxOf(const BoxFrame& frame, const BoxExtent& extent);

// The bounding boxes of a plan's tiles from their content's extents (tileContentExtent, in
// tileBoxFrame; one per plan tile): each tile's box is the least box in its frame that holds
// its own vertices and its children's boxes, so every box holds its tile and all descendants
// (3D Tiles: a parent's volume encloses its children's).
std::vector<std::array<double, 12>> tileBoxes(const tiles::TileGenerator& generator,
                                              const TileBakePlan& plan,
                                              std::span<const BoxExtent> content);

// Geometric error of a tile of `level` (3D Tiles: metres of error when it is drawn instead of
// its children): the level's lattice spacing, the size of the detail a mesh of that spacing
// leaves out.
double tileGeometricError(const tiles::TileGenerator& generator, int level);

// The unit direction of a latitude and longitude (degrees).
glm::dvec3 directionOf(double lat_deg, double lon_deg);

}  // namespace planet
