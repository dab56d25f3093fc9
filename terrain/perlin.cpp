#include "terrain/perlin.h"

#include <algorithm>
#include <cmath>

#include "geodesy/hash.h"

namespace terrain {
namespace {

// Scale so the extreme value of the noise maps to ~1; 3D improved noise peaks near 1.036.
constexpr float kNoiseScale = 0.964f;

// floor() without a libm call (x86-64 baseline has no SSE4.1 round instruction).
inline int fastFloor(float x) {
  const int i = int(x);
  return i - (x < float(i));
}

// Coordinates are clamped to +-2^30 so that fastFloor's int never overflows. Beyond 2^24 a
// float has no fraction left, so such an octave (far finer than any mesh: frequency x
// lacunarity^octaves past 1.6e7) samples lattice points, where gradient noise is 0.
constexpr float kMaxCoordinate = 1073741824.0f;
inline float inRange(float x) {
  return std::clamp(x, -kMaxCoordinate, kMaxCoordinate);
}

inline float fade(float t) {
  return t * t * t * (t * (t * 6.0f - 15.0f) + 10.0f);
}
inline float lerp(float a, float b, float t) {
  return a + t * (b - a);
}

// Dot product with one of the 12 cube-edge gradients (Perlin 2002), written with selects
// instead of a table so that a loop over lanes vectorises.
inline float grad(int h, float x, float y, float z) {
  h &= 15;
  const float u = h < 8 ? x : y;
  const float v = h < 4 ? y : ((h == 12 || h == 14) ? x : z);
  return ((h & 1) ? -u : u) + ((h & 2) ? -v : v);
}

// A coordinate's lattice cell (its low 8 bits) and its place in the cell.
inline void splitCoordinate(float c, int& cell, float& fraction) {
  const float cx = inRange(c);
  const int i = fastFloor(cx);
  fraction = cx - float(i);
  cell = i & 255;
}
// In double the fraction survives where a float's is gone (coordinates past 2^24). Clamped to
// +-2^62 so the int64 floor never overflows.
inline void splitCoordinate(double c, int& cell, float& fraction) {
  constexpr double kMaxDouble = 4611686018427387904.0;
  c = std::clamp(c, -kMaxDouble, kMaxDouble);
  int64_t i = int64_t(c);
  i -= c < double(i);
  fraction = float(c - double(i));
  cell = int(i & 255);
}

// Noise at N points. The scalar and batched paths both run this code, so they agree bit for
// bit. Lookups are per lane; the arithmetic loop vectorises.
template <int N, typename Coordinate>
inline void noiseLanes(const uint8_t* perm, const Coordinate* px, const Coordinate* py,
                       const Coordinate* pz, float* out) {
  float x[N], y[N], z[N];
  int h[8][N];
  for (int l = 0; l < N; ++l) {
    int xi, yi, zi;
    splitCoordinate(px[l], xi, x[l]);
    splitCoordinate(py[l], yi, y[l]);
    splitCoordinate(pz[l], zi, z[l]);
    const int a = perm[xi] + yi, aa = perm[a] + zi, ab = perm[a + 1] + zi;
    const int b = perm[xi + 1] + yi, ba = perm[b] + zi, bb = perm[b + 1] + zi;
    h[0][l] = perm[aa], h[1][l] = perm[ba], h[2][l] = perm[ab], h[3][l] = perm[bb];
    h[4][l] = perm[aa + 1], h[5][l] = perm[ba + 1], h[6][l] = perm[ab + 1];
    h[7][l] = perm[bb + 1];
  }
  for (int l = 0; l < N; ++l) {
    const float x0 = x[l], y0 = y[l], z0 = z[l];
    const float x1 = x0 - 1.0f, y1 = y0 - 1.0f, z1 = z0 - 1.0f;
    const float u = fade(x0), v = fade(y0), w = fade(z0);
    const float r = lerp(lerp(lerp(grad(h[0][l], x0, y0, z0), grad(h[1][l], x1, y0, z0), u),
                              lerp(grad(h[2][l], x0, y1, z0), grad(h[3][l], x1, y1, z0), u), v),
                         lerp(lerp(grad(h[4][l], x0, y0, z1), grad(h[5][l], x1, y0, z1), u),
                              lerp(grad(h[6][l], x0, y1, z1), grad(h[7][l], x1, y1, z1), u), v),
                         w);
    out[l] = std::clamp(r * kNoiseScale, -1.0f, 1.0f);
  }
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
  float out;
  noiseLanes<1>(perm_.data(), &pos.x, &pos.y, &pos.z, &out);
  return out;
}

float PerlinNoise::noise(const glm::dvec3& pos) const {
  float out;
  noiseLanes<1>(perm_.data(), &pos.x, &pos.y, &pos.z, &out);
  return out;
}

void PerlinNoise::noise8(const float* x, const float* y, const float* z, float* out) const {
  noiseLanes<8>(perm_.data(), x, y, z, out);
}

void PerlinNoise::noise8(const double* x, const double* y, const double* z, float* out) const {
  noiseLanes<8>(perm_.data(), x, y, z, out);
}

void fbm8(const PerlinNoise& noise, const float* x, const float* y, const float* z,
          const FbmParams& params, float* out) {
  float sum[8] = {}, px[8], py[8], pz[8], n[8];
  float amplitude = 1.0f, total = 0.0f, frequency = params.frequency;
  for (int o = 0; o < params.octaves; ++o) {
    // A fixed offset per octave decorrelates octaves that would otherwise all be zero at
    // the origin's lattice points.
    const float ox = 17.31f * float(o), oy = -9.73f * float(o), oz = 5.19f * float(o);
    for (int l = 0; l < 8; ++l)
      px[l] = x[l] * frequency + ox, py[l] = y[l] * frequency + oy, pz[l] = z[l] * frequency + oz;
    noise.noise8(px, py, pz, n);
    for (int l = 0; l < 8; ++l) sum[l] += amplitude * n[l];
    total += amplitude;
    amplitude *= params.persistence;
    frequency *= params.lacunarity;
  }
  for (int l = 0; l < 8; ++l) out[l] = total > 0.0f ? sum[l] / total : 0.0f;
}

void ridgedFbm8(const PerlinNoise& noise, const float* x, const float* y, const float* z,
                const FbmParams& params, float* out) {
  float sum[8] = {}, px[8], py[8], pz[8], n[8], weight[8];
  for (float& w : weight) w = 1.0f;
  float amplitude = 1.0f, total = 0.0f, frequency = params.frequency;
  for (int o = 0; o < params.octaves; ++o) {
    const float ox = -23.17f * float(o), oy = 11.41f * float(o), oz = 3.77f * float(o);
    for (int l = 0; l < 8; ++l)
      px[l] = x[l] * frequency + ox, py[l] = y[l] * frequency + oy, pz[l] = z[l] * frequency + oz;
    noise.noise8(px, py, pz, n);
    for (int l = 0; l < 8; ++l) {
      float ridge = 1.0f - std::abs(n[l]);
      ridge *= ridge;
      ridge *= weight[l];
      weight[l] = std::clamp(ridge * 2.0f, 0.0f, 1.0f);
      sum[l] += amplitude * ridge;
    }
    total += amplitude;
    amplitude *= params.persistence;
    frequency *= params.lacunarity;
  }
  for (int l = 0; l < 8; ++l) out[l] = total > 0.0f ? sum[l] / total : 0.0f;
}

namespace {

// Scalar entry points run the 8-lane code with every lane at p, so both paths agree exactly.
template <typename Batch>
float atPoint(Batch batch, const PerlinNoise& noise, const glm::vec3& p, const FbmParams& params) {
  float x[8], y[8], z[8], out[8];
  for (int l = 0; l < 8; ++l) x[l] = p.x, y[l] = p.y, z[l] = p.z;
  batch(noise, x, y, z, params, out);
  return out[0];
}

}  // namespace

float fbm(const PerlinNoise& noise, const glm::vec3& p, const FbmParams& params) {
  return atPoint(fbm8, noise, p, params);
}

float ridgedFbm(const PerlinNoise& noise, const glm::vec3& p, const FbmParams& params) {
  return atPoint(ridgedFbm8, noise, p, params);
}

}  // namespace terrain
