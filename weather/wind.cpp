#include "weather/wind.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include <glm/geometric.hpp>

namespace weather {
namespace {

constexpr double kDegPerRad = 180.0 / std::numbers::pi;
constexpr double kFullDeflectionSlopeMPerDeg = 1000.0;

// 0 below edge - width / 2, 1 above edge + width / 2, C1 smoothstep between; a step if
// width = 0.
double blend(double x, double edge, double width) {
  if (width <= 0.0) return x >= edge ? 1.0 : 0.0;
  const double t = std::clamp((x - (edge - 0.5 * width)) / width, 0.0, 1.0);
  return t * t * (3.0 - 2.0 * t);
}

}  // namespace

ZonalWind zonalWindAt(const WeatherParams& p, double lat_deg) {
  const double a = std::min(std::fabs(lat_deg), 90.0);
  const double w = p.band_blend_deg;
  const double s1 = blend(a, p.band_edge_1_deg, w);
  const double s2 = blend(a, p.band_edge_2_deg, w);
  // Band values in the northern hemisphere.
  const double trade_u = -p.trade_strength_deg, westerly_u = p.westerly_strength_deg,
               polar_u = -p.polar_strength_deg;
  const double m = p.meridional_ratio;
  const double trade_v = -m * p.trade_strength_deg, westerly_v = m * p.westerly_strength_deg,
               polar_v = -m * p.polar_strength_deg;
  double u = trade_u + (westerly_u - trade_u) * s1 + (polar_u - westerly_u) * s2;
  double v = trade_v + (westerly_v - trade_v) * s1 + (polar_v - westerly_v) * s2;
  // The two hemispheres' v meet with opposite signs at the equator: fade it over half a blend
  // width. At the pole every direction is south, so the whole wind fades there.
  v *= a > 0.0 ? blend(a, 0.25 * w, 0.5 * w) : 0.0;
  const double pole = a < 90.0 ? blend(90.0 - a, 0.25 * w, 0.5 * w) : 0.0;
  u *= pole;
  v *= pole;
  return {u, lat_deg < 0.0 ? -v : v};
}

glm::dvec3 windAt(const WeatherParams& params, const glm::dvec3& unit_position) {
  const glm::dvec3 p = glm::normalize(unit_position);
  const double lat_deg = std::asin(std::clamp(p.y, -1.0, 1.0)) * kDegPerRad;
  const ZonalWind z = zonalWindAt(params, lat_deg);
  const double horizontal2 = p.x * p.x + p.z * p.z;
  if ((z.east_deg == 0.0 && z.north_deg == 0.0) || horizontal2 == 0.0) return glm::dvec3(0.0);
  // geodesy::eastAt without its hypot, which costs more than the rest of this function.
  const double inv = 1.0 / std::sqrt(horizontal2);
  const glm::dvec3 east(p.z * inv, 0.0, -p.x * inv);
  const glm::dvec3 north = glm::cross(p, east);
  return (z.east_deg * east + z.north_deg * north) / kDegPerRad;
}

glm::dvec3 deflectedWind(const WeatherParams& params, const glm::dvec3& wind,
                         const glm::dvec3& gradient_m_per_rad) {
  if (params.terrain_deflection <= 0.0) return wind;
  const double slope = glm::length(gradient_m_per_rad);
  if (!(slope > 0.0)) return wind;
  const glm::dvec3 up = gradient_m_per_rad / slope;
  const double upslope = glm::dot(wind, up);
  if (upslope <= 0.0) return wind;
  const double s = std::min(1.0, slope / (kFullDeflectionSlopeMPerDeg * kDegPerRad));
  return wind - params.terrain_deflection * s * upslope * up;
}

}  // namespace weather
