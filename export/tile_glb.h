#pragma once
// One terrain tile as a glb, the content of a 3D Tiles tileset (tileset_json.h) or a mesh a game
// streams: the tile's centre as the node's translation in double precision (glTF's JSON numbers),
// float32 positions relative to it, so a tile on an Earth-sized planet keeps its millimetres;
// NORMAL; the height and the parent level's height at each vertex as the custom attributes
// _HEIGHT and _PARENT_HEIGHT (float32, metres above the planet's radius), from which a shader
// morphs between levels (CDLOD); optional skirts under the edges. Frame: the planet's, +Y north,
// longitude 0 on +X, 90 degrees east on -Z, which is glTF's y-up frame; 3D Tiles' y-up to z-up
// rotation takes it to ECEF exactly (docs/tiles.md).

#include <array>
#include <cstdint>
#include <filesystem>
#include <span>

#include <glm/vec3.hpp>

namespace planet_export {

struct TileGlb {
  glm::dvec3 centre_m{0.0};                // the node's translation, planet frame
  std::span<const glm::vec3> positions_m;  // relative to centre_m
  std::span<const glm::vec3> normals;      // unit
  std::span<const float> height_m;         // _HEIGHT
  std::span<const float> parent_height_m;  // _PARENT_HEIGHT
  // Three vertex indices per triangle, counter-clockwise seen from outside the planet.
  std::span<const uint32_t> indices;
  // Skirts: each edge's vertices in order, the tile on their left seen from outside. Under each
  // edge hangs a wall skirt_depth_m deep toward the planet's centre; its vertices carry the
  // edge's normals and heights lowered by the depth. Depth 0: no skirts.
  std::array<std::span<const uint32_t>, 3> edges;
  double skirt_depth_m = 0.0;
  // The tile's name on the node and in its extras ({"planetgen_tile": {...}}).
  uint32_t base = 0;
  uint32_t level = 0;
  uint64_t index = 0;
  double spacing_m = 0.0;  // the level's lattice spacing
};

// A skirt vertex's offset from the centre: the edge vertex at centre_m + offset lowered by
// depth_m toward the planet's centre (in double, about the centre, so the float offset keeps
// its precision). The glb stores exactly this.
glm::vec3 skirtOffset(const glm::dvec3& centre_m, const glm::vec3& offset, double depth_m);

// Writes the glb to path (every write checked). Throws std::invalid_argument for arrays that do
// not fit together (sizes, indices out of range), std::runtime_error naming the path when a
// write fails. Thread-safe for distinct paths; the bytes depend only on the input.
void writeTileGlb(const std::filesystem::path& path, const TileGlb& tile);

}  // namespace planet_export
