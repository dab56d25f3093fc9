#include "export/detail/glb_groups.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <numeric>

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <glm/common.hpp>
#include <glm/geometric.hpp>

#include "export/biome_palette.h"
#include "export/colour_ramps.h"
#include "export/detail/chunk_frames.h"
#include "export/detail/chunks.h"
#include "export/detail/engine_pieces.h"
#include "export/detail/piece_ids.h"
#include "export/detail/surface_buffers.h"
#include "export/shared_normals.h"

namespace planet_export {

namespace {

// The linear colour of every biome class, so a biome-coloured land converts each of its few
// colours once rather than per vertex (the same numbers: biomeColour is what landColour gives).
std::array<glm::vec3, kBiomePaletteSize> linearBiomeColours() {
  std::array<glm::vec3, kBiomePaletteSize> table;
  for (int id = 0; id < kBiomePaletteSize; ++id) {
    const Rgb c = biomeColour(uint8_t(id));
    table[size_t(id)] = {srgbToLinear(c.r), srgbToLinear(c.g), srgbToLinear(c.b)};
  }
  return table;
}

}  // namespace

LandData landData(const PlanetSurface& surface) {
  LandData data;
  // glTF vertex colours are linear (glTF 2.0 spec 3.7.2.1); the ramps are sRGB.
  if (surface.land_colour == LandColour::kBiome) {
    data.vertex.colour = [&surface, linear = linearBiomeColours()](uint32_t v) {
      return linear[surface.biome[v]];
    };
  } else {
    data.vertex.colour = [&surface](uint32_t v) {
      const Rgb c = landColour(surface, v);
      return glm::vec3(srgbToLinear(c.r), srgbToLinear(c.g), srgbToLinear(c.b));
    };
  }
  data.scalar_names.push_back("_ELEVATION");
  data.vertex.scalars.push_back(std::span<const float>(surface.elevation_m));
  if (!surface.biome.empty()) {
    data.scalar_names.push_back("_BIOME");
    data.vertex.scalars.push_back(std::span<const uint8_t>(surface.biome));
  }
  for (const VertexAttribute& attribute : surface.attributes) {
    data.scalar_names.push_back(attribute.name);
    data.vertex.scalars.push_back(std::span<const float>(attribute.values));
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

Group landGroup(const PlanetSurface& surface, LandData& data, const ChunkPartition& partition,
                double skirt_m, bool world, bool tangents) {
  if (partition.chunks_per_edge > 0) {
    return buildChunkedLand(surface, std::move(data.vertex), partition, skirt_m, world, tangents);
  }
  // The whole mesh as one piece, in the planet frame.
  const geodesy::SphereMesh& mesh = *surface.mesh;
  const Piece piece = splitSeam(mesh.positions, mesh.indices, uint32_t(mesh.indices.size()));
  const VertexNormals normals = vertexNormals(surface, kEngineExaggeration);
  Group g;
  g.scalars.resize(data.vertex.scalars.size());
  for (size_t i = 0; i < piece.source.size(); ++i) {
    const uint32_t v = piece.source[i];
    g.positions.push_back(glm::vec3(landPosition(surface, v)));
    g.normals.push_back(normals[v]);
    g.colours.push_back(data.vertex.colour(v));
    g.uvs.push_back(piece.uv[i]);
    if (tangents) g.tangents.push_back(equirectTangent(normals[v], mesh.positions[v]));
    for (size_t a = 0; a < g.scalars.size(); ++a) {
      g.scalars[a].push_back(
          std::visit([v](auto values) { return float(values[v]); }, data.vertex.scalars[a]));
    }
  }
  g.indices = piece.indices;
  g.closePiece(piece.surface_indices, glm::dvec3(0.0));
  return g;
}

// The ocean over the land mesh (oceanCover) at oceanRadius, in the planet frame, cut into the
// pieces of `partition`.
Group oceanGroup(const PlanetSurface& surface, const ChunkPartition& partition) {
  const geodesy::SphereMesh& mesh = *surface.mesh;
  const double radius = oceanRadius(surface.radius_m, surface.sea_level_m);
  std::vector<OceanCover> covers(partition.chunkCount());
  struct Scratch {
    DistinctIds distinct;
    LocalIds local;
  };
  tbb::enumerable_thread_specific<Scratch> scratch;  // per-thread vertex tables (piece_ids.h)
  tbb::parallel_for(size_t(0), covers.size(), [&](size_t c) {
    const std::span<const uint32_t> faces(
        &partition.faces[partition.face_offsets[c]],
        partition.face_offsets[c + 1] - partition.face_offsets[c]);
    covers[c] =
        oceanCover(mesh, surface.elevation_m, surface.sea_level_m, faces, scratch.local().distinct);
  });
  // Pieces without water are left out; the others' indices are written straight into the group.
  Group g;
  std::vector<size_t> piece_of;
  for (size_t c = 0; c < covers.size(); ++c) {
    if (covers[c].faces.empty()) continue;
    piece_of.push_back(c);
    g.vertex_offsets.push_back(g.vertex_offsets.back() + covers[c].vertices.size());
    g.index_offsets.push_back(g.index_offsets.back() + 3 * covers[c].faces.size());
    g.surface_indices.push_back(3 * covers[c].faces.size());
    g.surface_vertices.push_back(covers[c].vertices.size());
    g.translations.push_back(glm::dvec3(0.0));
  }
  g.indices.resize(g.index_offsets.back());
  tbb::parallel_for(size_t(0), piece_of.size(), [&](size_t p) {
    OceanCover& cover = covers[piece_of[p]];
    writeOceanIndices(mesh, cover, scratch.local().local,
                      std::span(g.indices).subspan(g.index_offsets[p], 3 * cover.faces.size()));
    std::vector<uint32_t>().swap(cover.faces);
  });
  // The positions and the normals are made from the pieces' vertex lists when the writer asks
  // for them (Group::make), one array at a time.
  auto vertices = std::make_shared<std::vector<std::vector<uint32_t>>>(piece_of.size());
  for (size_t p = 0; p < piece_of.size(); ++p) {
    (*vertices)[p] = std::move(covers[piece_of[p]].vertices);
  }
  g.make = [&mesh, radius, vertices](Group& group, VertexArray array, size_t) {
    if (array != VertexArray::kPositions && array != VertexArray::kNormals) return;
    const bool positions = array == VertexArray::kPositions;
    std::vector<glm::vec3>& out = positions ? group.positions : group.normals;
    out.resize(group.vertex_offsets.back());
    tbb::parallel_for(size_t(0), vertices->size(), [&](size_t p) {
      const std::span<glm::vec3> share =
          std::span(out).subspan(group.vertex_offsets[p], group.vertexCount(p));
      writeOceanVertices(mesh, (*vertices)[p], radius, positions ? share : std::span<glm::vec3>(),
                         positions ? std::span<glm::vec3>() : share);
    });
  };
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
    const std::span<const uint32_t> verts = partition.verticesOf(c);
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
