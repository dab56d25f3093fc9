#pragma once
// Hillshading shared by the relief map and the globe: the terrain's tint is multiplied by how
// squarely a (vertically exaggerated) surface normal faces the light.

#include <glm/vec3.hpp>

namespace planet_export {

// Sun position in each point's local sky. The default is the cartographic convention: light
// from the north-west, 45 degrees above the horizon.
struct SunLight {
  double azimuth_deg = 315.0;  // clockwise from north
  double altitude_deg = 45.0;  // above the horizon, in (0, 90]
};

// East, north and up at a unit position (geodesy::eastAt / northAt, which stay finite at the
// poles).
struct TangentFrame {
  glm::dvec3 east;
  glm::dvec3 north;
  glm::dvec3 up;
};
TangentFrame tangentFrame(const glm::dvec3& unit_position);

// Unit vector toward the sun at a point with the given local frame.
glm::dvec3 sunDirection(const TangentFrame& frame, const SunLight& sun);

// Brightness factor for a unit normal given the direction to the light and the local up:
// 1 on level ground, up to 1.3 on slopes facing the light, down to 0.25 on slopes facing away.
// Level ground is the reference so the tint of flat land keeps its colour.
double hillshade(const glm::dvec3& normal, const glm::dvec3& up, const glm::dvec3& to_light);

}  // namespace planet_export
