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
#include "export/detail/group.h"
#include "export/planet_surface.h"

namespace planet_export {

// The vertex data of one level's full mesh, which its chunks slice.
struct LandData {
  LandVertexData vertex;  // the linear colour, the scalars' values
  std::vector<std::string> scalar_names;
};

// landData: the linear colour (a function of the vertex) and the scalar attributes of a
// surface that passes validateSurface, which must outlive the data.
LandData landData(const PlanetSurface& surface);

// 0 (one piece) when the whole mesh fits uint16 indices, else the smallest k (dividing f) whose
// 20 k^2 lattice chunks do; both with room for the copies splitSeam adds (the seam crosses
// about 2.9 f edges of the mesh, 2.9 m of a chunk; the poles add 5 each).
int autoChunks(int frequency);

// partitionChunks, or for chunks = 0 one piece of every face and vertex (no borders).
ChunkPartition partitionPieces(const geodesy::SphereMesh& mesh, int chunks);

// The land of one level as pieces: the chunks of buildChunkedLand for a partition into chunks
// (partitionChunks of surface.mesh), or for partitionPieces(mesh, 0) the whole mesh as one
// piece, its seam split here. world: positions in the planet frame (one node for all pieces)
// rather than in each chunk's frame. tangents: fill Group::tangents. Takes data's arrays, so a
// level's data serves one group; chunks make their arrays on demand (buildChunkedLand), so the
// partition must outlive the group.
Group landGroup(const PlanetSurface& surface, LandData& data, const ChunkPartition& partition,
                double skirt_m, bool world, bool tangents);

// The ocean over the land mesh (oceanCover) at oceanRadius, in the planet frame, cut into the
// pieces of `partition` (partitionPieces of surface.mesh).
Group oceanGroup(const PlanetSurface& surface, const ChunkPartition& partition);

// Collision pieces: the land of `surface` (a coarser level) cut into 20 k^2 chunks, positions
// only, each chunk in its own frame (chunk_frames.h) unless world.
Group collisionGroup(const PlanetSurface& surface, int chunks, bool world);

}  // namespace planet_export
