// The butterfly stencil that carries a coarser level's values to a finer level's points
// (tiles/detail/butterfly.h): on a regular lattice it reproduces cubic polynomials of the plane
// exactly (Dyn, Levin & Gregory 1990), which the edge mean does only for planes, and a missing
// point of the stencil gives nothing.

#include <cmath>
#include <optional>

#include <catch2/catch.hpp>

#include "tiles/detail/butterfly.h"

namespace {

// Plane coordinates of lattice point (a, b) (equilateral, unit steps).
double planeX(double a, double b) {
  return a + 0.5 * b;
}
double planeY(double, double b) {
  return 0.8660254037844386 * b;
}

double cubic(double a, double b) {
  const double x = planeX(a, b), y = planeY(a, b);
  return 3.0 + 2.0 * x - 1.5 * y + 0.7 * x * x - 0.4 * x * y + 0.9 * y * y + 0.05 * x * x * x -
         0.08 * x * x * y + 0.03 * x * y * y - 0.06 * y * y * y;
}

}  // namespace

TEST_CASE("butterfly: a cubic on the coarse lattice is reproduced at every edge's midpoint",
          "[tiles]") {
  // Coarse points at even coordinates of the fine lattice (scale 2): the stencil's value at the
  // midpoint of the edge from (ax, ay) in direction k against the cubic there.
  const auto value = [](int64_t x, int64_t y) -> std::optional<double> {
    return cubic(double(x), double(y));
  };
  const auto& kUnit = tiles::kLatticeSteps;
  double worst_butterfly = 0.0, worst_mean = 0.0;
  for (int64_t ax = -6; ax <= 6; ax += 2) {
    for (int64_t ay = -6; ay <= 6; ay += 2) {
      for (int k = 0; k < 6; ++k) {
        const std::optional<double> v = tiles::detail::butterflyMidpoint(value, ax, ay, k, 2);
        REQUIRE(v);
        const double mx = double(ax + kUnit[k][0]), my = double(ay + kUnit[k][1]);
        const double mean =
            0.5 * (cubic(double(ax), double(ay)) +
                   cubic(double(ax + 2 * kUnit[k][0]), double(ay + 2 * kUnit[k][1])));
        worst_butterfly = std::max(worst_butterfly, std::abs(*v - cubic(mx, my)));
        worst_mean = std::max(worst_mean, std::abs(mean - cubic(mx, my)));
      }
    }
  }
  CHECK(worst_butterfly < 1e-9);
  CHECK(worst_mean > 0.1);  // the edge mean misses the curvature
}

TEST_CASE("butterfly: a missing point of the stencil gives nothing", "[tiles]") {
  // The wing a + 2 u_{k+2} of the edge from (0, 0) along k = 0 is (-2, 2): missing.
  const auto value = [](int64_t x, int64_t y) -> std::optional<double> {
    if (x == -2 && y == 2) return std::nullopt;
    return 1.0;
  };
  CHECK_FALSE(tiles::detail::butterflyMidpoint(value, 0, 0, 0, 2));
  // The edge from (0, 0) along k = 5 does not reach it.
  CHECK(tiles::detail::butterflyMidpoint(value, 0, 0, 5, 2) == std::optional<double>(1.0));
}
