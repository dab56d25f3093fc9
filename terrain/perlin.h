#pragma once
// Seeded 3D gradient noise (Perlin's improved noise, 2002) and fractal sums of it.
// Noise is a const function of position and the seed baked into the table: thread-safe,
// no hidden state (STYLE.md, after FastNoise2).

#include <array>
#include <cstdint>

#include <glm/vec3.hpp>

namespace terrain {

class PerlinNoise {
 public:
  explicit PerlinNoise(uint64_t seed);

  // Gradient noise at p. Range: [-1, 1] (the theoretical bound of 3D Perlin noise with
  // 12 edge gradients is about 1.04 before scaling; the result is scaled into [-1, 1]).
  // Zero at every integer lattice point.
  float noise(const glm::vec3& p) const;

  // The same noise at a double-precision point: the cell is found in double, the rest runs in
  // float as noise() does. For fine octaves, whose coordinates pass 2^24 where a float has no
  // fraction left (tiles: about 2^23 cycles at a 1 m lattice on an Earth-sized planet). Equal
  // to noise() at points a float holds exactly, inside +-2^24.
  float noise(const glm::dvec3& p) const;

  // noise() at 8 points given as coordinate arrays; bit-identical to 8 calls of noise().
  void noise8(const float* x, const float* y, const float* z, float* out) const;
  // The same for double coordinates (the dvec3 noise()).
  void noise8(const double* x, const double* y, const double* z, float* out) const;

 private:
  // Permutation doubled so p[i + 256] needs no wrap.
  std::array<uint8_t, 512> perm_{};
};

struct FbmParams {
  int octaves = 8;
  float frequency = 1.0f;    // of the first octave, in cycles per unit length
  float lacunarity = 2.0f;   // frequency ratio between octaves
  float persistence = 0.5f;  // amplitude ratio between octaves
};

// Fractal Brownian motion: sum of octaves, normalised by the total amplitude so the result
// stays in [-1, 1].
float fbm(const PerlinNoise& noise, const glm::vec3& p, const FbmParams& params);

// Ridged multifractal variant: 1 - |noise| per octave, squared, with each octave weighted by
// the previous one so ridges stay sharp and valleys smooth. Range [0, 1].
float ridgedFbm(const PerlinNoise& noise, const glm::vec3& p, const FbmParams& params);

// fbm and ridgedFbm at 8 points given as coordinate arrays; bit-identical to the scalar calls.
void fbm8(const PerlinNoise& noise, const float* x, const float* y, const float* z,
          const FbmParams& params, float* out);
void ridgedFbm8(const PerlinNoise& noise, const float* x, const float* y, const float* z,
                const FbmParams& params, float* out);

}  // namespace terrain
