#include "tiles/planet_triangle.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <string>

namespace tiles {

TriangleSamples planetTriangleSamples(const TileLayout& layout, int level, uint32_t base,
                                      uint32_t i, uint32_t j, uint32_t per_edge) {
  const uint64_t frequency = layout.levelFrequency(level);
  const uint64_t f = uint64_t(layout.planetFrequency());
  const uint64_t m = frequency / f;
  if (frequency % f != 0 || per_edge == 0 || m % per_edge != 0) {
    throw std::invalid_argument("level " + std::to_string(level) + " has " + std::to_string(m) +
                                " steps per planet edge, not a multiple of " +
                                std::to_string(per_edge));
  }
  const uint64_t step = m / per_edge, q = per_edge;
  TriangleSamples out;
  for (uint64_t b = 0; b <= q; ++b) {
    for (uint64_t a = 0; a + b <= q; ++a) {
      const uint64_t c = q - a - b;
      out.points.push_back(canonicalPoint(
          frequency, {base, uint32_t((i * q + a) * step), uint32_t((j * q + b) * step)}));
      out.weights.push_back((a == q || b == q || c == q)   ? 1.0
                            : (a == 0 || b == 0 || c == 0) ? 3.0
                                                           : 6.0);
    }
  }
  return out;
}

TriangleMoments differenceMoments(const TriangleSamples& samples, std::span<const float> a,
                                  std::span<const float> b) {
  double sum = 0.0, square = 0.0, total = 0.0;
  for (size_t k = 0; k < samples.weights.size(); ++k) {
    const double d = double(a[k]) - double(b[k]);
    const double w = samples.weights[k];
    sum += w * d, square += w * d * d, total += w;
  }
  return {sum / total, std::sqrt(square / total)};
}

double localRelief(const geodesy::LatticeNumbering& numbering, std::span<const float> elevation_m,
                   uint32_t base, uint32_t i, uint32_t j) {
  const uint64_t f = numbering.frequency();
  float lo = elevation_m[numbering.vertex(base, i, j)], hi = lo;
  for (const auto& c : {std::array<uint32_t, 2>{i, j}, {i + 1, j}, {i, j + 1}}) {
    const LatticePoint p = canonicalPoint(f, {base, c[0], c[1]});
    std::array<LatticePoint, 6> ring;
    const int count = latticeRing(f, p, ring);
    for (int r = 0; r <= count; ++r) {
      const LatticePoint& x = r < count ? ring[r] : p;
      const float e = elevation_m[numbering.vertex(x.base, x.i, x.j)];
      lo = std::min(lo, e), hi = std::max(hi, e);
    }
  }
  return double(hi) - double(lo);
}

}  // namespace tiles
