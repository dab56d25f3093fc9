#include "planet/tile_region.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <glm/geometric.hpp>

#include "export/tile_glb.h"
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

BoxFrame tileBoxFrame(const tiles::TileGenerator& generator, const tiles::TileId& id) {
  const auto c = cornerDirections(generator, id);
  const glm::dvec3 up = glm::normalize(c[0] + c[1] + c[2]);
  return {{geodesy::eastAt(up), geodesy::northAt(up), up}};
}

void BoxExtent::add(const BoxFrame& frame, const glm::dvec3& p) {
  for (int a = 0; a < 3; ++a) {
    const double along = glm::dot(p, frame.axes[a]);
    lo[a] = std::min(lo[a], along);
    hi[a] = std::max(hi[a], along);
  }
}

BoxExtent tileContentExtent(const BoxFrame& frame, const tiles::TileMesh& mesh,
                            double skirt_depth_m) {
  BoxExtent out;
  for (size_t v = 0; v < mesh.vertexCount(); ++v) out.add(frame, mesh.position(v));
  if (skirt_depth_m > 0.0) {
    for (const auto& edge : mesh.topology->edges) {
      for (uint32_t v : edge) {
        const glm::vec3 lowered =
            planet_export::skirtOffset(mesh.centre_m, mesh.positions_m[v], skirt_depth_m);
        out.add(frame, mesh.centre_m + glm::dvec3(lowered));
      }
    }
  }
  return out;
}

std::array<double, 12> boxOf(const BoxFrame& frame, const BoxExtent& extent) {
  glm::dvec3 centre(0.0);
  std::array<double, 12> box{};
  for (int a = 0; a < 3; ++a) {
    centre += 0.5 * (extent.lo[a] + extent.hi[a]) * frame.axes[a];
    const glm::dvec3 half = (0.5 * (extent.hi[a] - extent.lo[a]) + kBoxMarginM) * frame.axes[a];
    box[3 + 3 * a] = half.x, box[4 + 3 * a] = half.y, box[5 + 3 * a] = half.z;
  }
  box[0] = centre.x, box[1] = centre.y, box[2] = centre.z;
  return box;
}

std::vector<std::array<double, 12>> tileBoxes(const tiles::TileGenerator& generator,
                                              const TileBakePlan& plan,
                                              std::span<const BoxExtent> content) {
  if (content.size() != plan.tiles.size())
    throw std::invalid_argument("tileBoxes: one content extent per plan tile is needed");
  std::vector<std::array<double, 12>> boxes(plan.tiles.size());
  // Children come after their parents in a plan: from the last tile back, every child's box is
  // ready when its parent's is made.
  for (size_t k = plan.tiles.size(); k-- > 0;) {
    const BoxFrame frame = tileBoxFrame(generator, plan.tiles[k].id);
    BoxExtent extent = content[k];
    for (uint32_t child : plan.tiles[k].children) {
      const auto& b = boxes[child];
      for (int corner = 0; corner < 8; ++corner) {
        glm::dvec3 p(b[0], b[1], b[2]);
        for (int a = 0; a < 3; ++a)
          p += ((corner >> a) & 1 ? 1.0 : -1.0) *
               glm::dvec3(b[3 + 3 * a], b[4 + 3 * a], b[5 + 3 * a]);
        extent.add(frame, p);
      }
    }
    boxes[k] = boxOf(frame, extent);
  }
  return boxes;
}

double tileGeometricError(const tiles::TileGenerator& generator, int level) {
  return generator.layout().levelSpacingRad(level) * generator.radiusM();
}

}  // namespace planet
