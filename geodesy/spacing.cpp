#include "geodesy/spacing.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <numbers>

#include <glm/common.hpp>

#include "geodesy/icosahedron.h"
#include "geodesy/lattice_numbering.h"

namespace geodesy {

std::vector<double> spacingWeights(Spacing spacing, int frequency) {
  std::vector<double> g(size_t(frequency) + 1);
  for (int k = 0; k <= frequency; ++k)
    g[k] = spacingWeight(spacing, uint64_t(k), uint64_t(frequency));
  return g;
}

glm::dvec3 latticeCoordinates(Spacing spacing, const glm::dvec3& w_in) {
  const glm::dvec3 w = glm::max(w_in, glm::dvec3(0.0));
  const double sum = w.x + w.y + w.z;
  assert(sum > 0.0);
  if (spacing == Spacing::kFlat) return w / sum;

  // sin(omega b_k) = lambda w_k with sum_k b_k = 1, i.e. h(lambda) = sum_k asin(lambda w_k) -
  // omega = 0. h is increasing and convex, so Newton started above the root walks down to it
  // without overshooting. Bounds: asin x >= x gives lambda <= omega / sum, sin <= 1 gives
  // lambda <= 1 / max w, and asin x <= x pi / 2 gives lambda >= 2 omega / (pi sum). Bisection
  // covers the one case Newton cannot: an infinite slope where lambda max w = 1 (a corner).
  const double omega = icosahedron().edge_arc;
  const double w_max = std::max({w.x, w.y, w.z});
  double lo = 2.0 * omega / (std::numbers::pi * sum);
  double hi = std::min(omega / sum, 1.0 / w_max);
  double lambda = hi;
  for (int iteration = 0; iteration < 100; ++iteration) {
    double h = -omega, slope = 0.0;
    for (int k = 0; k < 3; ++k) {
      const double x = std::min(1.0, lambda * w[k]);
      h += std::asin(x);
      slope += w[k] / std::sqrt(std::max(0.0, 1.0 - x * x));
    }
    if (std::abs(h) < 1e-14) break;
    (h > 0.0 ? hi : lo) = lambda;
    double next = lambda - h / slope;
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
    if (next == lambda) break;
    lambda = next;
  }
  glm::dvec3 b;
  for (int k = 0; k < 3; ++k) b[k] = std::asin(std::min(1.0, lambda * w[k])) / omega;
  return b / (b.x + b.y + b.z);
}

}  // namespace geodesy
