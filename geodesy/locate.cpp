#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

#include <glm/common.hpp>
#include <glm/geometric.hpp>

#include "geodesy/icosahedron.h"
#include "geodesy/lattice.h"
#include "geodesy/spacing.h"
#include "geodesy/sphere_mesh.h"

namespace geodesy {
namespace {

// A face holds p when each of p's three weights is at least -kInsideTolerance times their sum.
// The slack (far below the 1e-6 users may see) lets every face touching an edge or vertex
// accept a point on it, so rounding near a vertex cannot leave p with no face and the walk
// cannot circle it.
constexpr double kInsideTolerance = 1e-9;
// From locate's lattice guess the walk takes 0 steps for 99.98% of random points and 1 for
// the rest; from a droplet's last face, 1 to 3. The caps only bound pathological cases.
constexpr int kGuessWalkSteps = 64;
constexpr int kHintWalkSteps = 16;

// p's unnormalised weights in face f: d_k = det(p, c_{k+1}, c_{k+2}), the signed volume
// spanned by p and the edge opposite corner k. d_k >= 0 means p is on the inner side of that
// edge's great circle; d / sum(d) are the barycentric weights of the point where p's ray
// meets the face's plane.
glm::dvec3 faceWeights(const SphereMesh& mesh, uint32_t f, const glm::dvec3& p) {
  const uint32_t* v = &mesh.indices[3 * size_t(f)];
  const glm::dvec3 a(mesh.positions[v[0]]), b(mesh.positions[v[1]]), c(mesh.positions[v[2]]);
  return {glm::dot(p, glm::cross(b, c)), glm::dot(p, glm::cross(c, a)),
          glm::dot(p, glm::cross(a, b))};
}

SurfacePoint surfacePoint(uint32_t f, const glm::dvec3& d) {
  const glm::dvec3 w = glm::max(d, glm::dvec3(0.0));
  return {f, glm::vec3(w / (w.x + w.y + w.z))};
}

// Greedy walk toward p: while p lies outside the current face, cross the edge it is farthest
// beyond. Returns false if p was not reached within max_steps.
bool walk(const SphereMesh& mesh, uint32_t f, const glm::dvec3& p, int max_steps,
          SurfacePoint* out) {
  for (int step = 0; step <= max_steps; ++step) {
    const glm::dvec3 d = faceWeights(mesh, f, p);
    const double sum = d.x + d.y + d.z;
    const int worst = d.x <= d.y ? (d.x <= d.z ? 0 : 2) : (d.y <= d.z ? 1 : 2);
    if (sum > 0.0 && d[worst] >= -kInsideTolerance * sum) {
      *out = surfacePoint(f, d);
      return true;
    }
    // The edge opposite corner k runs from corner k + 1 to k + 2: edge (k + 1) % 3.
    f = mesh.faceAcross(f, (worst + 1) % 3);
  }
  return false;
}

// Last resort if a walk ever fails (none has in testing): the face where p is least outside.
SurfacePoint scanAllFaces(const SphereMesh& mesh, const glm::dvec3& p) {
  uint32_t best = 0;
  double best_score = -std::numeric_limits<double>::infinity();
  glm::dvec3 best_d(1.0, 0.0, 0.0);
  for (uint32_t f = 0; f < mesh.faceCount(); ++f) {
    const glm::dvec3 d = faceWeights(mesh, f, p);
    const double sum = d.x + d.y + d.z;
    if (!(sum > 0.0)) continue;
    const double score = std::min({d.x, d.y, d.z}) / sum;
    if (score > best_score) {
      best_score = score;
      best = f;
      best_d = d;
    }
  }
  return surfacePoint(best, best_d);
}

// The face the lattice predicts for p: pick the base face p's ray crosses, undo the spacing
// to get lattice coordinates, and round them to a lattice triangle.
uint32_t latticeGuess(const SphereMesh& mesh, const glm::dvec3& p) {
  const Icosahedron& ico = icosahedron();
  uint32_t base = 0;
  double best = -2.0;
  for (uint32_t b = 0; b < Icosahedron::kFaces; ++b) {
    const double d = glm::dot(p, ico.centres[b]);
    if (d > best) {
      best = d;
      base = b;
    }
  }
  const auto& n = ico.opposite_normals[base];
  const glm::dvec3 w(glm::dot(p, n[0]), glm::dot(p, n[1]), glm::dot(p, n[2]));
  const glm::dvec3 b = latticeCoordinates(mesh.spacing, w);

  const Lattice lattice{uint32_t(mesh.frequency)};
  const double f = double(mesh.frequency);
  const double x = std::clamp(b.y * f, 0.0, f), y = std::clamp(b.z * f, 0.0, f);
  const uint32_t j = std::min(uint32_t(y), lattice.f - 1);
  const uint32_t i = std::min(uint32_t(x), lattice.f - 1 - j);
  const bool down = (x - i) + (y - j) > 1.0 && i + j + 1 < lattice.f;
  return base * lattice.facesPerBase() + (down ? lattice.downFace(i, j) : lattice.upFace(i, j));
}

[[maybe_unused]] bool usable(const glm::dvec3& p) {
  return std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z) && glm::dot(p, p) > 0.0;
}

}  // namespace

SurfacePoint SphereMesh::locate(const glm::vec3& p_in) const {
  const glm::dvec3 p(p_in);
  assert(frequency >= 1 && usable(p));
  SurfacePoint result;
  if (walk(*this, latticeGuess(*this, p), p, kGuessWalkSteps, &result)) return result;
  return scanAllFaces(*this, p);
}

SurfacePoint SphereMesh::locateFrom(uint32_t hint_face, const glm::vec3& p_in) const {
  const glm::dvec3 p(p_in);
  assert(frequency >= 1 && usable(p));
  SurfacePoint result;
  if (hint_face < faceCount() && walk(*this, hint_face, p, kHintWalkSteps, &result)) {
    return result;
  }
  return locate(p_in);
}

}  // namespace geodesy
