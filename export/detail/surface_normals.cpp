#include "export/detail/surface_normals.h"

#include <cassert>
#include <cmath>

#include <tbb/parallel_for.h>
#include <glm/geometric.hpp>

namespace planet_export {

glm::vec3 toUnitFloat(const glm::dvec3& direction) {
  glm::vec3 unit(direction / glm::length(direction));
  // Casting each component rounds by at most 2^-24 relative, so one correction suffices in
  // practice; the loop bound only guards against pathological inputs.
  for (int attempt = 0; attempt < 3; ++attempt) {
    const double length = glm::length(glm::dvec3(unit));
    if (std::abs(length - 1.0) <= 1e-7) break;
    unit = glm::vec3(glm::dvec3(unit) / length);
  }
  return unit;
}

std::vector<glm::vec3> displacedVertexNormals(const geodesy::SphereMesh& mesh,
                                              std::span<const float> elevation_m, double radius_m,
                                              double exaggeration) {
  const size_t vertex_count = mesh.vertexCount();
  assert(elevation_m.size() == vertex_count);
  std::vector<glm::dvec3> displaced(vertex_count);
  tbb::parallel_for(size_t(0), vertex_count, [&](size_t v) {
    const glm::dvec3 unit = glm::normalize(glm::dvec3(mesh.positions[v]));
    displaced[v] = (radius_m + exaggeration * double(elevation_m[v])) * unit;
  });
  // The face sums stay on one thread: each vertex adds its faces' normals in face order.
  std::vector<glm::dvec3> sums(vertex_count, glm::dvec3(0.0));
  for (size_t f = 0; f < mesh.faceCount(); ++f) {
    const uint32_t a = mesh.indices[3 * f];
    const uint32_t b = mesh.indices[3 * f + 1];
    const uint32_t c = mesh.indices[3 * f + 2];
    const glm::dvec3 weighted =
        glm::cross(displaced[b] - displaced[a], displaced[c] - displaced[a]);
    sums[a] += weighted;
    sums[b] += weighted;
    sums[c] += weighted;
  }
  std::vector<glm::vec3> normals(vertex_count);
  tbb::parallel_for(size_t(0), vertex_count, [&](size_t v) {
    const double length = glm::length(sums[v]);
    normals[v] = toUnitFloat(length > 0.0 && std::isfinite(length) ? sums[v] : displaced[v]);
  });
  return normals;
}

}  // namespace planet_export
