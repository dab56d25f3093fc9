#pragma once
// Where lattice points go on the sphere (see Spacing in sphere_mesh.h), and back. Internal to
// geodesy: the builder places vertices with it, locate inverts it for its first guess.

#include <cmath>
#include <vector>

#include <glm/vec3.hpp>

#include "geodesy/sphere_mesh.h"

namespace geodesy {

// g(k / f) for k = 0 .. f. g(0) is exactly 0, so a point on a base edge gets no weight from
// the opposite corner and its position depends only on the edge's two corners.
std::vector<double> spacingWeights(Spacing spacing, int frequency);

// The point with corner weights g0, g1, g2 on the base face with unit corners c0, c1, c2.
inline glm::dvec3 placePoint(double g0, double g1, double g2, const glm::dvec3& c0,
                             const glm::dvec3& c1, const glm::dvec3& c2) {
  const glm::dvec3 p = g0 * c0 + g1 * c1 + g2 * c2;
  return p / std::sqrt(p.x * p.x + p.y * p.y + p.z * p.z);
}

// Inverse of the spacing on one base face: given weights w >= 0 (not all 0) with
// p proportional to sum_k w_k c_k, the lattice barycentric coordinates b (summing to 1) of
// the point p. Accurate to about 1e-12; locate only needs a first guess.
glm::dvec3 latticeCoordinates(Spacing spacing, const glm::dvec3& w);

}  // namespace geodesy
