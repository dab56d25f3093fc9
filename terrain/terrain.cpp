#include "terrain/terrain.h"

#include <algorithm>
#include <cmath>

#include <tbb/parallel_for.h>

#include "geodesy/hash.h"
#include "terrain/perlin.h"

namespace terrain {

struct Terrain::Impl {
  TerrainParams params;
  // Independent noise fields, each seeded from (seed, stream) so that changing one option
  // does not reshuffle the others.
  PerlinNoise detail, continent, ridges, warp_x, warp_y, warp_z, belts;
  FbmParams detail_fbm, continent_fbm, ridged_fbm, warp_fbm, belt_fbm;

  Impl(uint64_t seed, const TerrainParams& p)
      : params(p),
        detail(detailNoiseSeed(seed)),
        continent(geodesy::hash3(seed, 0x7e11a1, 1)),
        ridges(geodesy::hash3(seed, 0x7e11a1, 2)),
        warp_x(geodesy::hash3(seed, 0x7e11a1, 3)),
        warp_y(geodesy::hash3(seed, 0x7e11a1, 4)),
        warp_z(geodesy::hash3(seed, 0x7e11a1, 5)),
        belts(geodesy::hash3(seed, 0x7e11a1, 6)) {
    detail_fbm = {p.octaves, float(p.frequency), float(p.lacunarity), float(p.persistence)};
    continent_fbm = {p.continent_octaves, float(p.continent_frequency), 2.0f, 0.5f};
    // Ridges use fewer octaves than the detail: the fine scale comes from the detail fBm.
    ridged_fbm = {std::max(1, p.octaves - 2), float(p.ridged_frequency), float(p.lacunarity),
                  float(p.persistence)};
    warp_fbm = {2, float(p.warp_frequency), 2.0f, 0.5f};
    belt_fbm = {3, float(p.mountain_belt_frequency), 2.0f, 0.5f};
  }

  // Elevation at 8 points (coordinate arrays, modified in place by the warp); belts_out, if
  // set, receives the mountain-belt weight in [0, 1] of each point.
  void elevation8(float* x, float* y, float* z, float* out, float* belts_out = nullptr) const {
    float a[8], b[8], c[8];
    if (params.warp > 0.0) {
      fbm8(warp_x, x, y, z, warp_fbm, a);
      fbm8(warp_y, x, y, z, warp_fbm, b);
      fbm8(warp_z, x, y, z, warp_fbm, c);
      const float k = float(params.warp);
      for (int l = 0; l < 8; ++l) x[l] += k * a[l], y[l] += k * b[l], z[l] += k * c[l];
    }
    // Continent mask in [0, 1]: a smooth step of low-frequency fBm through zero. Land rises
    // gently to a low plateau, the sea floor drops to deep basins (Earth's hypsometry is
    // bimodal: most land is below 1 km, most ocean floor near 4 km deep).
    float mask[8], mountains[8];
    fbm8(continent, x, y, z, continent_fbm, a);
    fbm8(detail, x, y, z, detail_fbm, b);
    fbm8(belts, x, y, z, belt_fbm, c);
    bool any_mountains = false;
    for (int l = 0; l < 8; ++l) {
      mask[l] = 0.5f + 0.5f * std::tanh(float(params.continent_sharpness) * a[l] * 2.0f);
      const float step = 2.0f * mask[l] - 1.0f;
      out[l] =
          (step > 0.0f ? float(params.continent_amplitude_m) : float(params.ocean_depth_m)) * step +
          float(params.amplitude_m) * b[l];
      // Mountains stand in belts (a second low-frequency field), on land and near coasts.
      const float inland = std::clamp((mask[l] - 0.45f) * 2.0f, 0.0f, 1.0f);
      const float belt = std::clamp((c[l] + 0.05f) * 4.0f, 0.0f, 1.0f);
      mountains[l] = inland * (2.0f - inland) * belt * belt * (3.0f - 2.0f * belt);
      any_mountains |= mountains[l] > 0.0f;
      if (belts_out) belts_out[l] = mountains[l];
    }
    if (params.ridged_amplitude_m > 0.0 && any_mountains) {
      ridgedFbm8(ridges, x, y, z, ridged_fbm, c);
      for (int l = 0; l < 8; ++l) out[l] += float(params.ridged_amplitude_m) * mountains[l] * c[l];
    }
  }
};

uint64_t detailNoiseSeed(uint64_t seed) {
  return geodesy::hash3(seed, 0x7e11a1, 0);
}

Terrain::Terrain(uint64_t seed, const TerrainParams& params)
    : impl_(std::make_unique<Impl>(seed, params)) {}
Terrain::~Terrain() = default;
float Terrain::elevationAt(const glm::vec3& p) const {
  // The 8-lane path with every lane at p: identical to what generateElevation computes.
  float x[8], y[8], z[8], out[8];
  for (int l = 0; l < 8; ++l) x[l] = p.x, y[l] = p.y, z[l] = p.z;
  impl_->elevation8(x, y, z, out);
  return out[0];
}

std::vector<float> generateElevation(std::span<const glm::vec3> unit_positions, uint64_t seed,
                                     const TerrainParams& params,
                                     std::vector<float>* mountain_belts) {
  const Terrain terrain(seed, params);
  const size_t n = unit_positions.size();
  std::vector<float> elevation(n);
  float* belts = nullptr;
  if (mountain_belts) {
    mountain_belts->assign(n, 0.0f);
    belts = mountain_belts->data();
  }
  // Each block of 8 vertices writes only its own slots: the result does not depend on the
  // partition. The last block repeats its final vertex in the unused lanes.
  tbb::parallel_for(tbb::blocked_range<size_t>(0, (n + 7) / 8, 512),
                    [&](const tbb::blocked_range<size_t>& r) {
                      float x[8], y[8], z[8], out[8], belt[8];
                      for (size_t block = r.begin(); block != r.end(); ++block) {
                        const size_t first = block * 8;
                        for (int l = 0; l < 8; ++l) {
                          const glm::vec3& p = unit_positions[std::min(first + l, n - 1)];
                          x[l] = p.x, y[l] = p.y, z[l] = p.z;
                        }
                        terrain.impl_->elevation8(x, y, z, out, belts ? belt : nullptr);
                        for (size_t l = 0; l < 8 && first + l < n; ++l) {
                          elevation[first + l] = out[l];
                          if (belts) belts[first + l] = belt[l];
                        }
                      }
                    });
  return elevation;
}

}  // namespace terrain
