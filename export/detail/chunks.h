#pragma once
// Chunks of an icosphere along the icosahedron lattice: each of the 20 base faces is cut into
// k^2 sub-triangles (k = chunks per base edge), 20 k^2 chunks in all. With f = m k, a chunk
// holds m^2 faces and (m + 1)(m + 2) / 2 vertices; chunks that touch share the vertices on
// their common border (same global vertex ids).
//
// Numbering: chunk id = base_face * k^2 + the index the sub-triangle would have as a face of
// an icosphere of frequency k (geodesy's face numbering, row by row, up and down triangles
// interleaved). So the chunks of a level whose frequency is a multiple of k line up with the
// chunks of every other such level.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "geodesy/sphere_mesh.h"

namespace planet_export {

struct ChunkPartition {
  int chunks_per_edge = 0;  // k
  // Faces of chunk c, ascending: faces[face_offsets[c] .. face_offsets[c + 1]).
  std::vector<uint32_t> face_offsets;
  std::vector<uint32_t> faces;
  // Vertices of chunk c, ascending global ids: vertices[vertex_offsets[c] .. [c + 1]).
  std::vector<uint32_t> vertex_offsets;
  std::vector<uint32_t> vertices;
  // Border edges of chunk c (edges whose other face lies in another chunk), as (from, to)
  // global vertex ids in the counter-clockwise order of the chunk's face, so the chunk lies
  // to the left: border_edges[2 * border_offsets[c] .. 2 * border_offsets[c + 1]).
  std::vector<uint32_t> border_offsets;
  std::vector<uint32_t> border_edges;

  size_t chunkCount() const { return face_offsets.empty() ? 0 : face_offsets.size() - 1; }
  std::span<const uint32_t> verticesOf(size_t c) const {
    return {&vertices[vertex_offsets[c]], vertex_offsets[c + 1] - vertex_offsets[c]};
  }
};

// Empty if k >= 1 divides the frequency, else a message saying why not.
std::string chunkingProblem(int frequency, int chunks_per_edge);

// Chunk id of a face of an icosphere of this frequency (a multiple of chunks_per_edge).
uint32_t chunkOfFace(int frequency, int chunks_per_edge, uint32_t face);

// Partitions the mesh's faces. The mesh must come from geodesy::buildIcosphere (its face
// numbering is relied on). Throws std::invalid_argument with chunkingProblem's message.
// Parallel over faces on the caller's oneTBB arena; the result does not depend on threads.
ChunkPartition partitionChunks(const geodesy::SphereMesh& mesh, int chunks_per_edge);

// Sorts ids ascending and drops repeats (std::sort + std::unique, by three 11-bit radix
// passes: the vertex lists of chunks and ocean pieces, where std::sort cost 13 % of a f = 256
// run). Not parallel; the result is the same as sort + unique.
void sortUnique(std::vector<uint32_t>& ids);

}  // namespace planet_export
