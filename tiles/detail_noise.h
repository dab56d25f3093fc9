#pragma once
// The terrain's detail fBm continued above the planet's resolution. The planet sampled the
// terrain's noise at its vertices and eroded the result; the octaves finer than its lattice
// are not in it. A tile adds them back: the terrain's own noise field (terrain::PerlinNoise of
// the same seed) with the same per-octave offsets, octave frequencies and amplitude ratio
// (lacunarity, persistence) as the terrain's fBm, continued to the octaves each level can
// resolve. Coordinates are double: at a 1 m lattice an octave's coordinate is about 2^23
// cycles, where a float has no fraction left.

#include <cstdint>
#include <vector>

#include <glm/vec3.hpp>

#include "terrain/perlin.h"

namespace tiles {

// The terrain's detail fBm as plain data (the terrain module's TerrainParams and seed give
// it): the k-th octave has frequency frequency * lacunarity^k cycles per unit length on the
// unit sphere and amplitude persistence^k relative to the first.
struct NoiseSpectrum {
  uint64_t noise_seed = 0;  // the terrain's detail noise field: terrain::detailNoiseSeed(seed)
  double frequency = 2.0;
  double lacunarity = 2.0;
  double persistence = 0.5;
};

struct Octave {
  double frequency = 0.0;  // cycles per unit length
  double amplitude = 0.0;  // relative to the detail's amplitude at the planet's spacing
  glm::dvec3 offset{0.0};  // the terrain's per-octave offset (decorrelates octaves)
  // Radius (planet lattice steps, <= 1/2) of the bump that pins the octave to 0 at each planet
  // vertex: about the noise's own correlation length, so the pinned noise looks like noise
  // that happens to pass through 0 there.
  double pin_radius = 0.0;
};

// The octaves one level adds: those finer than the planet's lattice (wavelength below one
// planet step, fully in from half a step) and coarse enough for the level's lattice (at least 2
// of its steps, fully from 4), with amplitude (wavelength / planet step)^H, H =
// -log(persistence) / log(lacunarity): the terrain's spectrum, 1 at the planet's spacing. A
// hurst > 0 replaces H (a rougher small scale: slopes grow by 2^(1 - H) per octave).
// Steps are radians on the unit sphere. Sorted coarse to fine.
std::vector<Octave> detailOctaves(const NoiseSpectrum& spectrum, double planet_step,
                                  double level_step, double hurst = 0.0);

// Octave k's noise at unit-sphere point p (without its amplitude).
inline double octaveNoise(const terrain::PerlinNoise& noise, const Octave& octave,
                          const glm::dvec3& p) {
  return noise.noise(p * octave.frequency + octave.offset);
}

}  // namespace tiles
