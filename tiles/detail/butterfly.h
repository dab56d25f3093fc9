#pragma once
// Internal to tiles/: the butterfly stencil (Dyn, Levin & Gregory 1990) that carries a coarser
// level's values to the points of a finer level between them. The plain edge mean makes the
// carried surface linear over the coarser level's triangles, whose creases then lie along
// every coarser lattice line of the finer tiles (tile edges always among them); the butterfly
// surface is smooth where the coarser lattice is regular and reproduces cubic polynomials.

#include <cstdint>
#include <optional>

#include "tiles/lattice_point.h"

namespace tiles::detail {

// The butterfly value at the midpoint of the edge from lattice point a = (ax, ay) to
// a + scale * u_k, u_k = kLatticeSteps[k]. value(x, y) gives std::optional<double> at a lattice
// point, nullopt where there is none; scale is the coarser lattice's step in the coordinates
// value() takes. nullopt when a point of the stencil is missing (a patch's rim, an icosahedron
// corner).
template <typename Value>
std::optional<double> butterflyMidpoint(const Value& value, int64_t ax, int64_t ay, int k,
                                        int64_t scale) {
  auto unit = [&](int d) { return kLatticeSteps[((d % 6) + 6) % 6]; };
  auto from = [&](int64_t x, int64_t y, int d) {
    return value(x + scale * unit(d)[0], y + scale * unit(d)[1]);
  };
  const int64_t bx = ax + scale * unit(k)[0], by = ay + scale * unit(k)[1];
  // The edge's ends (1/2 each), the two points opposite it (1/8 each: a + u_{k+1} and
  // a + u_{k-1}, the third corners of the triangles on the edge), and the four wings (-1/16
  // each: the points across those triangles' other edges).
  const std::optional<double> ends[2] = {value(ax, ay), value(bx, by)};
  const std::optional<double> opposite[2] = {from(ax, ay, k + 1), from(ax, ay, k - 1)};
  const std::optional<double> wings[4] = {from(ax, ay, k + 2), from(ax, ay, k - 2),
                                          from(bx, by, k + 1), from(bx, by, k - 1)};
  for (const auto& v : ends)
    if (!v) return std::nullopt;
  for (const auto& v : opposite)
    if (!v) return std::nullopt;
  for (const auto& v : wings)
    if (!v) return std::nullopt;
  double sum = 0.5 * (*ends[0] + *ends[1]) + 0.125 * (*opposite[0] + *opposite[1]);
  for (const auto& v : wings) sum -= 0.0625 * *v;
  return sum;
}

}  // namespace tiles::detail
