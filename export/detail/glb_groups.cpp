#include "export/detail/glb_groups.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <tbb/parallel_for.h>
#include <glm/common.hpp>
#include <glm/geometric.hpp>

#include "export/colour_ramps.h"
#include "export/detail/chunk_frames.h"
#include "export/detail/chunks.h"
#include "export/detail/engine_pieces.h"
#include "export/detail/surface_normals.h"

namespace planet_export {

LandData landData(const PlanetSurface& surface) {
  LandData data;
  data.buffers = buildPlanetBuffers(surface, false);
  const MeshBuffers& land = data.buffers.land;
  // glTF vertex colours are linear (glTF 2.0 spec 3.7.2.1); the ramps are sRGB.
  data.linear_colours.resize(land.positions.size());
  tbb::parallel_for(size_t(0), land.positions.size(), [&](size_t v) {
    const Rgb& c = land.colours[v];
    data.linear_colours[v] = {srgbToLinear(c.r), srgbToLinear(c.g), srgbToLinear(c.b)};
  });
  // The sRGB colours are not written to the glb; only the linear ones are.
  std::vector<Rgb>().swap(data.buffers.land.colours);
  data.vertex.normals = land.normals;
  data.vertex.colours = data.linear_colours;
  data.scalar_names.push_back("_ELEVATION");
  data.vertex.scalars.push_back(surface.elevation_m);
  if (!surface.biome.empty()) {
    data.biome_values.assign(surface.biome.begin(), surface.biome.end());
    data.scalar_names.push_back("_BIOME");
    data.vertex.scalars.push_back(data.biome_values);
  }
  for (const VertexAttribute& attribute : surface.attributes) {
    data.scalar_names.push_back(attribute.name);
    data.vertex.scalars.push_back(attribute.values);
  }
  return data;
}

// 0 (one piece) when the whole mesh fits uint16 indices, else the smallest k (dividing f) whose
// 20 k^2 lattice chunks do; both with room for the copies splitSeam adds (the seam crosses
// about 2.9 f edges of the mesh, 2.9 m of a chunk; the poles add 5 each).
int autoChunks(int frequency) {
  const size_t f = size_t(frequency);
  if (10 * f * f + 2 + 4 * f + 32 <= 65535) return 0;
  for (int k = 1; k < frequency; ++k) {
    if (frequency % k != 0) continue;
    const size_t m = size_t(frequency / k);
    if ((m + 1) * (m + 2) / 2 + 4 * m + 32 <= 65535) return k;
  }
  return frequency;
}

// partitionChunks, or for chunks = 0 one piece of every face and vertex (no borders).
ChunkPartition partitionPieces(const geodesy::SphereMesh& mesh, int chunks) {
  if (chunks > 0) return partitionChunks(mesh, chunks);
  ChunkPartition all;
  all.face_offsets = {0, uint32_t(mesh.faceCount())};
  all.faces.resize(mesh.faceCount());
  std::iota(all.faces.begin(), all.faces.end(), 0u);
  all.vertex_offsets = {0, uint32_t(mesh.vertexCount())};
  all.vertices.resize(mesh.vertexCount());
  std::iota(all.vertices.begin(), all.vertices.end(), 0u);
  all.border_offsets = {0, 0};
  return all;
}

Group landGroup(const PlanetSurface& surface, const LandData& data, int chunks, double skirt_m,
                bool world, bool tangents) {
  if (chunks == 0) {  // the whole mesh as one piece, in the planet frame
    const geodesy::SphereMesh& mesh = *surface.mesh;
    const MeshBuffers& land = data.buffers.land;
    const Piece piece = splitSeam(mesh.positions, mesh.indices, uint32_t(mesh.indices.size()));
    Group g;
    g.scalars.resize(data.vertex.scalars.size());
    for (size_t i = 0; i < piece.source.size(); ++i) {
      const uint32_t v = piece.source[i];
      g.positions.push_back(land.positions[v]);
      g.normals.push_back(land.normals[v]);
      g.colours.push_back(data.linear_colours[v]);
      g.uvs.push_back(piece.uv[i]);
      if (tangents) g.tangents.push_back(equirectTangent(land.normals[v], mesh.positions[v]));
      for (size_t a = 0; a < g.scalars.size(); ++a)
        g.scalars[a].push_back(data.vertex.scalars[a][v]);
    }
    g.indices = piece.indices;
    g.closePiece(piece.surface_indices, glm::dvec3(0.0));
    return g;
  }
  ChunkedLand land = buildChunkedLand(surface, data.vertex, chunks, skirt_m);
  const geodesy::SphereMesh& mesh = *surface.mesh;
  const auto direction = [&](size_t slot) { return mesh.positions[land.global_vertex[slot]]; };
  // Each chunk's seam split and vertex order in parallel; gathered in chunk order below.
  struct ChunkPiece {
    Piece piece;
    std::vector<uint32_t> order;  // new vertex -> piece vertex
    size_t surface_vertices = 0;
  };
  std::vector<ChunkPiece> split(land.chunkCount());
  tbb::parallel_for(size_t(0), land.chunkCount(), [&](size_t c) {
    const size_t first = land.vertex_offsets[c];
    std::vector<glm::vec3> directions;
    for (size_t slot = first; slot < land.vertex_offsets[c + 1]; ++slot)
      directions.push_back(direction(slot));
    const std::span<const uint32_t> indices(&land.indices[land.index_offsets[c]],
                                            land.index_offsets[c + 1] - land.index_offsets[c]);
    Piece piece = splitSeam(directions, indices, land.surface_indices[c]);
    // Surface vertices (and their copies) first, then the skirt's, so the surface primitive's
    // accessors cover a prefix, as in ChunkedLand.
    const auto is_surface = [&](uint32_t i) { return piece.source[i] < land.surface_vertices[c]; };
    std::vector<uint32_t> order(piece.source.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_partition(order.begin(), order.end(), is_surface);
    std::vector<uint32_t> new_of_old(order.size());
    for (uint32_t n = 0; n < order.size(); ++n) new_of_old[order[n]] = n;
    for (uint32_t& i : piece.indices) i = new_of_old[i];
    split[c].surface_vertices = size_t(
        std::count_if(order.begin(), order.end(), [&](uint32_t i) { return is_surface(i); }));
    split[c].piece = std::move(piece);
    split[c].order = std::move(order);
  });
  // The group's vertex n of chunk c is chunk slot first(c) + source[order[n]]; its texture
  // coordinates are the piece's own.
  std::vector<uint32_t> slot_of;
  std::vector<glm::vec2> uvs;
  Group g;
  g.grid_m = land.frames.grid_m;
  for (size_t c = 0; c < land.chunkCount(); ++c) {
    const ChunkPiece& chunk = split[c];
    for (uint32_t i : chunk.order) {
      slot_of.push_back(land.vertex_offsets[c] + chunk.piece.source[i]);
      uvs.push_back(chunk.piece.uv[i]);
    }
    g.indices.insert(g.indices.end(), chunk.piece.indices.begin(), chunk.piece.indices.end());
    g.vertex_offsets.push_back(slot_of.size());
    g.index_offsets.push_back(g.indices.size());
    g.surface_indices.push_back(chunk.piece.surface_indices);
    g.surface_vertices.push_back(chunk.surface_vertices);
    g.translations.push_back(world ? glm::dvec3(0.0) : land.frames.translations[c]);
  }
  split = {};
  g.uvs = std::move(uvs);
  // One attribute at a time, each chunked array freed as soon as it is gathered, so the
  // chunked land and the group are not held whole at once (the glb writer's peak memory).
  const auto gather = [&](auto& from) {
    std::remove_reference_t<decltype(from)> to(slot_of.size());
    tbb::parallel_for(size_t(0), slot_of.size(), [&](size_t n) { to[n] = from[slot_of[n]]; });
    std::remove_reference_t<decltype(from)>().swap(from);
    return to;
  };
  if (tangents) {
    g.tangents.resize(slot_of.size());
    tbb::parallel_for(size_t(0), slot_of.size(), [&](size_t n) {
      g.tangents[n] = equirectTangent(land.normals[slot_of[n]], direction(slot_of[n]));
    });
  }
  g.positions = gather(land.positions);
  if (world) {
    std::vector<size_t> chunk_of(slot_of.size());
    for (size_t c = 0; c < land.chunkCount(); ++c)
      for (size_t n = g.vertex_offsets[c]; n < g.vertex_offsets[c + 1]; ++n) chunk_of[n] = c;
    tbb::parallel_for(size_t(0), g.positions.size(), [&](size_t n) {
      const glm::dvec3& t = land.frames.translations[chunk_of[n]];
      g.positions[n] = glm::vec3(glm::dvec3(g.positions[n]) + t);
    });
  }
  g.normals = gather(land.normals);
  g.colours = gather(land.colours);
  for (std::vector<float>& values : land.scalars) g.scalars.push_back(gather(values));
  return g;
}

// The ocean over the land mesh (oceanCover) at oceanRadius, in the planet frame, cut into the
// same pieces as the land.
Group oceanGroup(const PlanetSurface& surface, int chunks) {
  const geodesy::SphereMesh& mesh = *surface.mesh;
  const double radius = oceanRadius(surface.radius_m, surface.sea_level_m);
  const ChunkPartition partition = partitionPieces(mesh, chunks);
  std::vector<OceanMesh> pieces(partition.chunkCount());
  tbb::parallel_for(size_t(0), pieces.size(), [&](size_t c) {
    const std::span<const uint32_t> faces(
        &partition.faces[partition.face_offsets[c]],
        partition.face_offsets[c + 1] - partition.face_offsets[c]);
    const OceanCover cover = oceanCover(mesh, surface.elevation_m, surface.sea_level_m, faces);
    if (!cover.faces.empty()) pieces[c] = oceanMesh(mesh, cover, radius);
  });
  Group g;
  for (OceanMesh& ocean : pieces) {
    if (ocean.indices.empty()) continue;
    g.positions.insert(g.positions.end(), ocean.positions.begin(), ocean.positions.end());
    g.normals.insert(g.normals.end(), ocean.normals.begin(), ocean.normals.end());
    g.indices.insert(g.indices.end(), ocean.indices.begin(), ocean.indices.end());
    g.closePiece(ocean.indices.size(), glm::dvec3(0.0));
    ocean = {};
  }
  return g;
}

// Collision pieces: the land of `surface` (a coarser level) cut into 20 k^2 chunks, positions
// only, each chunk in its own frame (chunk_frames.h) unless world.
Group collisionGroup(const PlanetSurface& surface, int chunks, bool world) {
  const geodesy::SphereMesh& mesh = *surface.mesh;
  const ChunkPartition partition = partitionPieces(mesh, chunks);
  const auto at = [&](uint32_t v) {
    return (surface.radius_m + double(surface.elevation_m[v])) *
           glm::normalize(glm::dvec3(mesh.positions[v]));
  };
  std::vector<Box> bounds(partition.chunkCount());
  for (size_t c = 0; c < bounds.size(); ++c) {
    Box box{glm::dvec3(INFINITY), glm::dvec3(-INFINITY)};
    for (uint32_t n = partition.vertex_offsets[c]; n < partition.vertex_offsets[c + 1]; ++n) {
      box.lo = glm::min(box.lo, at(partition.vertices[n]));
      box.hi = glm::max(box.hi, at(partition.vertices[n]));
    }
    bounds[c] = box;
  }
  const ChunkFrames frames = chooseChunkFrames(bounds);
  Group g;
  g.grid_m = frames.grid_m;
  for (size_t c = 0; c < bounds.size(); ++c) {
    const std::span<const uint32_t> verts(
        &partition.vertices[partition.vertex_offsets[c]],
        partition.vertex_offsets[c + 1] - partition.vertex_offsets[c]);
    const glm::dvec3 t = world ? glm::dvec3(0.0) : frames.translations[c];
    for (uint32_t v : verts) {
      g.positions.push_back(world ? glm::vec3(at(v)) : localPosition(at(v), t, frames.grid_m));
    }
    for (uint32_t n = partition.face_offsets[c]; n < partition.face_offsets[c + 1]; ++n) {
      for (int k = 0; k < 3; ++k) {
        const uint32_t v = mesh.indices[3 * size_t(partition.faces[n]) + size_t(k)];
        g.indices.push_back(
            uint32_t(std::lower_bound(verts.begin(), verts.end(), v) - verts.begin()));
      }
    }
    g.closePiece(g.indices.size() - g.index_offsets.back(), t);
  }
  return g;
}

}  // namespace planet_export
