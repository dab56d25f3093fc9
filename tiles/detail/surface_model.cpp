#include "tiles/detail/surface_model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <span>
#include <stdexcept>
#include <string>

#include "geodesy/icosahedron.h"
#include "tiles/detail_roughness.h"

namespace tiles::detail {
namespace {

// A number as a message shows it: "nan", "-inf", "1e-300".
std::string numberText(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", x);
  return text;
}

// A planet array's first value that is not finite (NaN or infinite) names its vertex: such a
// value, from a corrupt planet or a bad caller, would spread through every tile that samples it.
void checkFinite(const char* what, std::span<const float> values) {
  for (size_t v = 0; v < values.size(); ++v) {
    if (!std::isfinite(values[v])) {
      throw std::invalid_argument(std::string(what) + " at vertex " + std::to_string(v) + " is " +
                                  numberText(values[v]) + "; allowed: finite numbers (metres)");
    }
  }
}

void checkFraction(const char* name, double value) {
  if (!(value >= 0.0 && value <= 1.0)) {
    throw std::invalid_argument(std::string("detail ") + name + " " + numberText(value) +
                                " is out of range; allowed: 0 to 1");
  }
}

const TileParams& checked(const TileParams& params) {
  const DetailParams& d = params.detail;
  if (!(d.relief_roughness >= 0.0) || !std::isfinite(d.relief_roughness)) {
    throw std::invalid_argument("detail relief_roughness " + numberText(d.relief_roughness) +
                                " is not a finite number of at least 0");
  }
  checkFraction("valley_floor", d.valley_floor);
  checkFraction("lake_bed", d.lake_bed);
  checkFraction("sea_floor", d.sea_floor);
  if (!std::isfinite(d.hurst)) {
    throw std::invalid_argument("detail hurst " + numberText(d.hurst) +
                                " is not finite; allowed: a number (0 or less: the terrain's own)");
  }
  return params;
}

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
    throw std::invalid_argument("planet radius " + numberText(planet.radius_m) +
                                " m is not a positive number");
  }
  if (!std::isfinite(planet.sea_level_m)) {
    throw std::invalid_argument("planet sea level " + numberText(planet.sea_level_m) +
                                " m is not finite");
  }
  checkFinite("planet elevation", planet.elevation_m);
  checkFinite("planet water level", planet.water_level_m);
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
    : layout(checked(planet).frequency, checked(params).tile_edge),
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
