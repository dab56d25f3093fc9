#pragma once
// Latitude/longitude <-> unit vector, in the frame of sphere_mesh.h (+Y north, lon 0 at +X,
// east toward -Z). Angles are in radians.

#include <glm/vec3.hpp>

namespace geodesy {

struct LatLon {
  double lat_rad = 0.0;  // [-pi/2, pi/2]
  double lon_rad = 0.0;  // (-pi, pi]
};

glm::dvec3 latLonToUnit(LatLon ll);
LatLon unitToLatLon(const glm::dvec3& p);

// Unit vectors pointing east and north at p (p unit length, not a pole for east).
// (east, north, p) is right-handed: cross(eastAt(p), northAt(p)) = p. Any non-zero length of
// p works. At a pole, where east is undefined, they return the limits along longitude 0
// (east = -Z) so the frame stays right-handed and finite; unitToLatLon gives lon 0 there.
glm::dvec3 eastAt(const glm::dvec3& p);
glm::dvec3 northAt(const glm::dvec3& p);

}  // namespace geodesy
