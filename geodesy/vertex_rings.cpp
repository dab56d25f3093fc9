#include "geodesy/vertex_rings.h"

#include <cassert>
#include <cmath>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <glm/geometric.hpp>

#include "geodesy/angles.h"
#include "geodesy/large_array.h"

namespace geodesy {
namespace {

// Solid angle of the spherical triangle with unit corners a, b, c (Van Oosterom and
// Strackee 1983): tan(E / 2) = |a . (b x c)| / (1 + a.b + b.c + c.a). The triple product is
// taken on the edge vectors, which keeps its relative precision for tiny triangles.
double sphericalTriangleArea(const glm::dvec3& a, const glm::dvec3& b, const glm::dvec3& c) {
  const double triple = std::abs(glm::dot(a, glm::cross(b - a, c - a)));
  const double denominator = 1.0 + glm::dot(a, b) + glm::dot(b, c) + glm::dot(c, a);
  return 2.0 * atan2NonNegative(triple, denominator);
}

// Positions are unit length to float precision, |p|^2 = 1 + e with |e| < 1e-7, so one Newton
// step for 1 / sqrt(|p|^2) from 1 normalises to about e^2 = 1e-14 without a square root.
glm::dvec3 unitDouble(const glm::vec3& p) {
  const glm::dvec3 d(p);
  return d * (1.5 - 0.5 * glm::dot(d, d));
}

}  // namespace

std::vector<float> sphericalFaceAreas(const SphereMesh& mesh) {
  std::vector<float> areas;
  resizeLarge(areas, mesh.faceCount());
  tbb::parallel_for(tbb::blocked_range<size_t>(0, areas.size()),
                    [&](const tbb::blocked_range<size_t>& range) {
                      for (size_t f = range.begin(); f != range.end(); ++f) {
                        const uint32_t* v = &mesh.indices[3 * f];
                        areas[f] = float(sphericalTriangleArea(unitDouble(mesh.positions[v[0]]),
                                                               unitDouble(mesh.positions[v[1]]),
                                                               unitDouble(mesh.positions[v[2]])));
                      }
                    });
  return areas;
}

void fillVertexRing(SphereMesh& mesh, const std::vector<float>& face_areas, uint32_t v,
                    uint32_t face, int corner) {
  uint32_t out = mesh.neighbour_offsets[v];
  [[maybe_unused]] const uint32_t end = mesh.neighbour_offsets[v + 1];
  double area = 0.0;
  uint32_t f = face;
  int k = corner;
  // In face (v, a, b), counter-clockwise, a comes before b around v; the next face around v
  // is the one across the edge b -> v, edge (k + 2) % 3.
  do {
    assert(mesh.indices[3 * f + k] == v && out < end);
    mesh.neighbours[out++] = mesh.indices[3 * f + (k + 1) % 3];
    area += double(face_areas[f]);
    f = mesh.faceAcross(f, (k + 2) % 3);
    const uint32_t* c = &mesh.indices[3 * f];
    k = c[0] == v ? 0 : (c[1] == v ? 1 : 2);
  } while (f != face);
  assert(out == end);
  mesh.vertex_areas[v] = float(area / 3.0);
}

}  // namespace geodesy
