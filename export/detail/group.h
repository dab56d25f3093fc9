#pragma once
// Internal to export/: a "group", the pieces of one mesh set of planet.glb (a level's land,
// the ocean, collision hulls) as concatenated arrays, which encodeGroup writes.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include <glm/vec2.hpp>
#include <glm/vec3.hpp>
#include <glm/vec4.hpp>

namespace planet_export {

// A group's vertex arrays, in the order encodeGroup writes them.
enum class VertexArray { kPositions, kNormals, kTangents, kUvs, kColours, kScalar };

// The pieces of one mesh set (a level's land, the ocean, collision hulls), every array holding
// all pieces one after another. Piece p owns vertices [vertex_offsets[p], vertex_offsets[p+1])
// and indices [index_offsets[p], index_offsets[p+1]) (local to the piece; the first
// surface_indices[p] are the surface, the rest skirts).
struct Group {
  std::vector<glm::vec3> positions;  // metres, local to translations[p]
  std::vector<glm::vec3> normals;
  std::vector<glm::vec3> colours;  // linear; empty for the ocean and collision
  std::vector<glm::vec2> uvs;      // empty for the ocean and collision
  std::vector<glm::vec4> tangents;
  std::vector<std::vector<float>> scalars;
  std::vector<uint32_t> indices;
  std::vector<size_t> vertex_offsets{0};
  std::vector<size_t> index_offsets{0};
  std::vector<size_t> surface_indices;
  std::vector<size_t> surface_vertices;  // per piece: its first ones serve the surface
  std::vector<glm::dvec3> translations;
  double grid_m = 0.0;  // chunk frames' position grid (chunk_frames.h)
  // When set, the vertex arrays are made on demand: encodeGroup calls make(g, array, a) just
  // before it writes that array (a: the scalar's index for kScalar; scalars then holds one
  // empty array per scalar) and frees each once written, so a level's arrays are not all held
  // at once (the writer's peak memory). An array make leaves empty is not in the group.
  std::function<void(Group&, VertexArray, size_t)> make;

  size_t pieceCount() const { return surface_indices.size(); }
  size_t vertexCount(size_t p) const { return vertex_offsets[p + 1] - vertex_offsets[p]; }
  // surface_count: vertices the surface triangles may use (a prefix); default all.
  void closePiece(size_t surface, const glm::dvec3& translation, size_t surface_count = SIZE_MAX) {
    surface_vertices.push_back(std::min(surface_count, positions.size() - vertex_offsets.back()));
    vertex_offsets.push_back(positions.size());
    index_offsets.push_back(indices.size());
    surface_indices.push_back(surface);
    translations.push_back(translation);
  }
};

}  // namespace planet_export
