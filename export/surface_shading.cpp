#include "export/surface_shading.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include <glm/geometric.hpp>

#include "geodesy/latlon.h"

namespace planet_export {

TangentFrame tangentFrame(const glm::dvec3& p) {
  return TangentFrame{geodesy::eastAt(p), geodesy::northAt(p), p};
}

glm::dvec3 sunDirection(const TangentFrame& frame, const SunLight& sun) {
  const double azimuth = sun.azimuth_deg * std::numbers::pi / 180.0;
  const double altitude = sun.altitude_deg * std::numbers::pi / 180.0;
  return std::cos(altitude) * (std::sin(azimuth) * frame.east + std::cos(azimuth) * frame.north) +
         std::sin(altitude) * frame.up;
}

double hillshade(const glm::dvec3& normal, const glm::dvec3& up, const glm::dvec3& to_light) {
  const double level = glm::dot(up, to_light);
  if (level <= 1e-6) return 1.0;  // light at the horizon: no meaningful relief shading
  const double relative = glm::dot(normal, to_light) / level;
  return std::clamp(0.25 + 0.75 * relative, 0.25, 1.3);
}

}  // namespace planet_export
