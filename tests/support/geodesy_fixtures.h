#pragma once
// Meshes and points shared by the geodesy tests (geodesy/icosphere_test, geodesy/locate_test).

#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <numbers>

#include <glm/vec3.hpp>

#include "geodesy/hash.h"
#include "geodesy/sphere_mesh.h"

namespace geodesy_fixtures {

using geodesy::SphereMesh;

inline const int kFrequencies[] = {1, 2, 3, 7, 64};

// Meshes are immutable, so each frequency is built once and shared by the tests.
inline const SphereMesh& meshOf(int frequency) {
  static std::map<int, SphereMesh> meshes;
  auto it = meshes.find(frequency);
  if (it == meshes.end()) it = meshes.emplace(frequency, geodesy::buildIcosphere(frequency)).first;
  return it->second;
}

inline glm::dvec3 position(const SphereMesh& mesh, uint32_t v) {
  return glm::dvec3(mesh.positions[v]);
}

inline std::array<uint32_t, 3> corners(const SphereMesh& mesh, uint32_t face) {
  return {mesh.indices[3 * face], mesh.indices[3 * face + 1], mesh.indices[3 * face + 2]};
}

inline glm::dvec3 randomUnit(geodesy::HashStream& rng) {
  const double z = 2.0 * rng.uniform() - 1.0;
  const double phi = 2.0 * std::numbers::pi * rng.uniform();
  const double r = std::sqrt(1.0 - z * z);
  return {r * std::cos(phi), r * std::sin(phi), z};
}

}  // namespace geodesy_fixtures
