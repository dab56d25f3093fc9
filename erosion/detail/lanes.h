#pragma once
// A 3-vector in four float lanes (the fourth spare: a vertex's height when loaded from a
// VertexPoint), with the few operations the droplet's locate needs. One SSE register where
// there is SSE2, four floats otherwise. Every lane operation is the same IEEE single operation,
// in the same order, as glm's vec3 code: the results are bit-identical to it. Internal to
// erosion/.

#include "erosion/detail/simd.h"
#if PLANETGEN_SSE2
#include <emmintrin.h>
#endif

#include <glm/vec3.hpp>

namespace erosion {

#if PLANETGEN_SSE2

struct Lanes {
  __m128 m;

  // The four floats at an address aligned to 16 bytes.
  static Lanes load(const float* aligned) { return {_mm_load_ps(aligned)}; }
  static Lanes of(const glm::vec3& v) { return {_mm_setr_ps(v.x, v.y, v.z, 0.0f)}; }
  float x() const { return _mm_cvtss_f32(m); }
  float y() const { return _mm_cvtss_f32(_mm_shuffle_ps(m, m, _MM_SHUFFLE(1, 1, 1, 1))); }
  float z() const { return _mm_cvtss_f32(_mm_shuffle_ps(m, m, _MM_SHUFFLE(2, 2, 2, 2))); }
  float w() const { return _mm_cvtss_f32(_mm_shuffle_ps(m, m, _MM_SHUFFLE(3, 3, 3, 3))); }
  glm::vec3 vec3() const {
    alignas(16) float f[4];
    _mm_store_ps(f, m);
    return {f[0], f[1], f[2]};
  }
  // Lane k in all four lanes.
  template <int k>
  __m128 splat() const {
    return _mm_shuffle_ps(m, m, _MM_SHUFFLE(k, k, k, k));
  }

  friend Lanes operator+(Lanes a, Lanes b) { return {_mm_add_ps(a.m, b.m)}; }
  friend Lanes operator-(Lanes a, Lanes b) { return {_mm_sub_ps(a.m, b.m)}; }
  friend Lanes operator*(float s, Lanes a) { return {_mm_mul_ps(_mm_set1_ps(s), a.m)}; }
};

// As glm::cross: (a.y b.z - b.y a.z, a.z b.x - b.z a.x, a.x b.y - b.x a.y).
inline Lanes cross(Lanes a, Lanes b) {
  const __m128 a_yzx = _mm_shuffle_ps(a.m, a.m, _MM_SHUFFLE(3, 0, 2, 1));
  const __m128 b_zxy = _mm_shuffle_ps(b.m, b.m, _MM_SHUFFLE(3, 1, 0, 2));
  const __m128 a_zxy = _mm_shuffle_ps(a.m, a.m, _MM_SHUFFLE(3, 1, 0, 2));
  const __m128 b_yzx = _mm_shuffle_ps(b.m, b.m, _MM_SHUFFLE(3, 0, 2, 1));
  return {_mm_sub_ps(_mm_mul_ps(a_yzx, b_zxy), _mm_mul_ps(b_yzx, a_zxy))};
}

// As glm::dot: (a.x b.x + a.y b.y) + a.z b.z.
inline float dot(Lanes a, Lanes b) {
  const __m128 m = _mm_mul_ps(a.m, b.m);
  const __m128 xy = _mm_add_ss(m, _mm_shuffle_ps(m, m, _MM_SHUFFLE(1, 1, 1, 1)));
  return _mm_cvtss_f32(_mm_add_ss(xy, _mm_shuffle_ps(m, m, _MM_SHUFFLE(2, 2, 2, 2))));
}

#else

struct Lanes {
  float f[4];

  static Lanes load(const float* aligned) {
    return {{aligned[0], aligned[1], aligned[2], aligned[3]}};
  }
  static Lanes of(const glm::vec3& v) { return {{v.x, v.y, v.z, 0.0f}}; }
  float x() const { return f[0]; }
  float y() const { return f[1]; }
  float z() const { return f[2]; }
  float w() const { return f[3]; }
  glm::vec3 vec3() const { return {f[0], f[1], f[2]}; }

  friend Lanes operator+(Lanes a, Lanes b) {
    return {{a.f[0] + b.f[0], a.f[1] + b.f[1], a.f[2] + b.f[2], a.f[3] + b.f[3]}};
  }
  friend Lanes operator-(Lanes a, Lanes b) {
    return {{a.f[0] - b.f[0], a.f[1] - b.f[1], a.f[2] - b.f[2], a.f[3] - b.f[3]}};
  }
  friend Lanes operator*(float s, Lanes a) {
    return {{s * a.f[0], s * a.f[1], s * a.f[2], s * a.f[3]}};
  }
};

inline Lanes cross(Lanes a, Lanes b) {
  return {{a.f[1] * b.f[2] - b.f[1] * a.f[2], a.f[2] * b.f[0] - b.f[2] * a.f[0],
           a.f[0] * b.f[1] - b.f[0] * a.f[1], 0.0f}};
}

inline float dot(Lanes a, Lanes b) {
  return a.f[0] * b.f[0] + a.f[1] * b.f[1] + a.f[2] * b.f[2];
}

#endif

}  // namespace erosion
