#include "tiles/detail/surface_model.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "geodesy/icosahedron.h"
#include "tiles/detail_roughness.h"

namespace tiles::detail {
namespace {

const TilePlanet& checked(const TilePlanet& planet) {
  if (planet.frequency < 1 || planet.frequency > geodesy::kMaxFrequency) {
    throw std::invalid_argument("planet frequency " + std::to_string(planet.frequency) +
                                " is out of range; allowed: 1 to " +
                                std::to_string(geodesy::kMaxFrequency));
  }
  const size_t vertices = 10 * size_t(planet.frequency) * size_t(planet.frequency) + 2;
  if (planet.elevation_m.size() != vertices) {
    throw std::invalid_argument(
        "planet elevation has " + std::to_string(planet.elevation_m.size()) +
        " values; a planet of frequency " + std::to_string(planet.frequency) + " has " +
        std::to_string(vertices) + " vertices");
  }
  if (!planet.water_level_m.empty() && planet.water_level_m.size() != vertices) {
    throw std::invalid_argument(
        "planet water level has " + std::to_string(planet.water_level_m.size()) +
        " values; allowed: none or one per vertex (" + std::to_string(vertices) + ")");
  }
  if (!(planet.radius_m > 0.0) || !std::isfinite(planet.radius_m)) {
    throw std::invalid_argument("planet radius " + std::to_string(planet.radius_m) +
                                " m is not a positive number");
  }
  const NoiseSpectrum& s = planet.spectrum;
  if (!(s.frequency > 0.0) || !(s.lacunarity > 1.0) ||
      !(s.persistence > 0.0 && s.persistence < 1.0)) {
    throw std::invalid_argument(
        "terrain spectrum (frequency " + std::to_string(s.frequency) + ", lacunarity " +
        std::to_string(s.lacunarity) + ", persistence " + std::to_string(s.persistence) +
        ") cannot be continued; allowed: frequency > 0, lacunarity > 1, persistence in (0, 1)");
  }
  return planet;
}

}  // namespace

SurfaceModel::SurfaceModel(const TilePlanet& planet, const TileParams& params)
    : layout(checked(planet).frequency, params.tile_edge),
      spacing(planet.spacing),
      radius_m(planet.radius_m),
      planet_step_rad(geodesy::icosahedron().edge_arc / planet.frequency),
      numbering(planet.frequency),
      elevation_m(planet.elevation_m.begin(), planet.elevation_m.end()),
      roughness_m(detailRoughness(numbering, planet.elevation_m, planet.water_level_m,
                                  planet.sea_level_m, params.detail)),
      noise(planet.spectrum.noise_seed) {
  levels.resize(size_t(layout.deepestLevel()) + 1);
  if (!params.detail.enabled) return;
  for (int level = 0; level <= layout.deepestLevel(); ++level) {
    LevelDetail& d = levels[level];
    d.octaves = detailOctaves(planet.spectrum, planet_step_rad, layout.levelSpacingRad(level),
                              params.detail.hurst);
    double finest_low = 0.0;
    for (const Octave& o : d.octaves) {
      if (1.0 / o.frequency < kIntegratedWavelength * planet_step_rad) break;
      ++d.low_count;
      finest_low = 1.0 / o.frequency;
    }
    // Four samples per wavelength of the finest integrated octave, rounded up to a power of two.
    d.quadrature_order = 4;
    while (d.low_count > 0 && d.quadrature_order * finest_low < 4.0 * planet_step_rad) {
      d.quadrature_order *= 2;
    }
  }
}

}  // namespace tiles::detail
