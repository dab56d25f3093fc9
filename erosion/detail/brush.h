#pragma once
// The erosion brush (Beyer 2015 §5.2, eq. 5.9): the vertices within `radius` mean edge lengths
// of a point, each weighted max(0, r - d) with d in edge lengths, normalised to sum 1.
//
// Away from the twelve five-valent vertices the icosphere is a regular triangular lattice, so
// the brush is one table of lattice offsets (a, b) with weights from lattice distances
// sqrt(a^2 + ab + b^2) (LatticeBrush), no per-vertex memory. Inside a base face it is read as
// runs of consecutive ids (the row brush); near the seams it is walked through the neighbour
// lists from the droplet's nearest vertex (docs/erosion.md, "The brush", has the measurements). The
// alternatives, kept to measure against:
// - VertexBrushes: every vertex's ids and metric weights, CSR (8 bytes per entry);
// - BrushGatherer: a breadth-first walk with metric distances from any point. Builds
//   VertexBrushes and serves the centres near the five-valent vertices.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <glm/vec3.hpp>

#include "erosion/detail/node_table.h"
#include "geodesy/sphere_mesh.h"

namespace erosion {

// Gathers brushes around arbitrary points by a breadth-first walk over the vertex adjacency.
// Remembers the vertices one walk has visited in a small hash set (memory by the brush's size,
// not the mesh's); one per thread, not thread-safe.
class BrushGatherer {
 public:
  explicit BrushGatherer(const geodesy::SphereMesh& mesh);

  // Collects the vertices closer than radius_edges * mesh.mean_edge_length (chord distance)
  // to the unit point p, walking from `start`, a vertex near p. If no vertex is that close
  // the brush is {start: 1}. Returns the number of vertices; ids() and weights() hold them,
  // weights sum to 1. Valid until the next gather.
  size_t gather(const glm::vec3& p, uint32_t start, float radius_edges);

  std::span<const uint32_t> ids() const { return ids_; }
  std::span<const float> weights() const { return weights_; }

 private:
  // Whether v was visited in this walk; marks it visited.
  bool visit(uint32_t v);
  void forgetVisits();

  const geodesy::SphereMesh* mesh_;
  // Open addressing, linear probing; kEmpty marks a free slot. The size is a power of two,
  // at most half full; filled_ lists the slots a walk filled, to empty them after it.
  static constexpr uint32_t kEmpty = UINT32_MAX;
  std::vector<uint32_t> slots_;
  std::vector<uint32_t> filled_;
  std::vector<uint32_t> ids_;
  std::vector<float> weights_;
};

// One brush per vertex, centred on the vertex: the brush of v is
// ids/weights[offsets[v] .. offsets[v+1]). About 3 r^2 + 3 entries per vertex, 8 bytes each.
struct VertexBrushes {
  float radius_edges = 0.0f;
  std::vector<uint32_t> offsets;
  std::vector<uint32_t> ids;
  std::vector<float> weights;

