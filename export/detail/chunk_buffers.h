#pragma once
// The land of one level cut into chunks (chunks.h) in their own frames (chunk_frames.h), seams
// split for the texture coordinates (splitSeam), as the group (group.h) the GLB writer encodes.
//
// Chunks share their border vertices exactly: per-vertex data (normals, colours, attributes)
// is computed once on the full mesh and then copied, and positions are local to frames that
// reconstruct the same world position in every chunk. Optional skirts hang a strip of
// triangles from each chunk's border, `skirt_depth_m` straight down (toward the centre), to
// hide cracks between chunks drawn at different levels of detail.

#include <cstdint>
#include <functional>
#include <span>
#include <variant>
#include <vector>

#include <glm/vec3.hpp>

#include "export/detail/chunks.h"
#include "export/detail/group.h"
#include "export/planet_surface.h"

namespace planet_export {

// A scalar attribute's values, one per mesh vertex: floats, or classes (biome ids) written as
// floats.
using ScalarValues = std::variant<std::span<const float>, std::span<const uint8_t>>;

// Per-vertex data of the full mesh of the level, as functions or views of the surface, so no
// per-vertex array is held for it (the vertex normals are made when needed).
struct LandVertexData {
  // The linear colour of a mesh vertex; called in parallel.
  std::function<glm::vec3(uint32_t)> colour;
  std::vector<ScalarValues> scalars;  // e.g. _ELEVATION, _BIOME, _EROSION
};

// Cuts the land of `surface` (which must pass validateSurface) into the 20 k^2 chunks of
// `partition` (partitionChunks of surface.mesh), one piece each: piece c holds chunk c's surface
// vertices (ascending global id) and their seam copies, then one skirt vertex under each border
// vertex (ascending) and the skirt's seam copies; its indices are the surface triangles, then the
// skirt's (surface_indices[c] of the first). Skirt vertices copy the normal, colour and scalars of
// the border vertex above them; skirt triangles face away from their chunk. skirt_depth_m = 0 means
// no skirts. Positions are local to the chunk's frame (Group::translations, Group::grid_m), or with
// world, that local position plus the translation as float, and translations 0. tangents: fill
// Group::tangents (equirectTangent). Throws std::invalid_argument if the depth is negative or not
// finite. Parallel on the caller's arena; the result does not depend on the thread count.
// The group makes its vertex arrays on demand (Group::make) from `data`, the surface and the
// partition, which must outlive it (the writer's peak memory: no vertex array is made before
// the writer asks for it; the mesh's vertex normals are computed for the normals and, with
// tangents, the tangents, then freed).
Group buildChunkedLand(const PlanetSurface& surface, LandVertexData&& data,
                       const ChunkPartition& partition, double skirt_depth_m, bool world,
                       bool tangents);

}  // namespace planet_export
