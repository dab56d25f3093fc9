#include "planet/hardness.h"

#include <algorithm>

#include <tbb/parallel_for.h>

#include "geodesy/hash.h"
#include "planet/perlin.h"

namespace planet {

std::vector<float> erodibilityField(std::span<const glm::vec3> unit_positions, uint64_t seed,
                                    double hardness_min, double frequency) {
  const PerlinNoise noise(geodesy::hash3(seed, 0x4a7d, 0));
  const FbmParams fbm_params{3, float(frequency), 2.0f, 0.5f};
  std::vector<float> field(unit_positions.size());
  const float lo = float(hardness_min);
  tbb::parallel_for(tbb::blocked_range<size_t>(0, field.size(), 4096),
                    [&](const tbb::blocked_range<size_t>& r) {
                      for (size_t v = r.begin(); v != r.end(); ++v) {
                        // fBm is roughly within [-0.6, 0.6]; stretch it to fill [lo, 1].
                        const float n = fbm(noise, unit_positions[v], fbm_params);
                        const float t = std::clamp(0.5f + n * 0.9f, 0.0f, 1.0f);
                        field[v] = lo + (1.0f - lo) * t;
                      }
                    });
  return field;
}

}  // namespace planet
