#include "erosion/detail/brush.h"

#include "erosion/detail/change_accumulator.h"
#include "erosion/lattice_patch.h"

#include <algorithm>
#include <cassert>
#include <cmath>

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <glm/geometric.hpp>

namespace erosion {

BrushGatherer::BrushGatherer(const geodesy::SphereMesh& mesh) : mesh_(&mesh), slots_(256, kEmpty) {
  ids_.reserve(64);
  weights_.reserve(64);
}

bool BrushGatherer::visit(uint32_t v) {
  if (2 * (filled_.size() + 1) > slots_.size()) {  // keep it at most half full
    const std::vector<uint32_t> kept = std::move(filled_);
    std::vector<uint32_t> old_slots = std::move(slots_);
    slots_.assign(2 * old_slots.size(), kEmpty);
    filled_.clear();
    for (uint32_t slot : kept) visit(old_slots[slot]);
  }
  const uint32_t mask = uint32_t(slots_.size()) - 1;
  uint32_t hash = v * 2654435761u;  // Knuth's multiplier; its high bits folded down
  hash ^= hash >> 16;
  for (uint32_t i = hash & mask;; i = (i + 1) & mask) {
    if (slots_[i] == v) return true;
    if (slots_[i] == kEmpty) {
      slots_[i] = v;
      filled_.push_back(i);
      return false;
    }
  }
}

void BrushGatherer::forgetVisits() {
  for (uint32_t slot : filled_) slots_[slot] = kEmpty;
  filled_.clear();
}

size_t BrushGatherer::gather(const glm::vec3& p, uint32_t start, float radius_edges) {
  forgetVisits();
  const glm::vec3* positions = mesh_->positions.data();
  const uint32_t* offsets = mesh_->neighbour_offsets.data();
  const uint32_t* neighbours = mesh_->neighbours.data();
  const float inv_edge = float(1.0 / mesh_->mean_edge_length);
  const float r = radius_edges;
  // Beyer 2015, eq. 5.9: weight max(0, r - |P_i - pos|), distances in edge lengths.
  auto weightOf = [&](uint32_t v) { return r - glm::length(positions[v] - p) * inv_edge; };

  ids_.clear();
  weights_.clear();
  visit(start);
  const float w0 = weightOf(start);
  if (!(w0 > 0.0f)) {
    ids_.push_back(start);
    weights_.push_back(1.0f);
    return 1;
  }
  ids_.push_back(start);
  weights_.push_back(w0);
  // The set {d < r} is connected through itself on a near-uniform mesh, so a walk that only
  // expands accepted vertices finds all of them.
  for (size_t i = 0; i < ids_.size(); ++i) {
    const uint32_t v = ids_[i];
    for (uint32_t k = offsets[v]; k < offsets[v + 1]; ++k) {
      const uint32_t n = neighbours[k];
      if (visit(n)) continue;
      const float w = weightOf(n);
      if (w > 0.0f) {
        ids_.push_back(n);
        weights_.push_back(w);
      }
    }
  }
  float sum = 0.0f;
  for (float w : weights_) sum += w;
  const float inv_sum = 1.0f / sum;
  for (float& w : weights_) w *= inv_sum;
  return ids_.size();
}

LatticeBrush makeLatticeBrush(double radius_edges) {
  LatticeBrush brush;
  brush.radius_edges = float(radius_edges);
  const double r = radius_edges;
  // Sector k holds a * dir_k + b * dir_{k+1} with a >= 1, b >= 0: every lattice point but the
  // centre exactly once. Reached by a steps along dir_k, then b steps along dir_{k+1}.
  struct Point {
    int a, b, k;
  };
  std::vector<Point> points{{0, 0, 0}};
  std::vector<double> weights{r};
  std::vector<int> parents{0}, dirs{0};
  auto indexOf = [&](int a, int b, int k) {
    for (size_t i = 0; i < points.size(); ++i)
      if (points[i].a == a && points[i].b == b && (a == 0 || points[i].k == k)) return int(i);
    return -1;
  };
  const int reach = int(std::ceil(r)) + 1;
  // Breadth-first by ring a + b so that parents come first.
  for (int ring = 1; ring <= 2 * reach; ++ring) {
    for (int k = 0; k < 6; ++k) {
      for (int b = 0; b < ring; ++b) {
        const int a = ring - b;
        const double d = std::sqrt(double(latticeSquaredLength(a, b)));
        if (!(d < r)) continue;
        const int parent = b > 0 ? indexOf(a, b - 1, k) : indexOf(a - 1, 0, k);
        if (parent < 0) continue;  // outside the disc already: cannot happen for a disc
        points.push_back({a, b, k});
        weights.push_back(r - d);  // Beyer 2015, eq. 5.9
        parents.push_back(parent);
        dirs.push_back(b > 0 ? (k + 1) % 6 : k);
        brush.rings = std::max(brush.rings, ring);
      }
    }
  }
  // The six lattice steps as (di, dj) in the frame of directions 0 and 1.
  constexpr int kStep[6][2] = {{1, 0}, {0, 1}, {-1, 1}, {-1, 0}, {0, -1}, {1, -1}};
  double sum = 0.0;
  for (double w : weights) sum += w;
  for (size_t i = 0; i < points.size(); ++i) {
    const Point& q = points[i];
    const int k1 = (q.k + 1) % 6;
    const int di = q.a * kStep[q.k][0] + q.b * kStep[k1][0];
    const int dj = q.a * kStep[q.k][1] + q.b * kStep[k1][1];
    brush.entries.push_back(
        {uint16_t(parents[i]), uint8_t(dirs[i]), int8_t(di), int8_t(dj), float(weights[i] / sum)});
    brush.weights.push_back(float(weights[i] / sum));
  }
  assert(brush.entries.size() <= kMaxLatticeBrush);

  // Rows: the entries sorted by (dj, di); a disc leaves no gap inside a row.
  std::vector<size_t> order(brush.entries.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    const LatticeBrush::Entry &ex = brush.entries[x], &ey = brush.entries[y];
    return ex.dj != ey.dj ? ex.dj < ey.dj : ex.di < ey.di;
  });
  for (size_t i : order) {
    const LatticeBrush::Entry& e = brush.entries[i];
    if (brush.rows.empty() || brush.rows.back().dj != e.dj) {
      brush.rows.push_back({e.dj, e.di, 0, uint16_t(brush.row_weights.size())});
    }
    LatticeBrush::Row& row = brush.rows.back();
    assert(e.di == row.di_first + row.count);
    ++row.count;
    brush.row_weights.push_back(e.weight);
  }
  for (LatticeBrush::Row& row : brush.rows) {
    row.first_padded = uint16_t(brush.padded_weights.size());
    const size_t blocks = (row.count + kBrushPadding - 1) / kBrushPadding;
    brush.padded_weights.resize(brush.padded_weights.size() + blocks * kBrushPadding, 0.0f);
    std::copy_n(brush.row_weights.begin() + row.first, row.count,
                brush.padded_weights.begin() + row.first_padded);
  }
  return brush;
}

