#include "planet/terrain.h"

#include <algorithm>
#include <cmath>

#include <tbb/parallel_for.h>

#include "geodesy/hash.h"
#include "planet/perlin.h"

namespace planet {

struct Terrain::Impl {
  TerrainParams params;
  // Independent noise fields, each seeded from (seed, stream) so that changing one option
  // does not reshuffle the others.
  PerlinNoise detail, continent, ridges, warp_x, warp_y, warp_z;
  FbmParams detail_fbm, continent_fbm, ridged_fbm, warp_fbm;

  Impl(uint64_t seed, const TerrainParams& p)
      : params(p),
        detail(geodesy::hash3(seed, 0x7e11a1, 0)),
        continent(geodesy::hash3(seed, 0x7e11a1, 1)),
        ridges(geodesy::hash3(seed, 0x7e11a1, 2)),
        warp_x(geodesy::hash3(seed, 0x7e11a1, 3)),
        warp_y(geodesy::hash3(seed, 0x7e11a1, 4)),
        warp_z(geodesy::hash3(seed, 0x7e11a1, 5)) {
    detail_fbm = {p.octaves, float(p.frequency), float(p.lacunarity), float(p.persistence)};
    continent_fbm = {p.continent_octaves, float(p.continent_frequency), 2.0f, 0.5f};
    // Ridges use fewer octaves than the detail: the fine scale comes from the detail fBm.
    ridged_fbm = {std::max(1, p.octaves - 2), float(p.ridged_frequency), float(p.lacunarity),
                  float(p.persistence)};
    warp_fbm = {2, float(p.warp_frequency), 2.0f, 0.5f};
  }

  float elevation(glm::vec3 p) const {
    if (params.warp > 0.0) {
      const glm::vec3 w(fbm(warp_x, p, warp_fbm), fbm(warp_y, p, warp_fbm),
                        fbm(warp_z, p, warp_fbm));
      p += float(params.warp) * w;
    }
    // Continent mask in [0, 1]: a smooth step of low-frequency fBm through zero.
    const float c = fbm(continent, p, continent_fbm);
    const float mask = 0.5f + 0.5f * std::tanh(float(params.continent_sharpness) * c * 2.0f);
    float h = float(params.continent_amplitude_m) * (2.0f * mask - 1.0f);
    h += float(params.amplitude_m) * fbm(detail, p, detail_fbm);
    if (params.ridged_amplitude_m > 0.0) {
      // Mountains rise inland: weight ridges by how far into the continent we are.
      const float inland = std::clamp((mask - 0.55f) * 2.5f, 0.0f, 1.0f);
      if (inland > 0.0f) {
        h += float(params.ridged_amplitude_m) * inland * inland * ridgedFbm(ridges, p, ridged_fbm);
      }
    }
    return h;
  }
};

Terrain::Terrain(uint64_t seed, const TerrainParams& params)
    : impl_(std::make_unique<Impl>(seed, params)) {}
Terrain::~Terrain() = default;
float Terrain::elevationAt(const glm::vec3& p) const {
  return impl_->elevation(p);
}

std::vector<float> generateElevation(std::span<const glm::vec3> unit_positions, uint64_t seed,
                                     const TerrainParams& params) {
  const Terrain terrain(seed, params);
  std::vector<float> elevation(unit_positions.size());
  // Each vertex writes only its own slot: the result does not depend on the partition.
  tbb::parallel_for(tbb::blocked_range<size_t>(0, unit_positions.size(), 4096),
                    [&](const tbb::blocked_range<size_t>& r) {
                      for (size_t v = r.begin(); v != r.end(); ++v)
                        elevation[v] = terrain.elevationAt(unit_positions[v]);
                    });
  return elevation;
}

}  // namespace planet
