#include <algorithm>
#include <stdexcept>

#include <tbb/parallel_for.h>
#include <glm/geometric.hpp>

#include "export/colour_ramps.h"
#include "export/detail/map_input.h"
#include "export/equirect_sampler.h"
#include "export/maps.h"
#include "export/shared_normals.h"

namespace planet_export {

RgbImage renderShadedRelief(const PlanetSurface& surface, const ReliefOptions& options) {
  checkMapInput("renderShadedRelief", surface, options.width);
  if (!options.water.empty() && options.water.size() != surface.mesh->vertexCount())
    throw std::invalid_argument("renderShadedRelief: water needs one value per vertex");
  const geodesy::SphereMesh& mesh = *surface.mesh;
  const int width = options.width;
  const int height = width / 2;
  // The normal of the exaggerated surface is the hillshade's elevation gradient: n is tilted
  // from up by the slope, toward the downhill side.
  const VertexNormals normals = vertexNormals(surface, options.vertical_exaggeration);
  EquirectLocations own;
  const EquirectLocations& where = mapLocations(surface, width, height, own);
  RgbImage image(width, height);
  tbb::parallel_for(0, height, [&](int y) {
    for (int x = 0; x < width; ++x) {
      const geodesy::SurfacePoint& point = where.points[size_t(y) * size_t(width) + size_t(x)];
      const double above_sea =
          double(interpolate(mesh, point, surface.elevation_m)) - surface.sea_level_m;
      if (above_sea < 0.0) {
        image.set(x, y, bathymetricTint(-above_sea, surface.palette));
        continue;
      }
      const glm::dvec3 up = equirectDirection(x, y, width, height);
      const glm::dvec3 normal =
          glm::normalize(glm::dvec3(interpolate(mesh, point, normals.values())));
      const glm::dvec3 to_sun = sunDirection(tangentFrame(up), options.sun);
      Rgb colour =
          scaled(hypsometricTint(above_sea, surface.palette), hillshade(normal, up, to_sun));
      if (!options.water.empty()) {
        const float w = std::clamp(interpolate(mesh, point, options.water), 0.0f, 1.0f);
        const Rgb river{0.12f, 0.35f, 0.85f};
        colour = {colour.r + w * (river.r - colour.r), colour.g + w * (river.g - colour.g),
                  colour.b + w * (river.b - colour.b)};
      }
      image.set(x, y, colour);
    }
  });
  return image;
}

}  // namespace planet_export
