#pragma once
// The land of one level cut into chunks (chunks.h) in their own frames (chunk_frames.h), as
// the GLB writer stores it: every array holds all chunks one after another.
//
// Chunks share their border vertices exactly: per-vertex data (normals, colours, attributes)
// is computed once on the full mesh and then copied, and positions are local to frames that
// reconstruct the same world position in every chunk. Optional skirts hang a strip of
// triangles from each chunk's border, `skirt_depth_m` straight down (toward the centre), to
// hide cracks between chunks drawn at different levels of detail.

#include <cstdint>
#include <span>
#include <vector>

#include <glm/vec3.hpp>

#include "export/detail/chunk_frames.h"
#include "export/planet_surface.h"

namespace planet_export {

// Per-vertex data of the full mesh of the level, one entry per mesh vertex.
struct LandVertexData {
  std::span<const glm::vec3> normals;
  std::span<const glm::vec3> colours;
  std::vector<std::span<const float>> scalars;  // e.g. _ELEVATION, _BIOME, _EROSION
};

struct ChunkedLand {
  int chunks_per_edge = 0;
  ChunkFrames frames;
  // Chunk c owns vertices [vertex_offsets[c], vertex_offsets[c + 1]) of the arrays below: its
  // surface vertices first (surface_vertices[c] of them, ascending global id), then one skirt
  // vertex under each border vertex. Likewise indices [index_offsets[c], index_offsets[c + 1]):
  // surface_indices[c] surface triangle corners, then the skirt's. Indices are local to the
  // chunk (0 = its first vertex); surface indices only name surface vertices.
  std::vector<uint32_t> vertex_offsets;
  std::vector<uint32_t> surface_vertices;
  std::vector<uint32_t> index_offsets;
  std::vector<uint32_t> surface_indices;
  std::vector<uint32_t> global_vertex;  // full-mesh vertex each chunk vertex comes from
  std::vector<glm::vec3> positions;     // metres, local to frames.translations[chunk]
  std::vector<glm::vec3> normals;
  std::vector<glm::vec3> colours;
  std::vector<std::vector<float>> scalars;  // parallel to LandVertexData::scalars
  std::vector<uint32_t> indices;

  size_t chunkCount() const { return surface_vertices.size(); }
};

// Cuts the land of `surface` (which must pass validateSurface) into 20 k^2 chunks. Skirt
// vertices copy the normal, colour and scalars of the border vertex above them; skirt
// triangles face away from their chunk. skirt_depth_m = 0 means no skirts. Throws
// std::invalid_argument if k does not divide the frequency or the depth is negative or not
// finite. Parallel on the caller's arena; the result does not depend on the thread count.
ChunkedLand buildChunkedLand(const PlanetSurface& surface, const LandVertexData& data,
                             int chunks_per_edge, double skirt_depth_m);

}  // namespace planet_export
