#include "planet/tile_region.h"

#include <algorithm>
#include <cmath>

#include <glm/geometric.hpp>

#include "geodesy/latlon.h"

namespace planet {
namespace {

double angleBetween(const glm::dvec3& a, const glm::dvec3& b) {
  return std::atan2(glm::length(glm::cross(a, b)), glm::dot(a, b));
}

// Angular distance from unit q to the great-circle arc from a to b (unit, not opposite).
double distanceToArc(const glm::dvec3& q, const glm::dvec3& a, const glm::dvec3& b) {
  const glm::dvec3 n = glm::normalize(glm::cross(a, b));
  const glm::dvec3 foot = q - glm::dot(q, n) * n;
  if (glm::length(foot) > 0.0) {
    const glm::dvec3 p = glm::normalize(foot);
    if (glm::dot(glm::cross(a, p), n) >= 0.0 && glm::dot(glm::cross(p, b), n) >= 0.0)
      return std::asin(std::min(1.0, std::abs(glm::dot(q, n))));
  }
  return std::min(angleBetween(q, a), angleBetween(q, b));
}

std::array<glm::dvec3, 3> cornerDirections(const tiles::TileGenerator& generator,
                                           const tiles::TileId& id) {
  const auto corners = generator.layout().tileCorners(id);
  std::array<glm::dvec3, 3> out;
  for (int k = 0; k < 3; ++k)
    out[k] = glm::normalize(generator.surfacePosition(int(id.level), corners[k], 0.0f));
  return out;
}

bool meets(const tiles::TileGenerator& generator, const tiles::TileId& id, const glm::dvec3& q,
           double radius_rad) {
  const auto c = cornerDirections(generator, id);
  // Inside the triangle (counter-clockwise seen from outside).
  bool inside = true;
  for (int k = 0; k < 3; ++k)
    inside = inside && glm::dot(q, glm::cross(c[k], c[(k + 1) % 3])) >= 0.0;
  if (inside) return true;
  const double reach = radius_rad + generator.layout().levelSpacingRad(int(id.level));
  for (int k = 0; k < 3; ++k) {
    if (distanceToArc(q, c[k], c[(k + 1) % 3]) <= reach) return true;
  }
  return false;
}

}  // namespace

glm::dvec3 directionOf(double lat_deg, double lon_deg) {
  return geodesy::latLonToUnit({lat_deg * M_PI / 180.0, lon_deg * M_PI / 180.0});
}

TileBakePlan planTileBake(const tiles::TileGenerator& generator, const TileRegion& region,
                          int level) {
  const tiles::TileLayout& layout = generator.layout();
  layout.check({0, uint32_t(level), 0});
  const glm::dvec3 q = directionOf(region.lat_deg, region.lon_deg);
  const double radius_rad = region.radius_m / generator.radiusM();
  TileBakePlan plan;
  plan.level = level;
  for (uint32_t base = 0; base < 20; ++base) {
    BakeTile face;
    face.id = {base, 0, 0};
    plan.tiles.push_back(face);
  }
  for (size_t k = 0; k < plan.tiles.size(); ++k) {
    BakeTile& t = plan.tiles[k];
    t.in_region = meets(generator, t.id, q, radius_rad);
    if (!t.in_region || int(t.id.level) == level) continue;
    for (const tiles::TileId& child : layout.children(t.id)) {
      plan.tiles[k].children.push_back(uint32_t(plan.tiles.size()));
      BakeTile next;
      next.id = child;
      next.parent = int64_t(k);
      plan.tiles.push_back(next);
    }
  }
  return plan;
}

double skirtDepth(const tiles::TileMesh& mesh, double spacing_m) {
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& edge : mesh.topology->edges) {
    for (uint32_t v : edge) {
      lo = std::min(lo, double(mesh.height_m[v]));
      hi = std::max(hi, double(mesh.height_m[v]));
    }
  }
  return (hi - lo) + 0.01 * spacing_m;
}

std::array<double, 12> tileBox(const tiles::TileGenerator& generator, const tiles::TileId& id,
                               bool skirts) {
  const tiles::TileLayout& layout = generator.layout();
  const int level = int(id.level);
  const tiles::HeightRange heights = generator.heightBounds(id);
  const double radius = generator.radiusM();
  const double skirt =
      skirts ? (heights.max_m - heights.min_m) + 0.01 * layout.levelSpacingRad(level) * radius
             : 0.0;
  const double low = radius + heights.min_m - skirt;
  const double high = radius + heights.max_m;
  const auto c = cornerDirections(generator, id);
  const glm::dvec3 up = glm::normalize(c[0] + c[1] + c[2]);
  const glm::dvec3 east = geodesy::eastAt(up), north = geodesy::northAt(up);
  // A linear function's extremes over the tile's patch of sphere lie on its boundary (the patch
  // holds no direction along east or north), so the edge vertices give the horizontal extent;
  // vertically the patch reaches from its lowest edge point up to `up` itself.
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  const uint32_t t = uint32_t(layout.tileEdge());
  for (uint32_t s = 0; s < t; ++s) {
    const tiles::LatticePoint points[3] = {layout.vertexPoint(id, s, 0),
                                           layout.vertexPoint(id, t - s, s),
                                           layout.vertexPoint(id, 0, t - s)};
    for (const tiles::LatticePoint& p : points) {
      const glm::dvec3 u = glm::normalize(generator.surfacePosition(level, p, 0.0f));
      const double along[3] = {glm::dot(u, east), glm::dot(u, north), glm::dot(u, up)};
      for (int a = 0; a < 3; ++a) {
        lo[a] = std::min(lo[a], along[a] * (along[a] >= 0.0 ? low : high));
        hi[a] = std::max(hi[a], along[a] * (along[a] >= 0.0 ? high : low));
      }
    }
  }
  hi[2] = std::max(hi[2], high);
  // Finer levels put points between these: widen by a step of this level.
  const double step = layout.levelSpacingRad(level) * high;
  for (int a = 0; a < 2; ++a) lo[a] -= step, hi[a] += step;
  const glm::dvec3 axes[3] = {east, north, up};
  glm::dvec3 centre(0.0);
  std::array<double, 12> box{};
  for (int a = 0; a < 3; ++a) {
    centre += 0.5 * (lo[a] + hi[a]) * axes[a];
    const glm::dvec3 half = 0.5 * (hi[a] - lo[a]) * axes[a];
    box[3 + 3 * a] = half.x, box[4 + 3 * a] = half.y, box[5 + 3 * a] = half.z;
  }
  box[0] = centre.x, box[1] = centre.y, box[2] = centre.z;
  return box;
}

double tileGeometricError(const tiles::TileGenerator& generator, int level) {
  return generator.layout().levelSpacingRad(level) * generator.radiusM();
}

}  // namespace planet
