#pragma once
// Measuring a level's surface against the planet, one planet triangle at a time: the lattice
// points of a level over a planet triangle with the weights of the lattice rule for its mean,
// and the planet's local relief there. What the consistency figures (the detail's mean over each
// planet triangle, docs/tiles.md) are computed with.

#include <cstdint>
#include <span>
#include <vector>

#include "geodesy/lattice_numbering.h"
#include "tiles/lattice_point.h"
#include "tiles/tile_layout.h"

namespace tiles {

struct TriangleSamples {
  std::vector<LatticePoint> points;  // canonical points of the level
  // Each point's share of the mean: the small lattice triangles around it (1 at a corner, 3 on
  // an edge, 6 inside), so sum(w h) / sum(w) is the mean of the piecewise-linear surface.
  std::vector<double> weights;
};

// The points of `level` over the up planet triangle (i, j), (i + 1, j), (i, j + 1) of base face
// `base`, per_edge + 1 of them along each edge (per_edge divides the level's steps per planet
// edge, levelFrequency / planetFrequency). Throws std::invalid_argument otherwise.
TriangleSamples planetTriangleSamples(const TileLayout& layout, int level, uint32_t base,
                                      uint32_t i, uint32_t j, uint32_t per_edge);

// Weighted mean and root mean square of a - b over the samples (a, b: one value per sample,
// e.g. a level's heights with and without detail).
struct TriangleMoments {
  double mean = 0.0;
  double rms = 0.0;
};
TriangleMoments differenceMoments(const TriangleSamples& samples, std::span<const float> a,
                                  std::span<const float> b);

// Highest minus lowest planet elevation over that triangle's corners and their rings.
double localRelief(const geodesy::LatticeNumbering& numbering, std::span<const float> elevation_m,
                   uint32_t base, uint32_t i, uint32_t j);

}  // namespace tiles