  size_t memoryBytes() const {
    return offsets.capacity() * sizeof(uint32_t) + ids.capacity() * sizeof(uint32_t) +
           weights.capacity() * sizeof(float);
  }
};

// The lattice brush: entries in breadth-first order, entries[0] the centre; every other entry
// is its parent's vertex moved one lattice step in direction dir (0..5, counter-clockwise from
// the centre's first neighbour). Weights sum to 1.
//
// The same brush by rows: lattice offset (di, dj) = di * step_0 + dj * step_1 (the steps to
// the centre's neighbours 0 and 1). Where the mesh numbers a base face's lattice row by row
// (geodesy's interior vertices: +1 along direction 0, rows one vertex shorter each along
// direction 1), the vertex at (di, dj) is centre + rowOffset(stride, dj) + di with
// stride = neighbour 1 - centre: each row of the brush is a run of consecutive ids, found
// without a walk and read from contiguous memory. markRowBrushes checks this per vertex.
struct LatticeBrush {
  struct Entry {
    uint16_t parent = 0;
    uint8_t dir = 0;
    int8_t di = 0, dj = 0;
    float weight = 0.0f;
  };
  struct Row {
    int8_t dj = 0;
    int8_t di_first = 0;
    uint8_t count = 0;
    uint16_t first = 0;         // into row_weights
    uint16_t first_padded = 0;  // into padded_weights
  };
  float radius_edges = 0.0f;
  int rings = 0;  // the farthest entry is this many neighbour steps from the centre
  std::vector<Entry> entries;
  std::vector<float> weights;  // entries[i].weight, contiguous
  std::vector<Row> rows;       // by dj, ascending
  std::vector<float> row_weights;
  // The rows' weights again, each row zero-padded to a multiple of kBrushPadding.
  std::vector<float> padded_weights;
};

LatticeBrush makeLatticeBrush(double radius_edges);

// Lattice brushes have at most this many entries (radius 8 has 235).
inline constexpr size_t kMaxLatticeBrush = 256;

// Writes the vertex ids of the lattice brush around `centre` (which must not have the
// irregular-brush bit) to ids[0 .. brush.entries.size()). A step along direction d leaves a
// vertex by slot rot + d of its neighbour list, where rot is the slot of the centre's
// direction 0 there, and arrives with the back slot opposite: the walk keeps its bearings.
inline constexpr uint8_t kMod6[16] = {0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3};

inline void latticeBrushIds(const VertexLinks* links, const LatticeBrush& brush, uint32_t centre,
                            uint32_t* ids) {
  uint8_t rots[kMaxLatticeBrush];
  ids[0] = centre;
  rots[0] = 0;
  const LatticeBrush::Entry* entries = brush.entries.data();
  const size_t count = brush.entries.size();
  // Ring one is the centre's own neighbour list (entries 1..6 step from the centre in
  // directions 0..5).
  size_t e = 1;
  if (count >= 7) {
    const VertexLinks& c = links[centre];
    for (; e < 7; ++e) {
      ids[e] = c.nbr[e - 1];
      rots[e] = kMod6[c.backSlot(int(e - 1)) + 9 - (e - 1)];
    }
  }
  for (; e < count; ++e) {
    const LatticeBrush::Entry entry = entries[e];
    const VertexLinks& parent = links[ids[entry.parent]];
    const int slot = kMod6[rots[entry.parent] + entry.dir];
    ids[e] = parent.nbr[slot];
    rots[e] = kMod6[parent.backSlot(slot) + 9 - entry.dir];
  }
}

// The id offset of lattice row dj from the centre's row, for row lengths that fall by one per
// row along direction 1 and a centre whose next row starts `stride` ids further on.
inline int32_t rowOffset(int32_t stride, int dj) {
  return dj * stride - dj * (dj - 1) / 2;
}

// Where the row brush around `centre` (which must have the row-brush bit) finds its rows.
struct RowBrushFrame {
  uint32_t centre;
  int32_t stride;  // id step to the centre's neighbour 1, the start of the next row
  RowBrushFrame(const VertexLinks* links, uint32_t c)
      : centre(c), stride(int32_t(links[c].nbr[1]) - int32_t(c)) {}
  uint32_t first(const LatticeBrush::Row& row) const {
    return uint32_t(int32_t(centre) + rowOffset(stride, row.dj) + row.di_first);
  }
};

// Writes the ids of the row brush around `centre`, row by row, matching brush.row_weights.
inline void rowBrushIds(const VertexLinks* links, const LatticeBrush& brush, uint32_t centre,
                        uint32_t* ids) {
  const RowBrushFrame frame(links, centre);
  for (const LatticeBrush::Row& row : brush.rows) {
    const uint32_t first = frame.first(row);
    for (uint32_t k = 0; k < row.count; ++k) *ids++ = first + k;
  }
}

// Sets the row-brush bit of every vertex whose lattice brush (walked as latticeBrushIds does)
// is the row brush. Parallel.
void markRowBrushes(NodeTable& nodes, const LatticeBrush& brush);

// Builds the brush of every vertex. Parallel in the caller's oneTBB arena; the result does not
// depend on the thread count.
VertexBrushes buildVertexBrushes(const geodesy::SphereMesh& mesh, double radius_edges);

}  // namespace erosion
