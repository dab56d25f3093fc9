#pragma once
// The tile generator's immutable state: the planet's arrays it needs, the lattice numbering,
// the detail's amplitude per vertex, the noise and each level's octaves. Built once, then only
// read (thread-safe).

#include <cstdint>
#include <vector>

#include "geodesy/lattice_numbering.h"
#include "tiles/detail_noise.h"
#include "tiles/tile_layout.h"
#include "tiles/tile_planet.h"

namespace tiles::detail {

// Octaves with a wavelength of at least this fraction of the planet step get their mean over
// each planet triangle integrated (and removed); finer ones average out on their own (their
// triangle means are below 0.5 % of the detail amplitude, docs/tiles.md).
constexpr double kIntegratedWavelength = 1.0 / 8.0;

// One level's detail: octaves[0, low_count) are integrated per planet triangle by a lattice
// quadrature of the given order (sample points per planet edge); the rest are not.
struct LevelDetail {
  std::vector<Octave> octaves;
  size_t low_count = 0;
  uint32_t quadrature_order = 0;
};

struct SurfaceModel {
  SurfaceModel(const TilePlanet& planet, const TileParams& params);

  uint32_t planetFrequency() const { return numbering.frequency(); }

  TileLayout layout;
  geodesy::Spacing spacing;
  double radius_m;
  double planet_step_rad;  // base-edge arc / f
  geodesy::LatticeNumbering numbering;
  std::vector<float> elevation_m;
  std::vector<float> roughness_m;   // detailRoughness
  terrain::PerlinNoise noise;       // the terrain's detail noise field
  std::vector<LevelDetail> levels;  // 0 .. layout.deepestLevel()
};

}  // namespace tiles::detail
