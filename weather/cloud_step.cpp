#include "weather/cloud_step.h"

#include <algorithm>
#include <cmath>

#include <glm/geometric.hpp>

#include "weather/wind.h"

namespace weather {
namespace {

constexpr double kOrographicScaleM = 1000.0;

// Moves p by the tangent velocity vel (its length an arc in radians) along the great circle and
// carries vel along it (parallel transport keeps its length and its angle to the path).
void greatCircleStep(glm::dvec3& p, glm::dvec3& vel) {
  const double arc = glm::length(vel);
  if (!(arc > 0.0)) return;
  const glm::dvec3 dir = vel / arc;
  const double c = std::cos(arc), s = std::sin(arc);
  const glm::dvec3 moved = c * p + s * dir;
  const glm::dvec3 new_dir = c * dir - s * p;
  p = glm::normalize(moved);
  vel = arc * (new_dir - glm::dot(new_dir, p) * p);
}

}  // namespace

CloudTick stepCloud(Cloud& cloud, const Terrain& terrain, const WeatherParams& params) {
  const geodesy::SphereMesh& mesh = *terrain.mesh;
  glm::dvec3 wind = windAt(params, cloud.position);
  if (params.terrain_deflection > 0.0) {
    wind = deflectedWind(params, wind, groundGradient(terrain, cloud.face, cloud.position));
  }
  cloud.velocity += params.velocity_relaxation * (wind - cloud.velocity);
  cloud.velocity -= glm::dot(cloud.velocity, cloud.position) * cloud.position;
  const glm::dvec3 from = cloud.position;
  greatCircleStep(cloud.position, cloud.velocity);
  const geodesy::SurfacePoint at = mesh.locateFrom(cloud.face, glm::vec3(cloud.position));
  cloud.face = at.face;

  const double elevation = elevationAt(terrain, at);
  const double ground = groundAt(terrain, at);
  const double rise = ground - cloud.ground_m;
  cloud.ground_m = ground;
  const double shadow =
      rise < 0.0 ? params.rain_shadow * std::min(1.0, -rise / params.shadow_descent_m) : 0.0;
  const double fraction = params.rain_rate * (1.0 - shadow) +
                          params.orographic_factor * std::max(rise, 0.0) / kOrographicScaleM;

  CloudTick out;
  out.from = from;
  out.at = at;
  out.rain = cloud.moisture * std::min(1.0, fraction);
  out.over_land = elevation >= terrain.sea_level_m;
  cloud.moisture -= out.over_land ? out.rain * (1.0 - params.land_recycling) : out.rain;
  if (!out.over_land) {
    cloud.moisture = std::max(
        cloud.moisture, std::min(params.moisture_capacity, cloud.moisture + params.pickup_rate));
  }
  ++cloud.age;
  if (cloud.moisture < params.dry_moisture) {
    out.end = CloudTick::End::kDry;
  } else if (cloud.age >= params.cloud_lifetime) {
    out.end = CloudTick::End::kLifetime;
  }
  return out;
}

Cloud spawnCloud(const glm::dvec3& position, const geodesy::SurfacePoint& at,
                 const Terrain& terrain, const WeatherParams& params, uint32_t id) {
  Cloud cloud;
  cloud.position = position;
  cloud.velocity = windAt(params, position);
  cloud.moisture = std::min(params.initial_moisture, params.moisture_capacity);
  cloud.ground_m = groundAt(terrain, at);
  cloud.face = at.face;
  cloud.id = id;
  return cloud;
}

}  // namespace weather
