#include "terrain/hardness.h"

#include <algorithm>

#include <tbb/parallel_for.h>

#include "geodesy/hash.h"
#include "terrain/perlin.h"

namespace terrain {

std::vector<float> erodibilityField(std::span<const glm::vec3> unit_positions, uint64_t seed,
                                    double hardness_min, double frequency) {
  const PerlinNoise noise(geodesy::hash3(seed, 0x4a7d, 0));
  const FbmParams fbm_params{3, float(frequency), 2.0f, 0.5f};
  std::vector<float> field(unit_positions.size());
  const float lo = float(hardness_min);
  const size_t n = field.size();
  // Eight vertices per fbm8 call (fbm() runs the same eight lanes for one point); the last
  // block repeats its final vertex in the unused lanes.
  tbb::parallel_for(tbb::blocked_range<size_t>(0, (n + 7) / 8, 512),
                    [&](const tbb::blocked_range<size_t>& r) {
                      float x[8], y[8], z[8], out[8];
                      for (size_t block = r.begin(); block != r.end(); ++block) {
                        const size_t first = block * 8;
                        for (int l = 0; l < 8; ++l) {
                          const glm::vec3& p = unit_positions[std::min(first + l, n - 1)];
                          x[l] = p.x, y[l] = p.y, z[l] = p.z;
                        }
                        fbm8(noise, x, y, z, fbm_params, out);
                        for (size_t l = 0; l < 8 && first + l < n; ++l) {
                          // fBm is roughly within [-0.6, 0.6]; stretch it to fill [lo, 1].
                          const float t = std::clamp(0.5f + out[l] * 0.9f, 0.0f, 1.0f);
                          field[first + l] = lo + (1.0f - lo) * t;
                        }
                      }
                    });
  return field;
}

}  // namespace terrain
