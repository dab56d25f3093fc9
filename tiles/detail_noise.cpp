#include "tiles/detail_noise.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "geodesy/hash.h"

namespace tiles {
namespace {

// The terrain's scale for 3D improved noise, whose extreme is near 1.036.
constexpr double kNoiseScale = 0.964;

inline double fade(double t) {
  return t * t * t * (t * (t * 6.0 - 15.0) + 10.0);
}
inline double lerp(double a, double b, double t) {
  return a + t * (b - a);
}
// Dot product with one of the 12 cube-edge gradients (Perlin 2002).
inline double grad(int h, double x, double y, double z) {
  h &= 15;
  const double u = h < 8 ? x : y;
  const double v = h < 4 ? y : ((h == 12 || h == 14) ? x : z);
  return ((h & 1) ? -u : u) + ((h & 2) ? -v : v);
}

// Smooth ramp from 0 at t <= 0 to 1 at t >= 1.
double ramp(double t) {
  t = std::clamp(t, 0.0, 1.0);
  return t * t * (3.0 - 2.0 * t);
}

}  // namespace

GradientNoise::GradientNoise(uint64_t seed) {
  std::array<uint8_t, 256> p{};
  for (int i = 0; i < 256; ++i) p[i] = uint8_t(i);
  // The terrain's table for the same seed: Fisher-Yates driven by the counter-based hash.
  geodesy::HashStream rng(seed, 0x9E1u, 0);
  for (int i = 255; i > 0; --i) {
    const int j = int(rng.next() % uint64_t(i + 1));
    std::swap(p[i], p[j]);
  }
  for (int i = 0; i < 512; ++i) perm_[i] = p[i & 255];
}

double GradientNoise::operator()(const glm::dvec3& pos) const {
  const double fx = std::floor(pos.x), fy = std::floor(pos.y), fz = std::floor(pos.z);
  const double x0 = pos.x - fx, y0 = pos.y - fy, z0 = pos.z - fz;
  const int xi = int(int64_t(fx) & 255), yi = int(int64_t(fy) & 255), zi = int(int64_t(fz) & 255);
  const uint8_t* perm = perm_.data();
  const int a = perm[xi] + yi, aa = perm[a] + zi, ab = perm[a + 1] + zi;
  const int b = perm[xi + 1] + yi, ba = perm[b] + zi, bb = perm[b + 1] + zi;
  const double x1 = x0 - 1.0, y1 = y0 - 1.0, z1 = z0 - 1.0;
  const double u = fade(x0), v = fade(y0), w = fade(z0);
  const double r =
      lerp(lerp(lerp(grad(perm[aa], x0, y0, z0), grad(perm[ba], x1, y0, z0), u),
                lerp(grad(perm[ab], x0, y1, z0), grad(perm[bb], x1, y1, z0), u), v),
           lerp(lerp(grad(perm[aa + 1], x0, y0, z1), grad(perm[ba + 1], x1, y0, z1), u),
                lerp(grad(perm[ab + 1], x0, y1, z1), grad(perm[bb + 1], x1, y1, z1), u), v),
           w);
  return std::clamp(r * kNoiseScale, -1.0, 1.0);
}

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

double octaveSum(const GradientNoise& noise, const Octave* octaves, size_t count,
                 const glm::dvec3& p) {
  double sum = 0.0;
  for (size_t k = 0; k < count; ++k) {
    sum += octaves[k].amplitude * noise(p * octaves[k].frequency + octaves[k].offset);
  }
  return sum;
}

}  // namespace tiles
