#include "export/detail/chunk_buffers.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include <tbb/parallel_for.h>
#include <glm/common.hpp>
#include <glm/geometric.hpp>

#include "export/detail/chunks.h"

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

uint32_t localIndex(std::span<const uint32_t> sorted, uint32_t global) {
  return uint32_t(std::lower_bound(sorted.begin(), sorted.end(), global) - sorted.begin());
}

}  // namespace

ChunkedLand buildChunkedLand(const PlanetSurface& surface, const LandVertexData& data,
                             int chunks_per_edge, double skirt_depth_m) {
  if (!std::isfinite(skirt_depth_m) || skirt_depth_m < 0.0) {
    throw std::invalid_argument("skirt depth " + std::to_string(skirt_depth_m) +
                                " m is not allowed; allowed: a finite depth >= 0 (0 = no skirts)");
  }
  const geodesy::SphereMesh& mesh = *surface.mesh;
  const ChunkPartition partition = partitionChunks(mesh, chunks_per_edge);
  const size_t chunk_count = partition.chunkCount();
  const bool skirts = skirt_depth_m > 0.0;
  const std::vector<std::vector<uint32_t>> border = borderVertices(partition, skirts);

  // Double world positions of the surface and of the skirt bottoms, computed once per global
  // vertex so every chunk starts from the same numbers.
  const auto world = [&](uint32_t v, double drop) {
    return (surface.radius_m + double(surface.elevation_m[v]) - drop) *
           glm::normalize(glm::dvec3(mesh.positions[v]));
  };
  std::vector<Box> bounds(chunk_count);
  tbb::parallel_for(size_t(0), chunk_count, [&](size_t c) {
    Box box{glm::dvec3(INFINITY), glm::dvec3(-INFINITY)};
    for (uint32_t n = partition.vertex_offsets[c]; n < partition.vertex_offsets[c + 1]; ++n) {
      const glm::dvec3 p = world(partition.vertices[n], 0.0);
      box.lo = glm::min(box.lo, p);
      box.hi = glm::max(box.hi, p);
    }
    for (uint32_t v : border[c]) {
      const glm::dvec3 p = world(v, skirt_depth_m);
      box.lo = glm::min(box.lo, p);
      box.hi = glm::max(box.hi, p);
    }
    bounds[c] = box;
  });

  ChunkedLand out;
  out.chunks_per_edge = chunks_per_edge;
  out.frames = chooseChunkFrames(bounds);
  out.vertex_offsets.assign(1, 0);
  out.index_offsets.assign(1, 0);
  for (size_t c = 0; c < chunk_count; ++c) {
    const uint32_t surface_count = partition.vertex_offsets[c + 1] - partition.vertex_offsets[c];
    const uint32_t face_count = partition.face_offsets[c + 1] - partition.face_offsets[c];
    const uint32_t edge_count =
        skirts ? partition.border_offsets[c + 1] - partition.border_offsets[c] : 0;
    out.surface_vertices.push_back(surface_count);
    out.surface_indices.push_back(3 * face_count);
    out.vertex_offsets.push_back(out.vertex_offsets.back() + surface_count +
                                 uint32_t(border[c].size()));
    out.index_offsets.push_back(out.index_offsets.back() + 3 * face_count + 6 * edge_count);
  }
  const size_t vertex_total = out.vertex_offsets.back();
  out.global_vertex.resize(vertex_total);
  out.positions.resize(vertex_total);
  out.normals.resize(vertex_total);
  out.colours.resize(vertex_total);
  out.scalars.assign(data.scalars.size(), std::vector<float>(vertex_total));
  out.indices.resize(out.index_offsets.back());

  tbb::parallel_for(size_t(0), chunk_count, [&](size_t c) {
    const glm::dvec3& translation = out.frames.translations[c];
    const double grid = out.frames.grid_m;
    const std::span<const uint32_t> verts(&partition.vertices[partition.vertex_offsets[c]],
                                          out.surface_vertices[c]);
    const uint32_t first = out.vertex_offsets[c];
    const auto put = [&](uint32_t slot, uint32_t v, double drop) {
      out.global_vertex[slot] = v;
      out.positions[slot] = localPosition(world(v, drop), translation, grid);
      out.normals[slot] = data.normals[v];
      out.colours[slot] = data.colours[v];
      for (size_t a = 0; a < data.scalars.size(); ++a) out.scalars[a][slot] = data.scalars[a][v];
    };
    for (uint32_t i = 0; i < verts.size(); ++i) put(first + i, verts[i], 0.0);
    const uint32_t bottom_first = uint32_t(verts.size());
    for (uint32_t i = 0; i < border[c].size(); ++i) {
      put(first + bottom_first + i, border[c][i], skirt_depth_m);
    }

    uint32_t* index = &out.indices[out.index_offsets[c]];
    for (uint32_t n = partition.face_offsets[c]; n < partition.face_offsets[c + 1]; ++n) {
      for (int k = 0; k < 3; ++k) {
        *index++ = localIndex(verts, mesh.indices[3 * size_t(partition.faces[n]) + size_t(k)]);
      }
    }
    if (!skirts) return;
    for (uint32_t e = partition.border_offsets[c]; e < partition.border_offsets[c + 1]; ++e) {
      const uint32_t from = partition.border_edges[2 * size_t(e)];
      const uint32_t to = partition.border_edges[2 * size_t(e) + 1];
      const uint32_t a = localIndex(verts, from), b = localIndex(verts, to);
      const uint32_t a_low = bottom_first + localIndex(border[c], from);
      const uint32_t b_low = bottom_first + localIndex(border[c], to);
      // The chunk lies left of a -> b seen from outside; these two triangles face away from it.
      for (uint32_t corner : {a, b_low, b, a, a_low, b_low}) *index++ = corner;
    }
  });
  return out;
}

}  // namespace planet_export
