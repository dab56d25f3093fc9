#pragma once
// Internal to export/ (included only by .cpp files): the pieces planet.glb is made of, as
// "groups" of concatenated arrays. A level's land (chunks, or pieces small enough for uint16
// indices, seams split for the texture coordinates), the ocean over it, collision meshes.

#include <cstddef>
#include <string>
#include <vector>

#include <glm/vec2.hpp>
#include <glm/vec3.hpp>
#include <glm/vec4.hpp>

#include "export/detail/chunk_buffers.h"
#include "export/detail/chunks.h"
#include "export/detail/surface_buffers.h"
#include "export/planet_surface.h"

namespace planet_export {

// The vertex data of one level's full mesh, which its chunks slice.
struct LandData {
  PlanetBuffers buffers;
  std::vector<glm::vec3> linear_colours;
  std::vector<float> biome_values;
  std::vector<std::string> scalar_names;
  LandVertexData vertex;
};

// landData: the buffers (validateSurface first), linear colours and the scalar attributes.
LandData landData(const PlanetSurface& surface);

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

// 0 (one piece) when the whole mesh fits uint16 indices, else the smallest k (dividing f) whose
// 20 k^2 lattice chunks do; both with room for the copies splitSeam adds (the seam crosses
// about 2.9 f edges of the mesh, 2.9 m of a chunk; the poles add 5 each).
int autoChunks(int frequency);

// partitionChunks, or for chunks = 0 one piece of every face and vertex (no borders).
ChunkPartition partitionPieces(const geodesy::SphereMesh& mesh, int chunks);

// The land of one level as pieces: the chunks of buildChunkedLand (chunks = 0: the whole mesh
// as one piece), seams split for the texture coordinates. world: positions in the planet frame
// (one node for all pieces) rather than in each chunk's frame. tangents: fill Group::tangents.
Group landGroup(const PlanetSurface& surface, const LandData& data, int chunks, double skirt_m,
                bool world, bool tangents);

// The ocean over the land mesh (oceanCover) at oceanRadius, in the planet frame, cut into the
// same pieces as the land.
Group oceanGroup(const PlanetSurface& surface, int chunks);

// Collision pieces: the land of `surface` (a coarser level) cut into 20 k^2 chunks, positions
// only, each chunk in its own frame (chunk_frames.h) unless world.
Group collisionGroup(const PlanetSurface& surface, int chunks, bool world);

}  // namespace planet_export
