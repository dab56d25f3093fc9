#include "erosion/detail/node_table.h"

#include "geodesy/large_array.h"

#include <cassert>
#include <cmath>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

namespace erosion {

NodeTable buildNodeTable(const geodesy::SphereMesh& mesh, int ring_depth) {
  const size_t n = mesh.vertexCount();
  NodeTable t;
  geodesy::assignLarge(t.points, n);
  geodesy::assignLarge(t.links, n);
  tbb::parallel_for(tbb::blocked_range<size_t>(0, n, 2048),
                    [&](const tbb::blocked_range<size_t>& range) {
                      for (size_t v = range.begin(); v < range.end(); ++v) {
                        t.points[v].x = mesh.positions[v];
                        VertexLinks& l = t.links[v];
                        const uint32_t begin = mesh.neighbour_offsets[v];
                        const int degree = int(mesh.neighbour_offsets[v + 1] - begin);
                        assert(degree == 5 || degree == 6);
                        uint32_t links = uint32_t(degree) << 24;
                        for (int k = 0; k < degree; ++k) {
                          const uint32_t w = mesh.neighbours[begin + k];
                          l.nbr[k] = w;
                          const uint32_t w_begin = mesh.neighbour_offsets[w];
                          const uint32_t w_degree = mesh.neighbour_offsets[w + 1] - w_begin;
                          uint32_t back = 0;
                          while (back < w_degree && mesh.neighbours[w_begin + back] != v) ++back;
                          assert(back < w_degree);
                          links |= back << (3 * k);
                        }
                        if (degree == 5) l.nbr[5] = l.nbr[4];
                        l.links = links;
                      }
                    });
  // Mark the vertices within ring_depth rings of the twelve five-valent ones (serial: a few
  // hundred vertices).
  std::vector<uint32_t> frontier, next;
  std::vector<uint8_t> seen(n, 0);
  for (size_t v = 0; v < n; ++v)
    if (t.links[v].degree() == 5) frontier.push_back(uint32_t(v)), seen[v] = 1;
  for (int depth = 0; depth <= ring_depth && !frontier.empty(); ++depth) {
    next.clear();
    for (uint32_t v : frontier) {
      t.links[v].links |= 1u << 31;
      for (int k = 0; k < t.links[v].degree(); ++k) {
        const uint32_t w = t.links[v].nbr[k];
        if (!seen[w]) seen[w] = 1, next.push_back(w);
      }
    }
    frontier.swap(next);
  }
  return t;
}

void refreshNodeTable(NodeTable& t, const geodesy::SphereMesh& mesh,
                      std::span<const float> elevation_m, double height_scale,
                      std::span<const float> erodibility, std::span<const uint8_t> channel) {
  const size_t n = t.points.size();
  assert(mesh.vertexCount() == n && elevation_m.size() == n);
  if (t.area.size() != n + kBrushPadding) {  // first call, or after releaseCallArrays
    // The padding entries hold zero weight's worth (kBrushPadding).
    geodesy::assignLarge(t.height, n + kBrushPadding, 0.0f);
    geodesy::assignLarge(t.erodibility, n + kBrushPadding, 1.0f);
    geodesy::assignLarge(t.area, n + kBrushPadding, 0.0f);
    geodesy::assignLarge(t.inv_area, n + kBrushPadding, 0.0f);
    geodesy::assignLarge(t.start_m, n);
    const double to_normalised = double(n) / (4.0 * 3.14159265358979323846);
    tbb::parallel_for(tbb::blocked_range<size_t>(0, n, 4096),
                      [&](const tbb::blocked_range<size_t>& range) {
                        for (size_t v = range.begin(); v < range.end(); ++v) {
                          const double area = double(mesh.vertex_areas[v]) * to_normalised;
                          t.inv_area[v] = float(1.0 / area);
                          t.area[v] = float(area);
                        }
                      });
  }
  tbb::parallel_for(tbb::blocked_range<size_t>(0, n, 4096),
                    [&](const tbb::blocked_range<size_t>& range) {
                      for (size_t v = range.begin(); v < range.end(); ++v) {
                        t.start_m[v] = elevation_m[v];
                        t.setHeight(v, float(double(elevation_m[v]) * height_scale));
                        t.erodibility[v] = !channel.empty() && channel[v] ? 0.0f
                                           : erodibility.empty()          ? 1.0f
                                                                          : erodibility[v];
                      }
                    });
}

void releaseCallArrays(NodeTable& t) {
  for (std::vector<float>* a : {&t.height, &t.erodibility, &t.area, &t.inv_area, &t.start_m})
    std::vector<float>().swap(*a);
}

}  // namespace erosion
