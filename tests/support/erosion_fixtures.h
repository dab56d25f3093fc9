#pragma once
// Synthetic planets and droplets for the erosion tests (erosion/droplet_erosion_test,
// erosion/droplet_test, erosion/kernels_test).

#include <cmath>
#include <span>
#include <utility>
#include <vector>

#include <glm/geometric.hpp>

#include "erosion/droplet_erosion.h"
#include "geodesy/droplet_spawn.h"
#include "geodesy/hash.h"
#include "geodesy/sphere_mesh.h"

namespace erosion_fixtures {

constexpr double kRadiusM = 6371000.0;

inline const geodesy::SphereMesh& meshOf(int frequency) {
  static std::vector<std::pair<int, geodesy::SphereMesh>> cache;
  for (auto& [f, mesh] : cache)
    if (f == frequency) return mesh;
  cache.emplace_back(frequency, geodesy::buildIcosphere(frequency));
  return cache.back().second;
}

// Metres for a dimensionless slope s (rise per edge length) along the unit vector axis.
inline std::vector<float> tilted(const geodesy::SphereMesh& mesh, glm::vec3 axis, double slope) {
  std::vector<float> h(mesh.vertexCount());
  for (size_t v = 0; v < h.size(); ++v)
    h[v] = float(slope * kRadiusM * glm::dot(mesh.positions[v], axis));
  return h;
}

// A rough, fBm-like planet: a few octaves of plane waves, about +-3 km.
inline std::vector<float> rough(const geodesy::SphereMesh& mesh, uint64_t seed) {
  std::vector<float> h(mesh.vertexCount(), 0.0f);
  geodesy::HashStream rng(seed, 1, 0);
  double amplitude = 1500.0, frequency = 2.0;
  for (int octave = 0; octave < 5; ++octave, amplitude *= 0.5, frequency *= 2.0) {
    for (int i = 0; i < 4; ++i) {
      const glm::vec3 k =
          glm::normalize(glm::vec3(float(rng.uniform() - 0.5), float(rng.uniform() - 0.5),
                                   float(rng.uniform() - 0.5))) *
          float(frequency);
      const float phase = float(6.2831853 * rng.uniform());
      for (size_t v = 0; v < h.size(); ++v)
        h[v] += float(amplitude * std::sin(glm::dot(k, mesh.positions[v]) + phase));
    }
  }
  return h;
}

inline float heightAt(const geodesy::SphereMesh& mesh, std::span<const float> h,
                      const geodesy::SurfacePoint& at) {
  const uint32_t* c = &mesh.indices[3 * size_t(at.face)];
  return h[c[0]] * at.bary.x + h[c[1]] * at.bary.y + h[c[2]] * at.bary.z;
}

inline geodesy::DropletSpawn spawnAt(const geodesy::SphereMesh& mesh, glm::vec3 p) {
  geodesy::DropletSpawn s;
  s.point = mesh.locate(glm::normalize(p));
  return s;
}

inline erosion::ErosionInput inputFor(const geodesy::SphereMesh& mesh, double sea_level_m = -1e9) {
  erosion::ErosionInput input;
  input.mesh = &mesh;
  input.radius_m = kRadiusM;
  input.sea_level_m = sea_level_m;
  input.seed = 7;
  return input;
}

inline std::vector<float> hardness(const geodesy::SphereMesh& mesh) {
  std::vector<float> e(mesh.vertexCount());
  for (size_t v = 0; v < e.size(); ++v)
    e[v] = 0.4f + 0.6f * (0.5f + 0.5f * std::sin(3.0f * mesh.positions[v].x + 1.0f));
  return e;
}

inline double massError(const geodesy::SphereMesh& mesh, std::span<const float> before,
                        std::span<const float> after) {
  double net = 0.0, gross = 0.0;
  for (size_t v = 0; v < before.size(); ++v) {
    const double dv = (double(after[v]) - double(before[v])) * mesh.vertex_areas[v];
    net += dv;
    gross += std::abs(dv);
  }
  return gross > 0.0 ? std::abs(net) / gross : 0.0;
}

}  // namespace erosion_fixtures
