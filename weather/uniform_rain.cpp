#include "weather/uniform_rain.h"

#include <cassert>
#include <cmath>
#include <numbers>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "geodesy/hash.h"

namespace weather {
namespace {

constexpr uint64_t kRainStream = 0x756E69666F726D31ull;  // "uniform1"

// Archimedes: z uniform in [-1, 1] and an angle uniform in [0, 2 pi) is uniform by area.
glm::vec3 uniformOnSphere(geodesy::HashStream& rng) {
  const double z = 2.0 * rng.uniform() - 1.0;
  const double phi = 2.0 * std::numbers::pi * rng.uniform();
  const double r = std::sqrt(std::max(0.0, 1.0 - z * z));
  return glm::vec3(float(r * std::cos(phi)), float(z), float(r * std::sin(phi)));
}

}  // namespace

std::vector<geodesy::DropletSpawn> uniformRain(const geodesy::SphereMesh& mesh,
                                               std::span<const float> elevation_m,
                                               double sea_level_m, uint64_t count, uint64_t seed) {
  assert(elevation_m.size() == mesh.vertexCount());
  std::vector<geodesy::DropletSpawn> all(count);
  std::vector<uint8_t> found(count, 0);
  tbb::parallel_for(tbb::blocked_range<uint64_t>(0, count, 1024),
                    [&](const tbb::blocked_range<uint64_t>& r) {
                      for (uint64_t i = r.begin(); i < r.end(); ++i) {
                        geodesy::HashStream rng(seed, kRainStream, i);
                        for (int t = 0; t < kMaxRainTries; ++t) {
                          const geodesy::SurfacePoint at = mesh.locate(uniformOnSphere(rng));
                          const uint32_t* corner = &mesh.indices[3 * size_t(at.face)];
                          const double height = double(elevation_m[corner[0]]) * at.bary.x +
                                                double(elevation_m[corner[1]]) * at.bary.y +
                                                double(elevation_m[corner[2]]) * at.bary.z;
                          if (height >= sea_level_m) {
                            all[i].point = at;
                            all[i].water = 1.0f;
                            found[i] = 1;
                            break;
                          }
                        }
                      }
                    });
  std::vector<geodesy::DropletSpawn> spawns;
  spawns.reserve(count);
  for (uint64_t i = 0; i < count; ++i)
    if (found[i]) spawns.push_back(all[i]);
  return spawns;
}

}  // namespace weather
