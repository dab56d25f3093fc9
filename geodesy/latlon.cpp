#include "geodesy/latlon.h"

#include <cmath>
#include <numbers>

#include <glm/geometric.hpp>

namespace geodesy {

glm::dvec3 latLonToUnit(LatLon ll) {
  const double c = std::cos(ll.lat_rad);
  return {c * std::cos(ll.lon_rad), std::sin(ll.lat_rad), -c * std::sin(ll.lon_rad)};
}

LatLon unitToLatLon(const glm::dvec3& p) {
  const double horizontal = std::hypot(p.x, p.z);
  LatLon ll;
  ll.lat_rad = std::atan2(p.y, horizontal);
  // At the poles longitude is undefined; report 0 there. atan2 gives [-pi, pi]; fold -pi
  // (from -0.0) onto pi to keep (-pi, pi].
  ll.lon_rad = horizontal > 0.0 ? std::atan2(-p.z, p.x) : 0.0;
  if (ll.lon_rad == -std::numbers::pi) ll.lon_rad = std::numbers::pi;
  return ll;
}

glm::dvec3 eastAt(const glm::dvec3& p) {
  // d/dlon of latLonToUnit is (-sin lon, 0, -cos lon) cos lat, i.e. (z, 0, -x) normalised.
  const double horizontal = std::hypot(p.x, p.z);
  if (horizontal == 0.0) return {0.0, 0.0, -1.0};  // pole: east of longitude 0
  return {p.z / horizontal, 0.0, -p.x / horizontal};
}

glm::dvec3 northAt(const glm::dvec3& p) {
  // (east, north, up) is right-handed: north = up x east.
  return glm::normalize(glm::cross(p, eastAt(p)));
}

}  // namespace geodesy
