#pragma once
// Per-vertex fields of a synthetic planet of any frequency, made without the icosphere: for the
// tests of tiles, which need only the lattice's arrays (tiles::TilePlanet).

#include <cstdint>
#include <vector>

#include <glm/vec3.hpp>

#include "geodesy/lattice_numbering.h"
#include "geodesy/spacing.h"

namespace test_support {

// height(p, v) at every vertex v of the frequency-f planet (p its unit position), in the
// icosphere's vertex order.
template <typename Height>
std::vector<float> latticeField(int f, Height height) {
  const geodesy::LatticeNumbering numbering(f);
  std::vector<float> out(10 * size_t(f) * size_t(f) + 2);
  for (uint32_t base = 0; base < 20; ++base) {
    for (uint32_t j = 0; j <= uint32_t(f); ++j) {
      for (uint32_t i = 0; i + j <= uint32_t(f); ++i) {
        const uint32_t v = numbering.vertex(base, i, j);
        const glm::dvec3 p =
            geodesy::latticePosition(geodesy::Spacing::kSineWeights, uint64_t(f), base, i, j);
        out[v] = float(height(p, v));
      }
    }
  }
  return out;
}

}  // namespace test_support
