#include "tiles/detail_noise.h"

#include <algorithm>
#include <cmath>

namespace tiles {
namespace {

// Smooth ramp from 0 at t <= 0 to 1 at t >= 1.
double ramp(double t) {
  t = std::clamp(t, 0.0, 1.0);
  return t * t * (3.0 - 2.0 * t);
}

}  // namespace

std::vector<Octave> detailOctaves(const NoiseSpectrum& spectrum, double planet_step,
                                  double level_step, double hurst) {
  std::vector<Octave> out;
  if (!(hurst > 0.0)) hurst = -std::log(spectrum.persistence) / std::log(spectrum.lacunarity);
  double frequency = spectrum.frequency;
  for (int k = 0; k < 200; ++k, frequency *= spectrum.lacunarity) {
    const double wavelength = 1.0 / frequency;
    if (wavelength <= 2.0 * level_step) break;
    // Octaves the planet's lattice cannot hold: a step samples them less than once per
    // wavelength. Coarser ones are in the planet already, or aliased and eroded there.
    const double beyond_planet = ramp(std::log2(planet_step / wavelength));
    const double resolved = ramp(std::log2(wavelength / (2.0 * level_step)));
    const double weight = beyond_planet * resolved;
    if (weight <= 0.0) continue;
    Octave o;
    o.frequency = frequency;
    o.amplitude = weight * std::pow(wavelength / planet_step, hurst);
    o.offset = glm::dvec3(17.31 * k, -9.73 * k, 5.19 * k);
    o.pin_radius = std::min(0.5, 0.9 * wavelength / planet_step);
    out.push_back(o);
  }
  return out;
}

}  // namespace tiles
