#pragma once
// The land of one level cut into chunks (chunks.h) in their own frames (chunk_frames.h), seams
// split for the texture coordinates (splitSeam), as the group (group.h) the GLB writer encodes.
//
// Chunks share their border vertices exactly: per-vertex data (normals, colours, attributes)
// is computed once on the full mesh and then copied, and positions are local to frames that
// reconstruct the same world position in every chunk. Optional skirts hang a strip of
// triangles from each chunk's border, `skirt_depth_m` straight down (toward the centre), to
// hide cracks between chunks drawn at different levels of detail.

#include <span>
#include <vector>

#include <glm/vec3.hpp>

#include "export/detail/chunks.h"
#include "export/detail/group.h"
#include "export/planet_surface.h"

namespace planet_export {

// Per-vertex data of the full mesh of the level, one entry per mesh vertex.
struct LandVertexData {
  std::vector<glm::vec3> normals;
  std::vector<glm::vec3> colours;               // linear
  std::vector<std::span<const float>> scalars;  // e.g. _ELEVATION, _BIOME, _EROSION
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
// The normals and colours of `data` are freed as soon as the group has its copies (both are
// not held whole at once: the writer's peak memory); the scalars' arrays stay the caller's.
Group buildChunkedLand(const PlanetSurface& surface, LandVertexData&& data,
                       const ChunkPartition& partition, double skirt_depth_m, bool world,
                       bool tangents);

}  // namespace planet_export
