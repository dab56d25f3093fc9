#pragma once
// Equirectangular sampling of per-vertex fields: every pixel centre is located on the mesh
// once, then any field is interpolated barycentrically at those points.
//
// Pixel (x, y) of a W x H map is centred at longitude -pi + (x + 0.5) * 2 pi / W (west edge at
// -180 degrees, east to the right) and latitude pi/2 - (y + 0.5) * pi / H (north at the top).

#include <span>
#include <vector>

#include <glm/vec3.hpp>

#include "geodesy/sphere_mesh.h"

namespace planet_export {

// Unit direction of the centre of pixel (x, y) of a width x height equirectangular map.
glm::dvec3 equirectDirection(int x, int y, int width, int height);

// Where every pixel centre falls on the mesh, row-major from the top-left.
struct EquirectLocations {
  int width = 0;
  int height = 0;
  std::vector<geodesy::SurfacePoint> points;
};

// Locates all pixel centres (width, height >= 1). Parallel over rows on the caller's oneTBB
// arena; each row starts with mesh.locate and walks with locateFrom, so the result does not
// depend on the thread count.
EquirectLocations locateEquirect(const geodesy::SphereMesh& mesh, int width, int height);

// Barycentric interpolation of a per-vertex value at a located point.
float interpolate(const geodesy::SphereMesh& mesh, const geodesy::SurfacePoint& point,
                  std::span<const float> per_vertex);
glm::vec3 interpolate(const geodesy::SphereMesh& mesh, const geodesy::SurfacePoint& point,
                      std::span<const glm::vec3> per_vertex);

// The field (one value per vertex) at every located pixel, row-major. Parallel, deterministic.
std::vector<float> sampleVertexField(const geodesy::SphereMesh& mesh,
                                     const EquirectLocations& where,
                                     std::span<const float> per_vertex);

}  // namespace planet_export
