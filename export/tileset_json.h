#pragma once
// An OGC 3D Tiles 1.1 tileset.json over tile glbs (tile_glb.h): a tree of tiles, each with an
// oriented bounding box, a geometric error and optional glb content, refined by replacement.
//
// Frame: the boxes come in the planet's frame (+Y north, longitude 0 on +X, 90 degrees east on
// -Z: glTF's y-up frame, which the glbs use). A tileset's own frame is z-up; 3D Tiles rotates
// glTF content from y-up to z-up by (x, y, z) -> (x, -z, y) (3D Tiles 1.1, "y-up to z-up"), which
// takes the planet's frame to ECEF exactly: longitude 0 stays on +X, 90 degrees east lands on
// +Y, north on +Z. The writer applies the same rotation to the boxes, so the tileset needs no
// root transform and sits on an ECEF globe (a sphere of the planet's radius, not WGS84).

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace planet_export {

struct TilesetTile {
  // Oriented box in the planet frame (metres): centre, then the three half-axis vectors.
  std::array<double, 12> box{};
  double geometric_error_m = 0.0;
  std::string content_uri;         // relative to tileset.json; empty: no content
  std::vector<uint32_t> children;  // indices into the tile list
};

// The planet frame to the tileset's z-up frame (ECEF for a planet on a globe).
inline std::array<double, 3> zUpOf(double x, double y, double z) {
  return {x, -z, y};
}

// What a viewer needs to know beyond the tiles: the sphere they sit on, written as the
// 3DTILES_ellipsoid extension (radii R, R, R; read by cesium-native and the three.js 3D Tiles
// renderer), and the baked region, written as the tileset's extras.planetgen (docs/tiles.md).
struct TilesetPlanet {
  double radius_m = 0.0;  // 0: neither the extension nor the extras are written
  double sea_level_m = 0.0;
  double region_lat_deg = 0.0;
  double region_lon_deg = 0.0;
  double region_radius_m = 0.0;
  int finest_level = 0;
  double finest_spacing_m = 0.0;
};

// tileset.json text: tiles[root] is the root (refine REPLACE, inherited by every tile); its
// geometric error is also the tileset's. Every tile must be reachable from the root once.
// `generator` goes into asset.generator. Throws std::invalid_argument for a child index out of
// range or a tile reached twice.
std::string tilesetJson(std::span<const TilesetTile> tiles, uint32_t root,
                        const std::string& generator, const TilesetPlanet& planet = {});

}  // namespace planet_export
