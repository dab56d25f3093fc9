#include "planet/perlin.h"

#include <algorithm>
#include <cmath>

#include "geodesy/hash.h"

namespace planet {
namespace {

// The 12 edge-midpoint gradients of a cube, padded to 16 (Perlin 2002).
constexpr float kGradients[16][3] = {
    {1, 1, 0}, {-1, 1, 0}, {1, -1, 0}, {-1, -1, 0}, {1, 0, 1}, {-1, 0, 1}, {1, 0, -1}, {-1, 0, -1},
    {0, 1, 1}, {0, -1, 1}, {0, 1, -1}, {0, -1, -1}, {1, 1, 0}, {0, -1, 1}, {-1, 1, 0}, {0, -1, -1}};

// Scale so the extreme value of the noise maps to ~1; 3D improved noise peaks near 1.036.
constexpr float kNoiseScale = 0.964f;

// floor() without a libm call (x86-64 baseline has no SSE4.1 round instruction).
inline int fastFloor(float x) {
  const int i = int(x);
  return i - (x < float(i));
}

inline float fade(float t) {
  return t * t * t * (t * (t * 6.0f - 15.0f) + 10.0f);
}
inline float lerp(float a, float b, float t) {
  return a + t * (b - a);
}
inline float grad(uint8_t hash, float x, float y, float z) {
  const float* g = kGradients[hash & 15];
  return g[0] * x + g[1] * y + g[2] * z;
}

}  // namespace

PerlinNoise::PerlinNoise(uint64_t seed) {
  std::array<uint8_t, 256> p{};
  for (int i = 0; i < 256; ++i) p[i] = uint8_t(i);
  // Fisher-Yates with the counter-based hash: the table is a pure function of the seed.
  geodesy::HashStream rng(seed, 0x9E1u, 0);
  for (int i = 255; i > 0; --i) {
    const int j = int(rng.next() % uint64_t(i + 1));
    std::swap(p[i], p[j]);
  }
  for (int i = 0; i < 512; ++i) perm_[i] = p[i & 255];
}

float PerlinNoise::noise(const glm::vec3& pos) const {
  const int ix = fastFloor(pos.x), iy = fastFloor(pos.y), iz = fastFloor(pos.z);
  const int xi = ix & 255, yi = iy & 255, zi = iz & 255;
  const float x = pos.x - float(ix), y = pos.y - float(iy), z = pos.z - float(iz);
  const float u = fade(x), v = fade(y), w = fade(z);
  const uint8_t* p = perm_.data();
  const int a = p[xi] + yi, aa = p[a] + zi, ab = p[a + 1] + zi;
  const int b = p[xi + 1] + yi, ba = p[b] + zi, bb = p[b + 1] + zi;
  const float x1 = x - 1.0f, y1 = y - 1.0f, z1 = z - 1.0f;
  const float r = lerp(lerp(lerp(grad(p[aa], x, y, z), grad(p[ba], x1, y, z), u),
                            lerp(grad(p[ab], x, y1, z), grad(p[bb], x1, y1, z), u), v),
                       lerp(lerp(grad(p[aa + 1], x, y, z1), grad(p[ba + 1], x1, y, z1), u),
                            lerp(grad(p[ab + 1], x, y1, z1), grad(p[bb + 1], x1, y1, z1), u), v),
                       w);
  return std::clamp(r * kNoiseScale, -1.0f, 1.0f);
}

float fbm(const PerlinNoise& noise, const glm::vec3& p, const FbmParams& params) {
  float sum = 0.0f, amplitude = 1.0f, total = 0.0f, frequency = params.frequency;
  for (int o = 0; o < params.octaves; ++o) {
    // A fixed offset per octave decorrelates octaves that would otherwise all be zero at
    // the origin's lattice points.
    const glm::vec3 offset(17.31f * float(o), -9.73f * float(o), 5.19f * float(o));
    sum += amplitude * noise.noise(p * frequency + offset);
    total += amplitude;
    amplitude *= params.persistence;
    frequency *= params.lacunarity;
  }
  return total > 0.0f ? sum / total : 0.0f;
}

float ridgedFbm(const PerlinNoise& noise, const glm::vec3& p, const FbmParams& params) {
  float sum = 0.0f, amplitude = 1.0f, total = 0.0f, frequency = params.frequency;
  float weight = 1.0f;
  for (int o = 0; o < params.octaves; ++o) {
    const glm::vec3 offset(-23.17f * float(o), 11.41f * float(o), 3.77f * float(o));
    float ridge = 1.0f - std::abs(noise.noise(p * frequency + offset));
    ridge *= ridge;
    ridge *= weight;
    weight = std::clamp(ridge * 2.0f, 0.0f, 1.0f);
    sum += amplitude * ridge;
    total += amplitude;
    amplitude *= params.persistence;
    frequency *= params.lacunarity;
  }
  return total > 0.0f ? sum / total : 0.0f;
}

}  // namespace planet
