#include <algorithm>
#include <cmath>
#include <limits>

#include <tbb/blocked_range.h>
#include <tbb/parallel_reduce.h>
#include <glm/geometric.hpp>

#include "geodesy/angles.h"
#include "geodesy/sphere_mesh.h"

namespace geodesy {

EdgeLengthStats edgeLengthStats(const SphereMesh& mesh) {
  struct Partial {
    double min = std::numeric_limits<double>::infinity();
    double max = 0.0;
    double sum = 0.0;
    size_t count = 0;
  };
  // parallel_deterministic_reduce splits the range the same way for any thread count, so
  // the floating-point sum is bit-identical whatever the scheduling.
  const size_t vertex_count = mesh.vertexCount();
  const Partial total = tbb::parallel_deterministic_reduce(
      tbb::blocked_range<size_t>(0, vertex_count, 4096), Partial{},
      [&](const tbb::blocked_range<size_t>& range, Partial partial) {
        for (size_t v = range.begin(); v != range.end(); ++v) {
          const glm::dvec3 a(mesh.positions[v]);
          for (uint32_t n = mesh.neighbour_offsets[v]; n < mesh.neighbour_offsets[v + 1]; ++n) {
            const uint32_t u = mesh.neighbours[n];
            if (u < v) continue;  // each edge once
            const glm::dvec3 b(mesh.positions[u]);
            // atan2 of |a x b| and a . b is accurate at any angle and ignores |a|, |b|.
            const double arc = atan2NonNegative(glm::length(glm::cross(a, b)), glm::dot(a, b));
            partial.min = std::min(partial.min, arc);
            partial.max = std::max(partial.max, arc);
            partial.sum += arc;
            ++partial.count;
          }
        }
        return partial;
      },
      [](Partial x, const Partial& y) {
        x.min = std::min(x.min, y.min);
        x.max = std::max(x.max, y.max);
        x.sum += y.sum;
        x.count += y.count;
        return x;
      });
  EdgeLengthStats stats;
  if (total.count == 0) return stats;
  stats.min_rad = total.min;
  stats.max_rad = total.max;
  stats.mean_rad = total.sum / double(total.count);
  stats.count = total.count;
  return stats;
}

}  // namespace geodesy
