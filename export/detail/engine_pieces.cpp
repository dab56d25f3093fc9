#include "export/detail/engine_pieces.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include <glm/geometric.hpp>

#include "export/detail/chunks.h"
#include "export/detail/surface_normals.h"
#include "geodesy/latlon.h"

namespace planet_export {
namespace {

// Directions closer to the axis than this have no usable longitude.
constexpr double kPoleHorizontal = 1e-9;

bool isPole(const glm::dvec3& p) {
  const double limit = kPoleHorizontal * glm::length(p);
  // hypot(x, z) >= max(|x|, |z|) (also after rounding), so this settles almost every vertex
  // without the hypot call, with the same answer.
  if (std::max(std::abs(p.x), std::abs(p.z)) > limit) return false;
  return std::hypot(p.x, p.z) <= limit;
}

}  // namespace

glm::dvec2 equirectUv(const glm::dvec3& direction) {
  const geodesy::LatLon ll = geodesy::unitToLatLon(direction);
  double u = (ll.lon_rad + std::numbers::pi) / (2.0 * std::numbers::pi);
  if (u >= 1.0) u -= 1.0;  // lon = +pi is the same meridian as -pi
  const double v = (0.5 * std::numbers::pi - ll.lat_rad) / std::numbers::pi;
  return {u, v};
}

Piece splitSeam(std::span<const glm::vec3> directions, std::span<const uint32_t> indices,
                uint32_t surface_indices) {
  Piece piece;
  const size_t n = directions.size();
  piece.source.resize(n);
  piece.uv.resize(n);
  std::vector<bool> pole(n);
  for (size_t s = 0; s < n; ++s) {
    const glm::dvec3 p(directions[s]);
    piece.source[s] = uint32_t(s);
    piece.uv[s] = glm::vec2(equirectUv(p));
    pole[s] = isPole(p);
  }
  piece.indices.assign(indices.begin(), indices.end());
  piece.surface_indices = surface_indices;
  // Copy of source vertex s with u shifted by one, made once per vertex.
  std::vector<uint32_t> shifted(n, UINT32_MAX);
  for (size_t t = 0; t + 2 < piece.indices.size(); t += 3) {
    uint32_t* corner = &piece.indices[t];
    double u_min = 2.0, u_max = -1.0;
    for (int k = 0; k < 3; ++k) {
      if (pole[corner[k]]) continue;
      u_min = std::min(u_min, double(piece.uv[corner[k]].x));
      u_max = std::max(u_max, double(piece.uv[corner[k]].x));
    }
    if (u_max - u_min > 0.5) {  // straddles the seam: move the western corners past u = 1
      for (int k = 0; k < 3; ++k) {
        const uint32_t s = corner[k];
        if (pole[s] || piece.uv[s].x >= 0.5f) continue;
        if (shifted[s] == UINT32_MAX) {
          shifted[s] = uint32_t(piece.source.size());
          piece.source.push_back(s);
          piece.uv.push_back(piece.uv[s] + glm::vec2(1.0f, 0.0f));
        }
        corner[k] = shifted[s];
      }
    }
    for (int k = 0; k < 3; ++k) {
      const uint32_t s = piece.source[corner[k]];
      if (!pole[s]) continue;
      double u = 0.0;
      for (int j = 1; j < 3; ++j) u += 0.5 * double(piece.uv[corner[(k + j) % 3]].x);
      corner[k] = uint32_t(piece.source.size());
      piece.source.push_back(s);
      piece.uv.push_back({float(u), piece.uv[s].y});
    }
  }
  return piece;
}

glm::vec4 equirectTangent(const glm::vec3& normal, const glm::vec3& direction) {
  const glm::dvec3 n(normal);
  const glm::dvec3 east = geodesy::eastAt(glm::dvec3(direction));
  glm::dvec3 t = east - n * glm::dot(n, east);
  if (glm::length(t) < 1e-12) t = geodesy::northAt(glm::dvec3(direction));  // normal due east
  t = glm::normalize(t);
  const glm::dvec3 north = geodesy::northAt(glm::dvec3(direction));
  const double w = glm::dot(glm::cross(n, t), north) >= 0.0 ? 1.0 : -1.0;
  return {float(t.x), float(t.y), float(t.z), float(w)};
}

OceanMesh oceanMesh(const geodesy::SphereMesh& mesh, const OceanCover& cover, double radius_m,
                    LocalIds& local) {
  OceanMesh out;
  out.positions.resize(cover.vertices.size());
  out.normals.resize(cover.vertices.size());
  out.indices.resize(3 * cover.faces.size());
  writeOceanVertices(mesh, cover.vertices, radius_m, out.positions, out.normals);
  writeOceanIndices(mesh, cover, local, out.indices);
  return out;
}

void writeOceanVertices(const geodesy::SphereMesh& mesh, std::span<const uint32_t> vertices,
                        double radius_m, std::span<glm::vec3> positions,
                        std::span<glm::vec3> normals) {
  for (size_t i = 0; i < vertices.size(); ++i) {
    const glm::dvec3 unit = glm::normalize(glm::dvec3(mesh.positions[vertices[i]]));
    if (!positions.empty()) positions[i] = glm::vec3(radius_m * unit);
    if (!normals.empty()) normals[i] = toUnitFloat(unit);
  }
}

void writeOceanIndices(const geodesy::SphereMesh& mesh, const OceanCover& cover, LocalIds& local,
                       std::span<uint32_t> indices) {
  local.assign(cover.vertices, mesh.vertexCount());
  for (size_t i = 0; i < indices.size(); ++i) {
    indices[i] = local(mesh.indices[3 * size_t(cover.faces[i / 3]) + i % 3]);
  }
}

double oceanRadius(double radius_m, double sea_level_m) {
  const double sea_radius = radius_m + sea_level_m;
  const float r = float(sea_radius);
  return sea_radius + 2.0 * double(std::nextafter(r, 2.0f * r) - r);
}

OceanCover oceanCover(const geodesy::SphereMesh& mesh, std::span<const float> elevation_m,
                      double sea_level_m, std::span<const uint32_t> faces, DistinctIds& distinct) {
  OceanCover cover;
  distinct.start(mesh.vertexCount());
  for (uint32_t f : faces) {
    const uint32_t* corner = &mesh.indices[3 * size_t(f)];
    bool wet = false;
    for (int k = 0; k < 3; ++k) wet = wet || double(elevation_m[corner[k]]) < sea_level_m;
    if (!wet) continue;
    cover.faces.push_back(f);
    for (int k = 0; k < 3; ++k) distinct.add(corner[k]);
  }
  if (!std::is_sorted(cover.faces.begin(), cover.faces.end())) {  // pieces list them ascending
    std::sort(cover.faces.begin(), cover.faces.end());
  }
  cover.vertices = distinct.take();
  return cover;
}

}  // namespace planet_export