void markRowBrushes(NodeTable& nodes, const LatticeBrush& brush) {
  const size_t n = nodes.links.size();
  // Decided first, then set: the walks of other vertices read these records.
  std::vector<uint8_t> row_brush(n, 0);
  tbb::parallel_for(
      tbb::blocked_range<size_t>(0, n, 4096), [&](const tbb::blocked_range<size_t>& range) {
        uint32_t ids[kMaxLatticeBrush];
        for (size_t v = range.begin(); v < range.end(); ++v) {
          const VertexLinks& l = nodes.links[v];
          if (l.irregularBrush()) continue;
          latticeBrushIds(nodes.links.data(), brush, uint32_t(v), ids);
          const int64_t stride = int64_t(l.nbr[1]) - int64_t(v);
          bool rows = std::abs(stride) < (int64_t(1) << 24);
          for (size_t e = 0; rows && e < brush.entries.size(); ++e) {
            const LatticeBrush::Entry& entry = brush.entries[e];
            rows = int64_t(v) + rowOffset(int32_t(stride), entry.dj) + entry.di == int64_t(ids[e]);
          }
          row_brush[v] = rows;
        }
      });
  tbb::parallel_for(tbb::blocked_range<size_t>(0, n, 4096),
                    [&](const tbb::blocked_range<size_t>& range) {
                      for (size_t v = range.begin(); v < range.end(); ++v)
                        if (row_brush[v]) nodes.links[v].links |= VertexLinks::kRowBrushBit;
                    });
}

VertexBrushes buildVertexBrushes(const geodesy::SphereMesh& mesh, double radius_edges) {
  const size_t vertex_count = mesh.vertexCount();
  VertexBrushes brushes;
  brushes.radius_edges = float(radius_edges);
  brushes.offsets.assign(vertex_count + 1, 0);

  tbb::enumerable_thread_specific<BrushGatherer> gatherers(std::cref(mesh));
  // Two passes over the same gather: counts, then the entries at their CSR offsets, so no
  // per-vertex vectors are kept and the layout does not depend on scheduling.
  tbb::parallel_for(tbb::blocked_range<size_t>(0, vertex_count, 1024),
                    [&](const tbb::blocked_range<size_t>& range) {
                      BrushGatherer& g = gatherers.local();
                      for (size_t v = range.begin(); v < range.end(); ++v) {
                        brushes.offsets[v + 1] = uint32_t(
                            g.gather(mesh.positions[v], uint32_t(v), brushes.radius_edges));
                      }
                    });
  for (size_t v = 0; v < vertex_count; ++v) brushes.offsets[v + 1] += brushes.offsets[v];
  brushes.ids.resize(brushes.offsets.back());
  brushes.weights.resize(brushes.offsets.back());
  tbb::parallel_for(tbb::blocked_range<size_t>(0, vertex_count, 1024),
                    [&](const tbb::blocked_range<size_t>& range) {
                      BrushGatherer& g = gatherers.local();
                      for (size_t v = range.begin(); v < range.end(); ++v) {
                        g.gather(mesh.positions[v], uint32_t(v), brushes.radius_edges);
                        std::copy(g.ids().begin(), g.ids().end(),
                                  brushes.ids.begin() + brushes.offsets[v]);
                        std::copy(g.weights().begin(), g.weights().end(),
                                  brushes.weights.begin() + brushes.offsets[v]);
                      }
                    });
  return brushes;
}

}  // namespace erosion
