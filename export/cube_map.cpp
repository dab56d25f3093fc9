#include "export/cube_map.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include <tbb/parallel_for.h>

#include "export/detail/surface_buffers.h"
#include "export/equirect_sampler.h"

namespace planet_export {

glm::dvec3 cubeFaceDirection(CubeFace face, int x, int y, int size) {
  const double s = 2.0 * (x + 0.5) / size - 1.0;
  const double t = 2.0 * (y + 0.5) / size - 1.0;
  switch (face) {
    case CubeFace::kPosX:
      return {1.0, -t, -s};
    case CubeFace::kNegX:
      return {-1.0, -t, s};
    case CubeFace::kPosY:
      return {s, 1.0, t};
    case CubeFace::kNegY:
      return {s, -1.0, -t};
    case CubeFace::kPosZ:
      return {s, -t, 1.0};
    default:
      return {-s, -t, -1.0};
  }
}

std::array<Gray16Image, 6> renderCubeHeightmap(const PlanetSurface& surface, int size,
                                               const HeightmapRange& range) {
  validateSurface(surface);
  if (size < 1) {
    throw std::invalid_argument("renderCubeHeightmap: face size " + std::to_string(size) +
                                " is too small (at least 1)");
  }
  const geodesy::SphereMesh& mesh = *surface.mesh;
  const double scale = range.max_m > range.min_m ? 65535.0 / (range.max_m - range.min_m) : 0.0;
  std::array<Gray16Image, 6> faces;
  for (int f = 0; f < 6; ++f) {
    Gray16Image& image = faces[size_t(f)];
    image = Gray16Image(size, size);
    tbb::parallel_for(0, size, [&](int y) {
      geodesy::SurfacePoint point;
      for (int x = 0; x < size; ++x) {
        const glm::vec3 p(cubeFaceDirection(CubeFace(f), x, y, size));
        point = x == 0 ? mesh.locate(p) : mesh.locateFrom(point.face, p);
        const double e = interpolate(mesh, point, surface.elevation_m);
        image.pixels[size_t(y) * size_t(size) + size_t(x)] =
            uint16_t(std::lround(std::clamp((e - range.min_m) * scale, 0.0, 65535.0)));
      }
    });
  }
  return faces;
}

}  // namespace planet_export
