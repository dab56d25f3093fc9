// TileGenerator::heightBounds: a range that holds the heights of a tile and of every finer
// level inside it, from the planet's arrays alone (no tile is made).
//
// A height is h = S(l) + sigma(l) sum_o A_o (n_o(p) - n_o(V) pin_o) - beta_t B(l)
// (detail/level_sampler.h). Each term is bounded over the planet triangles the tile overlaps:
//  - S, sigma: the Clough-Tocher patch is a cubic Bezier patch on each of its three
//    sub-triangles, so it lies within its ordinates (Bernstein weights are >= 0 and sum to 1).
//    Every ordinate is a corner value plus edge derivatives times at most 1/3 (near, far),
//    1/9 + 1/9 (a), 1/12 + 1/12 + 1/18 + 1/18 (e, beside the mean of two corner values), or a
//    mean of those (b, c); an edge derivative is at most 2/3 of the range R over the corner and
//    its ring (edgeDerivative6) or 1.3 R at the 12 five-valent corners (edgeDerivative5). So S
//    stays within [min f - 0.51 R, max f + 0.51 R] over a triangle's corners (R: their largest
//    range), and so does sigma.
//  - the octave sum: |n| <= 1 (terrain::PerlinNoise) and 0 <= pin <= 1, so each octave adds at
//    most 2 A_o; an octave's amplitude only grows with the level (its weight's "resolved" factor
//    rises to 1), so the deepest level's octaves bound every level's.
//  - beta_t B: B <= 1, and beta_t is the triangle's quadrature sum of sigma times the low octaves
//    over 3 q^2 kBumpMean, the weights summing to less than 3 q^2: |beta_t| <= sigma_max
//    2 sum_low A_o / kBumpMean.
// The bound is loose (the octaves rarely reach 1, nor agree in sign) but holds for every level,
// which a bounding volume that must hold tiles not yet made needs (3D Tiles' parents enclose
// their children's content).

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "tiles/detail/level_sampler.h"
#include "tiles/detail/surface_model.h"
#include "tiles/tile_generator.h"

namespace tiles {
namespace {

// Overshoot of the Clough-Tocher patch beyond its corner values, per unit of corner range
// (derivation above: 0.504, rounded up).
constexpr double kPatchOvershoot = 0.51;

}  // namespace

HeightRange TileGenerator::heightBounds(const TileId& id) const {
  const detail::SurfaceModel& m = *model_;
  const TileLayout& layout = m.layout;
  layout.check(id);
  const uint32_t f = m.planetFrequency();
  const double scale = double(f) / double(layout.levelFrequency(int(id.level)));
  // The tile's extent along the lattice's three directions (i, j, i + j), in planet lattice
  // units. Planet triangles and tiles have their edges along the same three directions, so a
  // planet triangle meets the tile exactly when their extents overlap along all three
  // (separating axes).
  const std::array<LatticePoint, 3> corners = layout.tileCorners(id);
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (const LatticePoint& c : corners) {
    const double along[3] = {c.i * scale, c.j * scale, (double(c.i) + double(c.j)) * scale};
    for (int a = 0; a < 3; ++a)
      lo[a] = std::min(lo[a], along[a]), hi[a] = std::max(hi[a], along[a]);
  }
  const int64_t i0 = std::max<int64_t>(0, int64_t(std::floor(lo[0])) - 1);
  const int64_t i1 = std::min<int64_t>(f, int64_t(std::ceil(hi[0])) + 1);
  const int64_t j0 = std::max<int64_t>(0, int64_t(std::floor(lo[1])) - 1);
  const int64_t j1 = std::min<int64_t>(f, int64_t(std::ceil(hi[1])) + 1);

  // Per planet vertex of that window: elevation, roughness, and their ranges over the vertex
  // and its ring.
  struct Vertex {
    float e = 0.0f, e_range = 0.0f, r = 0.0f, r_range = 0.0f;
  };
  const int64_t width = i1 - i0 + 1;
  std::vector<Vertex> window(size_t(width * (j1 - j0 + 1)));
  std::array<LatticePoint, 6> ring;
  for (int64_t j = j0; j <= j1; ++j) {
    for (int64_t i = i0; i <= std::min<int64_t>(i1, int64_t(f) - j); ++i) {
      const LatticePoint p = canonicalPoint(f, {id.base, uint32_t(i), uint32_t(j)});
      const uint32_t v = m.numbering.vertex(p.base, p.i, p.j);
      const float e = m.elevation_m[v], r = m.roughness_m[v];
      float e_lo = e, e_hi = e, r_lo = r, r_hi = r;
      const int count = latticeRing(f, p, ring);
      for (int k = 0; k < count; ++k) {
        const uint32_t w = m.numbering.vertex(ring[k].base, ring[k].i, ring[k].j);
        e_lo = std::min(e_lo, m.elevation_m[w]), e_hi = std::max(e_hi, m.elevation_m[w]);
        r_lo = std::min(r_lo, m.roughness_m[w]), r_hi = std::max(r_hi, m.roughness_m[w]);
      }
      window[size_t((j - j0) * width + (i - i0))] = {e, e_hi - e_lo, r, r_hi - r_lo};
    }
  }

  // The detail's largest amplitude per metre of sigma, over every level.
  double all = 0.0, low = 0.0;
  for (const Octave& o : m.levels.back().octaves) {
    all += o.amplitude;
    if (1.0 / o.frequency >= detail::kIntegratedWavelength * m.planet_step_rad) low += o.amplitude;
  }
  const double per_sigma = 2.0 * all + 2.0 * low / detail::kBumpMean;

  HeightRange out{INFINITY, -INFINITY};
  auto addTriangle = [&](const Vertex& a, const Vertex& b, const Vertex& c) {
    const double e_range = std::max({a.e_range, b.e_range, c.e_range});
    const double r_range = std::max({a.r_range, b.r_range, c.r_range});
    const double sigma = std::max(0.0, std::max({a.r, b.r, c.r}) + kPatchOvershoot * r_range);
    const double reach = kPatchOvershoot * e_range + sigma * per_sigma;
    out.min_m = std::min(out.min_m, std::min({a.e, b.e, c.e}) - reach);
    out.max_m = std::max(out.max_m, std::max({a.e, b.e, c.e}) + reach);
  };
  auto at = [&](int64_t i, int64_t j) -> const Vertex& {
    return window[size_t((j - j0) * width + (i - i0))];
  };
  for (int64_t j = j0; j < j1; ++j) {
    for (int64_t i = i0; i < i1 && i + j < int64_t(f); ++i) {
      // Up triangle (i, j), (i + 1, j), (i, j + 1): i in [i, i + 1], j in [j, j + 1],
      // i + j in [i + j, i + j + 1]; the down one beside it is one higher along i + j.
      const bool meets_i = i <= hi[0] && i + 1 >= lo[0];
      const bool meets_j = j <= hi[1] && j + 1 >= lo[1];
      if (!meets_i || !meets_j) continue;
      const double s = double(i + j);
      if (s <= hi[2] && s + 1 >= lo[2]) addTriangle(at(i, j), at(i + 1, j), at(i, j + 1));
      if (i + j + 1 < int64_t(f) && s + 1 <= hi[2] && s + 2 >= lo[2])
        addTriangle(at(i + 1, j), at(i + 1, j + 1), at(i, j + 1));
    }
  }
  // Room for the rounding of heights to float and of the sums above.
  const double slack = 1e-3 + 1e-6 * std::max(std::abs(out.min_m), std::abs(out.max_m));
  out.min_m -= slack;
  out.max_m += slack;
  return out;
}

}  // namespace tiles
