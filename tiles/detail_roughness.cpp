#include "tiles/detail_roughness.h"

#include <algorithm>
#include <array>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "tiles/lattice_point.h"

namespace tiles {

std::vector<float> detailRoughness(const geodesy::LatticeNumbering& numbering,
                                   std::span<const float> elevation_m,
                                   std::span<const float> water_level_m, double sea_level_m,
                                   const DetailParams& params) {
  std::vector<float> roughness(elevation_m.size(), 0.0f);
  if (!params.enabled) return roughness;
  const uint32_t f = numbering.frequency();
  // Rows (base face, j) write the canonical points of their row only: every vertex once.
  tbb::parallel_for(
      tbb::blocked_range<uint32_t>(0, 20 * (f + 1)),
      [&](const tbb::blocked_range<uint32_t>& range) {
        std::array<LatticePoint, 6> ring;
        for (uint32_t r = range.begin(); r != range.end(); ++r) {
          const uint32_t base = r / (f + 1), j = r % (f + 1);
          for (uint32_t i = 0; i + j <= f; ++i) {
            const LatticePoint p{base, i, j};
            if (onBaseEdge(f, p) && !(canonicalPoint(f, p) == p)) continue;
            const uint32_t v = numbering.vertex(base, i, j);
            const double h = elevation_m[v];
            // Inside the face the ring is the six lattice steps (numbering.vertex names a point
            // on the face's edge from any face); on an edge or corner it crosses faces.
            int count = 6;
            if (onBaseEdge(f, p)) {
              count = latticeRing(f, p, ring);
            } else {
              for (int k = 0; k < 6; ++k) {
                ring[k] = {base, uint32_t(int64_t(i) + kLatticeSteps[k][0]),
                           uint32_t(int64_t(j) + kLatticeSteps[k][1])};
              }
            }
            double lo = h, hi = h, sum = 0.0;
            for (int k = 0; k < count; ++k) {
              const double e = elevation_m[numbering.vertex(ring[k].base, ring[k].i, ring[k].j)];
              lo = std::min(lo, e);
              hi = std::max(hi, e);
              sum += e;
            }
            const double relief = hi - lo;
            double factor = 1.0;
            if (relief > 0.0) {
              const double concave = (sum / count - h) / (0.25 * relief);
              factor = 1.0 + (params.valley_floor - 1.0) * std::clamp(concave, 0.0, 1.0);
            }
            if (h < sea_level_m) {
              factor *= params.sea_floor;
            } else if (!water_level_m.empty() && water_level_m[v] >= h + 0.5) {
              factor *= params.lake_bed;
            }
            roughness[v] = float(params.relief_roughness * relief * factor);
          }
        }
      });
  return roughness;
}

}  // namespace tiles
