#include "export/detail/surface_normals.h"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <cmath>

#include <tbb/parallel_for.h>
#include <glm/geometric.hpp>

namespace planet_export {

glm::vec3 toUnitFloat(const glm::dvec3& direction) {
  glm::vec3 unit(direction / glm::length(direction));
  // Casting each component rounds by at most 2^-24 relative, so one correction suffices in
  // practice; the loop bound only guards against pathological inputs.
  for (int attempt = 0; attempt < 3; ++attempt) {
    const double length = glm::length(glm::dvec3(unit));
    if (std::abs(length - 1.0) <= 1e-7) break;
    unit = glm::vec3(glm::dvec3(unit) / length);
  }
  return unit;
}

namespace {

// A vertex's unit normal from its sum of face normals, or its own direction where the faces
// cancel out.
glm::vec3 normalFrom(const glm::dvec3& sum, const glm::dvec3& displaced) {
  const double length = glm::length(sum);
  return toUnitFloat(length > 0.0 && std::isfinite(length) ? sum : displaced);
}

// The original order of work, kept for meshes that are not numbered like buildIcosphere's:
// every face's normal added to its corners' sums in face order, on one thread.
std::vector<glm::vec3> normalsInFaceOrder(const geodesy::SphereMesh& mesh, auto displacedAt) {
  const size_t vertex_count = mesh.vertexCount();
  std::vector<glm::dvec3> sums(vertex_count, glm::dvec3(0.0));
  for (size_t f = 0; f < mesh.faceCount(); ++f) {
    const uint32_t a = mesh.indices[3 * f];
    const uint32_t b = mesh.indices[3 * f + 1];
    const uint32_t c = mesh.indices[3 * f + 2];
    const glm::dvec3 da = displacedAt(a);
    const glm::dvec3 weighted = glm::cross(displacedAt(b) - da, displacedAt(c) - da);
    sums[a] += weighted;
    sums[b] += weighted;
    sums[c] += weighted;
  }
  std::vector<glm::vec3> normals(vertex_count);
  tbb::parallel_for(size_t(0), vertex_count,
                    [&](size_t v) { normals[v] = normalFrom(sums[v], displacedAt(v)); });
  return normals;
}

}  // namespace

std::vector<glm::vec3> displacedVertexNormals(const geodesy::SphereMesh& mesh,
                                              std::span<const float> elevation_m, double radius_m,
                                              double exaggeration) {
  const size_t vertex_count = mesh.vertexCount();
  assert(elevation_m.size() == vertex_count);
  // A vertex displaced along its direction, computed where it is needed (a table of all of
  // them would cost 24 bytes per vertex).
  auto displacedAt = [&](size_t v) {
    const glm::dvec3 unit = glm::normalize(glm::dvec3(mesh.positions[v]));
    return (radius_m + exaggeration * double(elevation_m[v])) * unit;
  };
  // Each vertex's sum adds its faces' normals in face order. buildIcosphere numbers the
  // vertices on the base (icosahedron) edges first, then each base face's interior vertices,
  // and the faces base face by base face (geodesy/sphere_mesh.h): an interior vertex is only
  // on faces of its own base face. So the base faces are summed side by side, each into a
  // table of its own interior vertices, and only the edge vertices keep a table for the whole
  // run, summed over all faces in face order. The same sums, in the same order, as one pass
  // over the faces; a mesh numbered otherwise takes that pass.
  const size_t f = size_t(std::max(0, mesh.frequency));
  const size_t edge_vertices = f >= 1 ? 12 + 30 * (f - 1) : 0;
  const size_t interior = f >= 2 ? (f - 1) * (f - 2) / 2 : 0;
  const size_t base_faces = 20, faces_per_base = f * f;
  if (f == 0 || vertex_count != edge_vertices + base_faces * interior ||
      mesh.faceCount() != base_faces * faces_per_base) {
    return normalsInFaceOrder(mesh, displacedAt);
  }
  std::vector<glm::vec3> normals(vertex_count);
  std::atomic<bool> numbered_otherwise{false};
  // Per base face, its faces that touch an edge vertex (ascending): the edge vertices' sums
  // below visit only these, in face order, not every face of the mesh.
  std::vector<std::vector<uint32_t>> edge_faces(base_faces);
  tbb::parallel_for(size_t(0), base_faces, size_t(1), [&](size_t k) {
    const size_t first = edge_vertices + k * interior;
    std::vector<glm::dvec3> sums(interior, glm::dvec3(0.0));
    // This base face's interior vertices displaced once; the few edge vertices as needed.
    std::vector<glm::dvec3> displaced(interior);
    for (size_t i = 0; i < interior; ++i) displaced[i] = displacedAt(first + i);
    auto displacedHere = [&](uint32_t v) {
      return v >= first ? displaced[v - first] : displacedAt(v);
    };
    for (size_t face = k * faces_per_base; face < (k + 1) * faces_per_base; ++face) {
      const uint32_t* corner = &mesh.indices[3 * face];
      bool inside = false, on_edge = false;
      for (int i = 0; i < 3; ++i) {
        if (corner[i] < edge_vertices) {
          on_edge = true;
          continue;
        }
        if (corner[i] < first || corner[i] >= first + interior) {
          numbered_otherwise = true;
          return;
        }
        inside = true;
      }
      if (on_edge) edge_faces[k].push_back(uint32_t(face));
      if (!inside) continue;
      const glm::dvec3 da = displacedHere(corner[0]);
      const glm::dvec3 weighted =
          glm::cross(displacedHere(corner[1]) - da, displacedHere(corner[2]) - da);
      for (int i = 0; i < 3; ++i)
        if (corner[i] >= edge_vertices) sums[corner[i] - first] += weighted;
    }
    for (size_t i = 0; i < interior; ++i) normals[first + i] = normalFrom(sums[i], displaced[i]);
  });
  if (numbered_otherwise) return normalsInFaceOrder(mesh, displacedAt);
  std::vector<glm::dvec3> edge_sums(edge_vertices, glm::dvec3(0.0));
  for (const std::vector<uint32_t>& faces : edge_faces) {
    for (const uint32_t face : faces) {
      const uint32_t* corner = &mesh.indices[3 * size_t(face)];
      const glm::dvec3 da = displacedAt(corner[0]);
      const glm::dvec3 weighted =
          glm::cross(displacedAt(corner[1]) - da, displacedAt(corner[2]) - da);
      for (int i = 0; i < 3; ++i)
        if (corner[i] < edge_vertices) edge_sums[corner[i]] += weighted;
    }
  }
  tbb::parallel_for(size_t(0), edge_vertices,
                    [&](size_t v) { normals[v] = normalFrom(edge_sums[v], displacedAt(v)); });
  return normals;
}

}  // namespace planet_export
