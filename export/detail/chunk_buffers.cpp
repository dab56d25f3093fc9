#include "export/detail/chunk_buffers.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <glm/common.hpp>
#include <glm/geometric.hpp>

#include "export/detail/chunk_frames.h"
#include "export/detail/chunks.h"
#include "export/detail/engine_pieces.h"
#include "export/detail/piece_ids.h"
#include "export/shared_normals.h"

namespace planet_export {
namespace {

// Border vertices of each chunk, ascending global ids (empty lists without skirts).
std::vector<std::vector<uint32_t>> borderVertices(const ChunkPartition& partition, bool skirts) {
  std::vector<std::vector<uint32_t>> border(partition.chunkCount());
  if (!skirts) return border;
  tbb::parallel_for(size_t(0), border.size(), [&](size_t c) {
    const uint32_t* edges = &partition.border_edges[2 * size_t(partition.border_offsets[c])];
    border[c].assign(
        edges, edges + 2 * size_t(partition.border_offsets[c + 1] - partition.border_offsets[c]));
    std::sort(border[c].begin(), border[c].end());
    border[c].erase(std::unique(border[c].begin(), border[c].end()), border[c].end());
  });
  return border;
}

uint32_t rankIn(std::span<const uint32_t> sorted, uint32_t global) {
  return uint32_t(std::lower_bound(sorted.begin(), sorted.end(), global) - sorted.begin());
}

// One chunk's vertices as written. Its "slots" are the chunk's surface vertices (partition
// order), then the skirt bottoms (border order); the piece's vertices are slots or their seam
// copies.
struct ChunkPiece {
  std::vector<uint32_t> slot;     // per piece vertex, in the written order
  std::vector<glm::vec2> uv;      // per piece vertex, in the written order
  uint32_t surface_vertices = 0;  // the first ones: surface slots and their copies
};

// The chunk's triangles (surface, then skirt: 3 per face and 6 per border edge, written to
// `indices`), its seam split, and its vertices ordered surface first (stable), so the surface
// primitive's accessors cover a prefix; `indices` ends up naming that order.
ChunkPiece splitChunk(const geodesy::SphereMesh& mesh, const ChunkPartition& partition, size_t c,
                      std::span<const uint32_t> border, LocalIds& local,
                      std::span<uint32_t> indices) {
  const std::span<const uint32_t> verts = partition.verticesOf(c);
  local.assign(verts, mesh.vertexCount());
  const uint32_t surface_count = uint32_t(verts.size());
  uint32_t* index = indices.data();
  for (uint32_t n = partition.face_offsets[c]; n < partition.face_offsets[c + 1]; ++n) {
    for (int k = 0; k < 3; ++k) {
      *index++ = local(mesh.indices[3 * size_t(partition.faces[n]) + size_t(k)]);
    }
  }
  const uint32_t surface_indices = uint32_t(index - indices.data());
  if (!border.empty()) {
    for (uint32_t e = partition.border_offsets[c]; e < partition.border_offsets[c + 1]; ++e) {
      const uint32_t from = partition.border_edges[2 * size_t(e)];
      const uint32_t to = partition.border_edges[2 * size_t(e) + 1];
      const uint32_t a = local(from), b = local(to);
      const uint32_t a_low = surface_count + rankIn(border, from);
      const uint32_t b_low = surface_count + rankIn(border, to);
      // The chunk lies left of a -> b seen from outside; these two triangles face away from it.
      for (uint32_t corner : {a, b_low, b, a, a_low, b_low}) *index++ = corner;
    }
  }
  std::vector<glm::vec3> directions;
  directions.reserve(verts.size() + border.size());
  for (uint32_t v : verts) directions.push_back(mesh.positions[v]);
  for (uint32_t v : border) directions.push_back(mesh.positions[v]);
  const Piece piece = splitSeam(directions, indices, surface_indices);

  const auto is_surface = [&](uint32_t i) { return piece.source[i] < surface_count; };
  std::vector<uint32_t> order(piece.source.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_partition(order.begin(), order.end(), is_surface);
  std::vector<uint32_t> new_of_old(order.size());
  for (uint32_t n = 0; n < order.size(); ++n) new_of_old[order[n]] = n;
  for (size_t i = 0; i < indices.size(); ++i) indices[i] = new_of_old[piece.indices[i]];
  ChunkPiece out;
  out.surface_vertices = uint32_t(std::count_if(order.begin(), order.end(), is_surface));
  out.slot.resize(order.size());
  out.uv.resize(order.size());
  for (uint32_t n = 0; n < order.size(); ++n) {
    out.slot[n] = piece.source[order[n]];
    out.uv[n] = piece.uv[order[n]];
  }
  return out;
}

// What a chunked level's group makes its vertex arrays from (Group::make): each chunk's
// vertices gathered from the full mesh's data, one array at a time, each of the level's arrays
// freed once its last use is made.
struct ChunkedLandArrays {
  const PlanetSurface& surface;
  const ChunkPartition& partition;
  LandVertexData data;
  VertexNormals normals;  // the mesh's, from the normals until the tangents
  std::vector<std::vector<uint32_t>> border;
  std::vector<ChunkPiece> pieces;
  ChunkFrames frames;
  double skirt_depth_m = 0.0;
  bool world = false;
  bool tangents = false;

  // fill(c, n, i, v, bottom) for vertex n of chunk c, group vertex i, mesh vertex v, a skirt
  // bottom or not.
  template <typename Fill>
  void forEachVertex(const Group& g, const Fill& fill) const {
    tbb::parallel_for(size_t(0), pieces.size(), [&](size_t c) {
      const std::span<const uint32_t> verts = partition.verticesOf(c);
      const ChunkPiece& piece = pieces[c];
      for (size_t n = 0; n < piece.slot.size(); ++n) {
        const uint32_t slot = piece.slot[n];
        const bool bottom = slot >= verts.size();
        const uint32_t v = bottom ? border[c][slot - verts.size()] : verts[slot];
        fill(c, n, g.vertex_offsets[c] + n, v, bottom);
      }
    });
  }

  template <typename From, typename To>
  void gather(const Group& g, std::span<const From> from, std::vector<To>& to) const {
    to.resize(g.vertex_offsets.back());
    forEachVertex(g, [&](size_t, size_t, size_t i, uint32_t v, bool) { to[i] = To(from[v]); });
  }

  void make(Group& g, VertexArray array, size_t a) {
    const geodesy::SphereMesh& mesh = *surface.mesh;
    switch (array) {
      case VertexArray::kPositions:
        g.positions.resize(g.vertex_offsets.back());
        forEachVertex(g, [&](size_t c, size_t, size_t i, uint32_t v, bool bottom) {
          const glm::dvec3& t = frames.translations[c];
          const glm::vec3 local =
              localPosition(landPosition(surface, v, bottom ? skirt_depth_m : 0.0), t, g.grid_m);
          g.positions[i] = world ? glm::vec3(glm::dvec3(local) + t) : local;
        });
        break;
      case VertexArray::kNormals:
        normals = vertexNormals(surface, kEngineExaggeration);
        gather(g, normals.values(), g.normals);
        if (!tangents) normals.reset();
        break;
      case VertexArray::kTangents:
        if (!tangents) break;
        g.tangents.resize(g.vertex_offsets.back());
        forEachVertex(g, [&](size_t, size_t, size_t i, uint32_t v, bool) {
          g.tangents[i] = equirectTangent(normals[v], mesh.positions[v]);
        });
        normals.reset();
        break;
      case VertexArray::kUvs:
        g.uvs.resize(g.vertex_offsets.back());
        forEachVertex(
            g, [&](size_t c, size_t n, size_t i, uint32_t, bool) { g.uvs[i] = pieces[c].uv[n]; });
        for (ChunkPiece& piece : pieces) std::vector<glm::vec2>().swap(piece.uv);
        break;
      case VertexArray::kColours:
        g.colours.resize(g.vertex_offsets.back());
        forEachVertex(
            g, [&](size_t, size_t, size_t i, uint32_t v, bool) { g.colours[i] = data.colour(v); });
        break;
      case VertexArray::kScalar:
        std::visit([&](auto values) { gather(g, values, g.scalars[a]); }, data.scalars[a]);
        break;
    }
  }
};

}  // namespace

Group buildChunkedLand(const PlanetSurface& surface, LandVertexData&& data,
                       const ChunkPartition& partition, double skirt_depth_m, bool world,
                       bool tangents) {
  if (!std::isfinite(skirt_depth_m) || skirt_depth_m < 0.0) {
    throw std::invalid_argument("skirt depth " + std::to_string(skirt_depth_m) +
                                " m is not allowed; allowed: a finite depth >= 0 (0 = no skirts)");
  }
  const geodesy::SphereMesh& mesh = *surface.mesh;
  const size_t chunk_count = partition.chunkCount();
  const bool skirts = skirt_depth_m > 0.0;
  std::vector<std::vector<uint32_t>> border = borderVertices(partition, skirts);

  std::vector<Box> bounds(chunk_count);
  tbb::parallel_for(size_t(0), chunk_count, [&](size_t c) {
    Box box{glm::dvec3(INFINITY), glm::dvec3(-INFINITY)};
    for (uint32_t v : partition.verticesOf(c)) {
      const glm::dvec3 p = landPosition(surface, v, 0.0);
      box.lo = glm::min(box.lo, p);
      box.hi = glm::max(box.hi, p);
    }
    for (uint32_t v : border[c]) {
      const glm::dvec3 p = landPosition(surface, v, skirt_depth_m);
      box.lo = glm::min(box.lo, p);
      box.hi = glm::max(box.hi, p);
    }
    bounds[c] = box;
  });
  ChunkFrames frames = chooseChunkFrames(bounds);

  // The index count of a chunk is known before its seam split (3 per face, 6 per border edge
  // with skirts), so each chunk's indices are written straight into the group.
  Group g;
  g.grid_m = frames.grid_m;
  for (size_t c = 0; c < chunk_count; ++c) {
    const size_t faces = partition.face_offsets[c + 1] - partition.face_offsets[c];
    const size_t edges = skirts ? partition.border_offsets[c + 1] - partition.border_offsets[c] : 0;
    g.index_offsets.push_back(g.index_offsets.back() + 3 * faces + 6 * edges);
    g.surface_indices.push_back(3 * faces);
    g.translations.push_back(world ? glm::dvec3(0.0) : frames.translations[c]);
  }
  g.indices.resize(g.index_offsets.back());
  std::vector<ChunkPiece> pieces(chunk_count);
  {
    tbb::enumerable_thread_specific<LocalIds> tables;  // one global -> local table per thread
    tbb::parallel_for(size_t(0), chunk_count, [&](size_t c) {
      const std::span<uint32_t> indices(&g.indices[g.index_offsets[c]],
                                        g.index_offsets[c + 1] - g.index_offsets[c]);
      pieces[c] = splitChunk(mesh, partition, c, border[c], tables.local(), indices);
    });
  }
  for (size_t c = 0; c < chunk_count; ++c) {
    g.vertex_offsets.push_back(g.vertex_offsets.back() + pieces[c].slot.size());
    g.surface_vertices.push_back(pieces[c].surface_vertices);
  }
  g.scalars.resize(data.scalars.size());
  // The vertex arrays are made when the writer asks for them (Group::make).
  auto arrays =
      std::make_shared<ChunkedLandArrays>(ChunkedLandArrays{.surface = surface,
                                                            .partition = partition,
                                                            .data = std::move(data),
                                                            .normals = {},
                                                            .border = std::move(border),
                                                            .pieces = std::move(pieces),
                                                            .frames = std::move(frames),
                                                            .skirt_depth_m = skirt_depth_m,
                                                            .world = world,
                                                            .tangents = tangents});
  g.make = [arrays](Group& group, VertexArray array, size_t a) { arrays->make(group, array, a); };
  return g;
}

}  // namespace planet_export
