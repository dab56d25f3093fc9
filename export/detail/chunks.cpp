#include "export/detail/chunks.h"

#include <algorithm>
#include <array>
#include <stdexcept>

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include "export/detail/piece_ids.h"

namespace planet_export {
namespace {

// Row j of a base face's lattice of frequency f starts at face j (2f - j) (geodesy/lattice.h:
// row j holds 2 (f - j) - 1 faces, up and down triangles interleaved).
uint64_t rowStart(uint64_t f, uint64_t j) {
  return j * (2 * f - j);
}

// Chunk id of a lattice face for k chunks per base edge of m faces each.
uint32_t chunkOfLatticeFace(uint32_t k, uint32_t m, const geodesy::LatticeFace& lf) {
  const uint32_t ci = lf.i / m, cj = lf.j / m;
  const uint32_t a = lf.i % m, b = lf.j % m;
  // The cell (ci, cj) of the chunk lattice splits into an up and a down sub-triangle along
  // a + b = m: an up face (a, b) lies in the up half when a + b + 1 <= m, a down face (whose
  // far corner is (a + 1, b + 1)) when a + b + 2 <= m.
  const bool down = lf.down ? a + b + 2 > m : a + b + 1 > m;
  return lf.base * k * k + uint32_t(rowStart(k, cj)) + 2 * ci + (down ? 1 : 0);
}

}  // namespace

std::string chunkingProblem(int frequency, int chunks_per_edge) {
  if (chunks_per_edge < 1) {
    return "chunks per base edge must be >= 1 (got " + std::to_string(chunks_per_edge) + ")";
  }
  if (frequency < 1 || frequency % chunks_per_edge != 0) {
    return "chunks = " + std::to_string(chunks_per_edge) + " does not divide the icosphere " +
           "frequency " + std::to_string(frequency) +
           "; allowed: a divisor of the frequency (each base edge is cut into chunks of equal "
           "length)";
  }
  return {};
}

uint32_t chunkOfFace(int frequency, int chunks_per_edge, uint32_t face) {
  const uint32_t f = uint32_t(frequency);
  const uint32_t k = uint32_t(chunks_per_edge);
  return chunkOfLatticeFace(k, f / k, geodesy::latticeFace(frequency, face));
}

void sortUnique(std::vector<uint32_t>& ids) {
  if (ids.size() < 256) {  // small lists: the counting passes would cost more than they save
    std::sort(ids.begin(), ids.end());
  } else {
    constexpr int kBits = 11;
    constexpr uint32_t kMask = (1u << kBits) - 1;
    std::vector<uint32_t> other(ids.size());
    for (int shift = 0; shift < 32; shift += kBits) {
      std::array<size_t, kMask + 2> start{};
      for (uint32_t id : ids) ++start[((id >> shift) & kMask) + 1];
      for (size_t d = 1; d < start.size(); ++d) start[d] += start[d - 1];
      for (uint32_t id : ids) other[start[(id >> shift) & kMask]++] = id;
      ids.swap(other);
    }
  }
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
}

ChunkPartition partitionChunks(const geodesy::SphereMesh& mesh, int chunks_per_edge) {
  if (const std::string problem = chunkingProblem(mesh.frequency, chunks_per_edge);
      !problem.empty()) {
    throw std::invalid_argument(problem);
  }
  const size_t face_count = mesh.faceCount();
  const size_t chunk_count = size_t(20) * size_t(chunks_per_edge) * size_t(chunks_per_edge);
  // Chunk of every face, walking each base face's rows (chunkOfFace without its decoding).
  const uint32_t f = uint32_t(mesh.frequency), k = uint32_t(chunks_per_edge);
  std::vector<uint32_t> chunk_of(face_count);
  tbb::parallel_for(size_t(0), size_t(20) * f, [&](size_t row) {
    const uint32_t base = uint32_t(row / f), j = uint32_t(row % f);
    const size_t first = size_t(base) * f * f + rowStart(f, j);
    for (uint32_t r = 0; r < 2 * (f - j) - 1; ++r) {
      chunk_of[first + r] =
          chunkOfLatticeFace(k, f / k, geodesy::LatticeFace{base, r / 2, j, (r & 1) != 0});
    }
  });

  ChunkPartition out;
  out.chunks_per_edge = chunks_per_edge;
  // Counting sort keeps faces ascending within each chunk.
  out.face_offsets.assign(chunk_count + 1, 0);
  for (uint32_t c : chunk_of) ++out.face_offsets[c + 1];
  for (size_t c = 0; c < chunk_count; ++c) out.face_offsets[c + 1] += out.face_offsets[c];
  out.faces.resize(face_count);
  {
    std::vector<uint32_t> cursor(out.face_offsets.begin(), out.face_offsets.end() - 1);
    for (size_t face = 0; face < face_count; ++face) {
      out.faces[cursor[chunk_of[face]]++] = uint32_t(face);
    }
  }

  std::vector<std::vector<uint32_t>> vertices(chunk_count), borders(chunk_count);
  tbb::enumerable_thread_specific<DistinctIds> distinct;
  tbb::parallel_for(size_t(0), chunk_count, [&](size_t c) {
    DistinctIds& verts = distinct.local();
    verts.start(mesh.vertexCount());
    for (uint32_t n = out.face_offsets[c]; n < out.face_offsets[c + 1]; ++n) {
      const uint32_t face = out.faces[n];
      const std::array<uint32_t, 3> across = mesh.facesAcross(face);
      for (int k = 0; k < 3; ++k) {
        const uint32_t from = mesh.indices[3 * size_t(face) + size_t(k)];
        verts.add(from);
        if (chunk_of[across[size_t(k)]] != c) {
          borders[c].push_back(from);
          borders[c].push_back(mesh.indices[3 * size_t(face) + size_t(k + 1) % 3]);
        }
      }
    }
    vertices[c] = verts.take();
  });
  out.vertex_offsets.assign(1, 0);
  out.border_offsets.assign(1, 0);
  size_t vertex_total = 0, border_total = 0;
  for (size_t c = 0; c < chunk_count; ++c) {
    vertex_total += vertices[c].size();
    border_total += borders[c].size();
  }
  out.vertices.reserve(vertex_total);
  out.border_edges.reserve(border_total);
  for (size_t c = 0; c < chunk_count; ++c) {
    out.vertices.insert(out.vertices.end(), vertices[c].begin(), vertices[c].end());
    out.vertex_offsets.push_back(uint32_t(out.vertices.size()));
    out.border_edges.insert(out.border_edges.end(), borders[c].begin(), borders[c].end());
    out.border_offsets.push_back(uint32_t(out.border_edges.size() / 2));
    std::vector<uint32_t>().swap(vertices[c]);
    std::vector<uint32_t>().swap(borders[c]);
  }
  return out;
}

}  // namespace planet_export
