#include "export/globe.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

#include <tbb/parallel_for.h>
#include <glm/geometric.hpp>

#include "export/colour_ramps.h"
#include "export/detail/map_input.h"
#include "export/equirect_sampler.h"
#include "export/shared_normals.h"
#include "export/surface_shading.h"
#include "geodesy/latlon.h"

namespace planet_export {
namespace {

constexpr double kDiscFraction = 0.96;
constexpr double kAmbient = 0.12;

struct Ray {
  glm::dvec3 origin;
  glm::dvec3 direction;  // unit
};

// Nearest intersection of a ray with the unit sphere at the origin, if any (t >= 0).
bool hitUnitSphere(const Ray& ray, glm::dvec3* hit) {
  const double b = glm::dot(ray.origin, ray.direction);
  const double c = glm::dot(ray.origin, ray.origin) - 1.0;
  const double discriminant = b * b - c;
  if (discriminant < 0.0) return false;
  const double t = -b - std::sqrt(discriminant);
  if (t < 0.0) return false;
  *hit = glm::normalize(ray.origin + t * ray.direction);
  return true;
}

}  // namespace

RgbImage renderGlobe(const PlanetSurface& surface, const GlobeOptions& options) {
  checkMapInput("renderGlobe", surface, options.size_px);
  if (options.supersampling < 1) {
    throw std::invalid_argument("renderGlobe: supersampling must be >= 1");
  }
  const geodesy::SphereMesh& mesh = *surface.mesh;
  const VertexNormals normals = vertexNormals(surface, options.vertical_exaggeration);

  // Camera: looks at the view point from outside; right = east, up = north there.
  const double degrees = std::numbers::pi / 180.0;
  const glm::dvec3 forward = geodesy::latLonToUnit(
      {options.view_lat_deg * degrees, options.view_lon_deg * degrees});  // toward the viewer
  const TangentFrame frame = tangentFrame(forward);
  const glm::dvec3 right = frame.east;
  const glm::dvec3 up = frame.north;
  const glm::dvec3 light = glm::normalize(options.light_view.x * right + options.light_view.y * up +
                                          options.light_view.z * forward);
  const glm::dvec3 halfway = glm::normalize(light + forward);

  const int size = options.size_px;
  const int samples = options.supersampling;
  const double pixel = 2.0 / (kDiscFraction * size);  // image-plane units per pixel
  RgbImage image(size, size);
  tbb::parallel_for(0, size, [&](int y) {
    uint32_t hint = 0;
    bool have_hint = false;
    for (int x = 0; x < size; ++x) {
      glm::dvec3 sum(0.0);
      for (int sy = 0; sy < samples; ++sy) {
        for (int sx = 0; sx < samples; ++sx) {
          const double u = (x + (sx + 0.5) / samples - 0.5 * size) * pixel;
          const double v = (0.5 * size - (y + (sy + 0.5) / samples)) * pixel;
          const Ray ray{u * right + v * up + 2.0 * forward, -forward};
          glm::dvec3 p;
          Rgb colour = options.background;
          if (hitUnitSphere(ray, &p)) {
            const glm::vec3 pf(p);
            const geodesy::SurfacePoint point =
                have_hint ? mesh.locateFrom(hint, pf) : mesh.locate(pf);
            hint = point.face;
            have_hint = true;
            const double above_sea =
                double(interpolate(mesh, point, surface.elevation_m)) - surface.sea_level_m;
            if (above_sea >= 0.0) {
              const glm::dvec3 n =
                  glm::normalize(glm::dvec3(interpolate(mesh, point, normals.values())));
              const double lit = kAmbient + (1.0 - kAmbient) * std::max(0.0, glm::dot(n, light));
              colour = scaled(hypsometricTint(above_sea, surface.palette), lit);
            } else {
              const double lit = kAmbient + (1.0 - kAmbient) * std::max(0.0, glm::dot(p, light));
              const double gloss = std::pow(std::max(0.0, glm::dot(p, halfway)), 60.0) * 0.5;
              const Rgb water =
                  mix(bathymetricTint(-above_sea, surface.palette), kOceanColour, 0.5);
              const Rgb lit_water = scaled(water, lit);
              colour = Rgb{float(std::min(1.0, lit_water.r + gloss)),
                           float(std::min(1.0, lit_water.g + gloss)),
                           float(std::min(1.0, lit_water.b + gloss))};
            }
          }
          sum += glm::dvec3(colour.r, colour.g, colour.b);
        }
      }
      sum /= double(samples * samples);
      image.set(x, y, Rgb{float(sum.x), float(sum.y), float(sum.z)});
    }
  });
  return image;
}

}  // namespace planet_export
