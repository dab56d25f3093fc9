#include "erosion/detail/change_blur.h"

#include <algorithm>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

namespace erosion {

void blendBlurredChange(const geodesy::SphereMesh& mesh, double b, std::span<double> change,
                        const uint8_t* channel) {
  if (b <= 0.0) return;
  const std::vector<double> before(change.begin(), change.end());
  tbb::parallel_for(
      tbb::blocked_range<size_t>(0, mesh.vertexCount(), 2048),
      [&](const tbb::blocked_range<size_t>& range) {
        for (size_t i = range.begin(); i < range.end(); ++i) {
          const double area_i = mesh.vertex_areas[i];
          double flux = 0.0;
          for (uint32_t k = mesh.neighbour_offsets[i]; k < mesh.neighbour_offsets[i + 1]; ++k) {
            const uint32_t j = mesh.neighbours[k];
            // Nothing flows into or out of a channel vertex, whose change is 0.
            if (channel && (channel[i] || channel[j])) continue;
            // Symmetric in i and j, so what i gains j loses: volume is preserved.
            const double conductance = std::min(area_i, double(mesh.vertex_areas[j])) / 7.0;
            flux += conductance * (before[j] - before[i]);
          }
          const double blurred = before[i] + flux / area_i;
          change[i] = b * blurred + (1.0 - b) * before[i];  // Beyer 2015, eq. 5.10
        }
      });
}

}  // namespace erosion
