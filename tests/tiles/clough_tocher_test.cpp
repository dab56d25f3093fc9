// The planet surface's interpolant (tiles/clough_tocher.h): exact at the vertices, exact for
// quadratics, C1 across the edges between planet triangles where the plain barycentric
// interpolant creases.

#include <array>
#include <cmath>
#include <functional>

#include <catch2/catch.hpp>

#include "geodesy/hash.h"
#include "tiles/clough_tocher.h"

namespace {

// The lattice chart in the plane: i at 0 degrees, j at 60 degrees, unit steps.
struct Xy {
  double x, y;
};
Xy chart(double i, double j) {
  return {i + 0.5 * j, j * std::sqrt(3.0) / 2.0};
}

using Field = std::function<double(Xy)>;

// The derivative of `field` at lattice point v toward lattice point w, from the six (ring)
// values around v: what the tile generator feeds the patches.
double ringDerivative(const Field& field, double vi, double vj, double wi, double wj) {
  const double di = wi - vi, dj = wj - vj;
  // The six unit steps counter-clockwise from (di, dj).
  double h[6];
  double si = di, sj = dj;
  for (int k = 0; k < 6; ++k) {
    h[k] = field(chart(vi + si, vj + sj));
    // Rotate a lattice step by 60 degrees: (1, 0) -> (0, 1) -> (-1, 1) -> ...
    const double ri = -sj, rj = si + sj;
    si = ri, sj = rj;
  }
  return tiles::edgeDerivative6(h[0], h[1], h[2], h[3], h[4], h[5]);
}

// The patch of the up triangle (i, j), (i + 1, j), (i, j + 1) or the down triangle
// (i + 1, j), (i + 1, j + 1), (i, j + 1), from field values and ring derivatives.
tiles::CloughTocher patch(const Field& field, int i, int j, bool down) {
  const double c[3][2] = {{down ? i + 1.0 : double(i), double(j)},
                          {i + 1.0, down ? j + 1.0 : double(j)},
                          {double(i), j + 1.0}};
  std::array<double, 3> f;
  std::array<std::array<double, 2>, 3> d;
  for (int k = 0; k < 3; ++k) {
    f[k] = field(chart(c[k][0], c[k][1]));
    for (int s = 0; s < 2; ++s) {
      const int w = (k + 1 + s) % 3;
      d[k][s] = ringDerivative(field, c[k][0], c[k][1], c[w][0], c[w][1]);
    }
  }
  return tiles::CloughTocher(f, d);
}

}  // namespace

TEST_CASE("clough-tocher: exact at the vertices and for quadratics", "[tiles]") {
  geodesy::HashStream rng(7, 8, 9);
  for (int trial = 0; trial < 20; ++trial) {
    double a[6];
    for (double& v : a) v = 2.0 * rng.uniform() - 1.0;
    const Field quadratic = [&](Xy p) {
      return a[0] + a[1] * p.x + a[2] * p.y + a[3] * p.x * p.x + a[4] * p.x * p.y +
             a[5] * p.y * p.y;
    };
    for (bool down : {false, true}) {
      const tiles::CloughTocher ct = patch(quadratic, 3, 2, down);
      const double corners[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
      const double ci[3][2] = {{down ? 4.0 : 3.0, 2.0}, {4.0, down ? 3.0 : 2.0}, {3.0, 3.0}};
      for (int k = 0; k < 3; ++k) {
        REQUIRE(ct(corners[k][0], corners[k][1], corners[k][2]) ==
                quadratic(chart(ci[k][0], ci[k][1])));
      }
      for (int s = 0; s < 50; ++s) {
        double l1 = rng.uniform(), l2 = rng.uniform();
        if (l1 + l2 > 1.0) l1 = 1.0 - l1, l2 = 1.0 - l2;
        const double l0 = 1.0 - l1 - l2;
        const double i = l0 * ci[0][0] + l1 * ci[1][0] + l2 * ci[2][0];
        const double j = l0 * ci[0][1] + l1 * ci[1][1] + l2 * ci[2][1];
        REQUIRE(ct(l0, l1, l2) == Approx(quadratic(chart(i, j))).margin(1e-12));
      }
    }
  }
}

TEST_CASE("clough-tocher: no crease across a planet edge, unlike barycentric", "[tiles]") {
  const Field rough = [](Xy p) {
    return std::sin(1.7 * p.x + 0.3) * std::cos(2.3 * p.y) + 0.4 * std::sin(3.1 * p.x * p.y);
  };
  // The up triangle (0, 0) and the down triangle (0, 0) share the edge (1, 0) -- (0, 1).
  const tiles::CloughTocher up = patch(rough, 0, 0, false);
  const tiles::CloughTocher down = patch(rough, 0, 0, true);
  auto upAt = [&](double i, double j) { return up(1.0 - i - j, i, j); };
  // Down corners (1, 0), (1, 1), (0, 1): i = l0 + l1, j = l1 + l2.
  auto downAt = [&](double i, double j) { return down(1.0 - j, i + j - 1.0, 1.0 - i); };
  auto linearUp = [&](double i, double j) {
    return (1.0 - i - j) * rough(chart(0, 0)) + i * rough(chart(1, 0)) + j * rough(chart(0, 1));
  };
  auto linearDown = [&](double i, double j) {
    return (1.0 - j) * rough(chart(1, 0)) + (i + j - 1.0) * rough(chart(1, 1)) +
           (1.0 - i) * rough(chart(0, 1));
  };
  const double h = 1e-5;
  double worst_ct = 0.0, worst_linear = 0.0;
  for (double s : {0.2, 0.35, 0.5, 0.7, 0.9}) {
    // Point s along the edge; step h across it along (1, 1) in lattice terms.
    const double i = 1.0 - s, j = s;
    CHECK(upAt(i, j) == Approx(downAt(i, j)).margin(1e-12));  // C0
    const double slope_up = (upAt(i, j) - upAt(i - h, j - h)) / h;
    const double slope_down = (downAt(i + h, j + h) - downAt(i, j)) / h;
    worst_ct = std::max(worst_ct, std::abs(slope_up - slope_down));
    const double linear_up = (linearUp(i, j) - linearUp(i - h, j - h)) / h;
    const double linear_down = (linearDown(i + h, j + h) - linearDown(i, j)) / h;
    worst_linear = std::max(worst_linear, std::abs(linear_up - linear_down));
  }
  CHECK(worst_ct < 1e-3);
  CHECK(worst_linear > 0.05);  // the crease the interpolant removes
}

TEST_CASE("clough-tocher: corner derivative is the five-ring least-squares slope", "[tiles]") {
  // A linear field over a ring spread 72 degrees apart: the derivative toward ring point 0 is
  // the field's slope in that direction.
  const double gx = 0.3, gy = -1.1;
  double h[5];
  for (int k = 0; k < 5; ++k) {
    const double angle = 0.4 + 2.0 * M_PI * k / 5.0;
    h[k] = 2.0 + gx * std::cos(angle) + gy * std::sin(angle);
  }
  CHECK(tiles::edgeDerivative5(2.0, h[0], h[1], h[2], h[3], h[4]) ==
        Approx(gx * std::cos(0.4) + gy * std::sin(0.4)).margin(1e-12));
}
