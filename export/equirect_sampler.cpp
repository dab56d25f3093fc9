#include "export/equirect_sampler.h"

#include <cassert>
#include <numbers>

#include <tbb/parallel_for.h>
#include <glm/geometric.hpp>

#include "geodesy/latlon.h"

namespace planet_export {

glm::dvec3 equirectDirection(int x, int y, int width, int height) {
  const double pi = std::numbers::pi;
  geodesy::LatLon ll;
  ll.lon_rad = -pi + (x + 0.5) * 2.0 * pi / width;
  ll.lat_rad = 0.5 * pi - (y + 0.5) * pi / height;
  return geodesy::latLonToUnit(ll);
}

EquirectLocations locateEquirect(const geodesy::SphereMesh& mesh, int width, int height) {
  assert(width >= 1 && height >= 1);
  EquirectLocations where{width, height, {}};
  where.points.resize(size_t(width) * size_t(height));
  tbb::parallel_for(0, height, [&](int y) {
    geodesy::SurfacePoint* row = &where.points[size_t(y) * size_t(width)];
    for (int x = 0; x < width; ++x) {
      const glm::vec3 p(equirectDirection(x, y, width, height));
      row[x] = x == 0 ? mesh.locate(p) : mesh.locateFrom(row[x - 1].face, p);
    }
  });
  return where;
}

float interpolate(const geodesy::SphereMesh& mesh, const geodesy::SurfacePoint& point,
                  std::span<const float> per_vertex) {
  const uint32_t* corner = &mesh.indices[3 * size_t(point.face)];
  return point.bary[0] * per_vertex[corner[0]] + point.bary[1] * per_vertex[corner[1]] +
         point.bary[2] * per_vertex[corner[2]];
}

glm::vec3 interpolate(const geodesy::SphereMesh& mesh, const geodesy::SurfacePoint& point,
                      std::span<const glm::vec3> per_vertex) {
  const uint32_t* corner = &mesh.indices[3 * size_t(point.face)];
  return point.bary[0] * per_vertex[corner[0]] + point.bary[1] * per_vertex[corner[1]] +
         point.bary[2] * per_vertex[corner[2]];
}

std::vector<float> sampleVertexField(const geodesy::SphereMesh& mesh,
                                     const EquirectLocations& where,
                                     std::span<const float> per_vertex) {
  assert(per_vertex.size() == mesh.vertexCount());
  std::vector<float> samples(where.points.size());
  tbb::parallel_for(size_t(0), samples.size(),
                    [&](size_t i) { samples[i] = interpolate(mesh, where.points[i], per_vertex); });
  return samples;
}

}  // namespace planet_export
