#include "erosion/detail/surface_lanes.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "erosion/detail/simd.h"

#if PLANETGEN_AVX2_KERNELS
#include <immintrin.h>
#endif

namespace erosion {

#if PLANETGEN_AVX2_KERNELS

// Every function below is compiled for AVX2 (simd.h) and only called where avx2Available().
namespace {

// A 3-vector per lane, and the operations sampleSurface uses, in its order (see lanes.h).
struct V3 {
  __m256 x, y, z;
};

PLANETGEN_AVX2 inline V3 operator-(V3 a, V3 b) {
  return {_mm256_sub_ps(a.x, b.x), _mm256_sub_ps(a.y, b.y), _mm256_sub_ps(a.z, b.z)};
}
PLANETGEN_AVX2 inline V3 operator+(V3 a, V3 b) {
  return {_mm256_add_ps(a.x, b.x), _mm256_add_ps(a.y, b.y), _mm256_add_ps(a.z, b.z)};
}
PLANETGEN_AVX2 inline V3 operator*(__m256 s, V3 a) {
  return {_mm256_mul_ps(s, a.x), _mm256_mul_ps(s, a.y), _mm256_mul_ps(s, a.z)};
}
PLANETGEN_AVX2 inline V3 cross(V3 a, V3 b) {
  return {_mm256_sub_ps(_mm256_mul_ps(a.y, b.z), _mm256_mul_ps(b.y, a.z)),
          _mm256_sub_ps(_mm256_mul_ps(a.z, b.x), _mm256_mul_ps(b.z, a.x)),
          _mm256_sub_ps(_mm256_mul_ps(a.x, b.y), _mm256_mul_ps(b.x, a.y))};
}
PLANETGEN_AVX2 inline __m256 dot(V3 a, V3 b) {
  return _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(a.x, b.x), _mm256_mul_ps(a.y, b.y)),
                       _mm256_mul_ps(a.z, b.z));
}
// Lanes of b where mask, else a.
PLANETGEN_AVX2 inline __m256 pick(__m256 a, __m256 b, __m256 mask) {
  return _mm256_blendv_ps(a, b, mask);
}
PLANETGEN_AVX2 inline __m256i pick(__m256i a, __m256i b, __m256 mask) {
  return _mm256_blendv_epi8(a, b, _mm256_castps_si256(mask));
}
PLANETGEN_AVX2 inline V3 pick(V3 a, V3 b, __m256 mask) {
  return {pick(a.x, b.x, mask), pick(a.y, b.y, mask), pick(a.z, b.z, mask)};
}
// -x exactly (sign flip), as the scalar code's unary minus.
PLANETGEN_AVX2 inline __m256 negate(__m256 x) {
  return _mm256_xor_ps(x, _mm256_set1_ps(-0.0f));
}
// std::min(a, b) and std::max(a, b), zeros' signs included.
PLANETGEN_AVX2 inline __m256 minOf(__m256 a, __m256 b) {
  return _mm256_min_ps(b, a);
}
PLANETGEN_AVX2 inline __m256 maxOf(__m256 a, __m256 b) {
  return _mm256_max_ps(b, a);
}

// Point (x, y, z) and height of the vertices ids[0 .. 8): eight 16-byte loads and a transpose,
// not AVX2 gathers, which were slower (docs/erosion.md, "Design decisions").
struct Points8 {
  V3 x;
  __m256 h;
};
// The points of vertices a (low half) and b (high half).
PLANETGEN_AVX2 inline __m256 loadPair(const VertexPoint* points, uint32_t a, uint32_t b) {
  return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_load_ps(&points[a].x.x)),
                              _mm_load_ps(&points[b].x.x), 1);
}
PLANETGEN_AVX2 inline Points8 loadPoints(const VertexPoint* points, const uint32_t* ids) {
  const __m256 m0 = loadPair(points, ids[0], ids[4]), m1 = loadPair(points, ids[1], ids[5]);
  const __m256 m2 = loadPair(points, ids[2], ids[6]), m3 = loadPair(points, ids[3], ids[7]);
  const __m256 t0 = _mm256_unpacklo_ps(m0, m1), t1 = _mm256_unpackhi_ps(m0, m1);
  const __m256 t2 = _mm256_unpacklo_ps(m2, m3), t3 = _mm256_unpackhi_ps(m2, m3);
  return {{_mm256_shuffle_ps(t0, t2, 0x44), _mm256_shuffle_ps(t0, t2, 0xee),
           _mm256_shuffle_ps(t1, t3, 0x44)},
          _mm256_shuffle_ps(t1, t3, 0xee)};
}

// The neighbour records of the vertices ids[0 .. 8), transposed: word k of every record in
// out[k] (nbr[0..5], then the links word), from eight 32-byte loads.
PLANETGEN_AVX2 inline void loadLinks(const VertexLinks* links, const uint32_t* ids,
                                     __m256i out[8]) {
  __m256i r[8];
  for (int l = 0; l < 8; ++l)
    r[l] = _mm256_load_si256(reinterpret_cast<const __m256i*>(&links[ids[l]]));
  __m256i a[8], b[8];
  for (int l = 0; l < 8; l += 2) {
    a[l] = _mm256_unpacklo_epi32(r[l], r[l + 1]);
    a[l + 1] = _mm256_unpackhi_epi32(r[l], r[l + 1]);
  }
  for (int l = 0; l < 8; l += 4) {
    b[l] = _mm256_unpacklo_epi64(a[l], a[l + 2]);
    b[l + 1] = _mm256_unpackhi_epi64(a[l], a[l + 2]);
    b[l + 2] = _mm256_unpacklo_epi64(a[l + 1], a[l + 3]);
    b[l + 3] = _mm256_unpackhi_epi64(a[l + 1], a[l + 3]);
  }
  for (int k = 0; k < 4; ++k) {
    out[k] = _mm256_permute2x128_si256(b[k], b[k + 4], 0x20);
    out[k + 4] = _mm256_permute2x128_si256(b[k], b[k + 4], 0x31);
  }
}

static_assert(sizeof(VertexPoint) == 4 * sizeof(float));
static_assert(sizeof(VertexLinks) == 8 * sizeof(uint32_t));

}  // namespace

PLANETGEN_AVX2 uint32_t locateStep8(const VertexPoint* points, const VertexLinks* links,
                                    uint32_t near[kSurfaceLanes], uint8_t moves[kSurfaceLanes],
                                    const Lanes p_in[kSurfaceLanes],
                                    SurfaceSample out[kSurfaceLanes]) {
  alignas(32) float px[kSurfaceLanes], py[kSurfaceLanes], pz[kSurfaceLanes];
  for (int l = 0; l < kSurfaceLanes; ++l)
    px[l] = p_in[l].x(), py[l] = p_in[l].y(), pz[l] = p_in[l].z();
  const V3 p{_mm256_load_ps(px), _mm256_load_ps(py), _mm256_load_ps(pz)};
  const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f);

  alignas(32) uint32_t ids[7][kSurfaceLanes];  // the anchors, then their neighbours by slot
  std::memcpy(ids[0], near, sizeof(ids[0]));
  const Points8 xu = loadPoints(points, ids[0]);
  __m256i nbr[8];
  loadLinks(links, ids[0], nbr);
  const __m256 six = _mm256_castsi256_ps(_mm256_cmpeq_epi32(  // nbr[6]: the links words
      _mm256_and_si256(_mm256_srli_epi32(nbr[6], 24), _mm256_set1_epi32(7)), _mm256_set1_epi32(6)));

  // side_k = (x_k - x_u) . ((p - x_u) x x_u), as ringDots.
  const V3 w = cross(p - xu.x, xu.x);
  Points8 ring[6];
  __m256 side[6];
  for (int k = 0; k < 6; ++k) {
    _mm256_store_si256(reinterpret_cast<__m256i*>(ids[k + 1]), nbr[k]);
    ring[k] = loadPoints(points, ids[k + 1]);
    side[k] = dot(ring[k].x - xu.x, w);
  }
  // side_{k+1}, wrapping at the degree (a five-valent vertex's sector 4 closes on slot 0).
  __m256 next[6];
  for (int k = 0; k < 4; ++k) next[k] = side[k + 1];
  next[4] = pick(side[0], side[5], six);
  next[5] = side[0];
  // fanSector: the sector of the largest margin min(side_k, -side_{k+1}), the first of equals
  // (its sign-bit shortcut picks the same sector).
  __m256 best = minOf(side[0], negate(next[0]));
  __m256i sector = _mm256_setzero_si256();
  for (int k = 1; k < 6; ++k) {
    __m256 margin = minOf(side[k], negate(next[k]));
    if (k == 5) margin = pick(_mm256_set1_ps(-INFINITY), margin, six);
    const __m256 larger = _mm256_cmp_ps(margin, best, _CMP_GT_OQ);
    best = pick(best, margin, larger);
    sector = pick(sector, _mm256_set1_epi32(k), larger);
  }
  // The sector's corners a = slot k, b = slot k + 1 (slot 0 after the last).
  Points8 xa = ring[0], xb = ring[1];
  __m256i va = nbr[0], vb = nbr[1];
  __m256 sa = negate(next[0]), sb = side[0];
  for (int k = 1; k < 6; ++k) {
    const __m256 here = _mm256_castsi256_ps(_mm256_cmpeq_epi32(sector, _mm256_set1_epi32(k)));
    Points8 xk1 = ring[k + 1 == 6 ? 0 : k + 1];
    __m256i vk1 = nbr[k + 1 == 6 ? 0 : k + 1];
    if (k == 4) {
      xk1 = {pick(ring[0].x, ring[5].x, six), pick(ring[0].h, ring[5].h, six)};
      vk1 = pick(nbr[0], nbr[5], six);
    }
    xa = {pick(xa.x, ring[k].x, here), pick(xa.h, ring[k].h, here)};
    xb = {pick(xb.x, xk1.x, here), pick(xb.h, xk1.h, here)};
    va = pick(va, nbr[k], here);
    vb = pick(vb, vk1, here);
    sa = pick(sa, negate(next[k]), here);
    sb = pick(sb, side[k], here);
  }
  const V3 nu = cross(xa.x, xb.x - xa.x);
  const __m256 su = dot(p - xa.x, nu);
  const __m256 sum = _mm256_add_ps(_mm256_add_ps(su, sa), sb);
  // Beyond the fan's rim, in a lane that may still move (as sampleSurface's test).
  int64_t moves_word;
  std::memcpy(&moves_word, moves, sizeof(moves_word));
  const __m256 may_move = _mm256_castsi256_ps(_mm256_cmpgt_epi32(
      _mm256_set1_epi32(kLocateMoves), _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(moves_word))));
  const __m256 beyond = _mm256_and_ps(
      may_move, _mm256_cmp_ps(su, _mm256_mul_ps(_mm256_set1_ps(-1e-6f), sum), _CMP_LT_OQ));
  const uint32_t found = uint32_t(~_mm256_movemask_ps(beyond)) & 0xffu;
  if (found != 0xffu) {
    // p is beyond the fan's rim: look from the nearer far corner.
    alignas(32) uint32_t far[kSurfaceLanes];
    _mm256_store_si256(reinterpret_cast<__m256i*>(far),
                       pick(vb, va, _mm256_cmp_ps(sa, sb, _CMP_GT_OQ)));
    for (int l = 0; l < kSurfaceLanes; ++l)
      if (!(found >> l & 1u)) near[l] = far[l], ++moves[l];
  }
  if (found == 0) return 0;
  // p may sit a rounding error outside its face: clamp onto it.
  const __m256 cu = maxOf(su, zero), ca = maxOf(sa, zero), cb = maxOf(sb, zero);
  const __m256 inv = _mm256_div_ps(one, _mm256_add_ps(_mm256_add_ps(cu, ca), cb));
  const __m256 bu = _mm256_mul_ps(cu, inv), ba = _mm256_mul_ps(ca, inv),
               bb = _mm256_mul_ps(cb, inv);
  const __m256 h = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(xu.h, bu), _mm256_mul_ps(xa.h, ba)),
                                 _mm256_mul_ps(xb.h, bb));
  const V3 na = cross(xb.x, xu.x - xb.x), nb = cross(xu.x, xa.x - xu.x);
  const V3 g =
      _mm256_div_ps(one, sum) *
      ((_mm256_sub_ps(xu.h, h) * nu + _mm256_sub_ps(xa.h, h) * na) + _mm256_sub_ps(xb.h, h) * nb);

  alignas(32) uint32_t c1[kSurfaceLanes], c2[kSurfaceLanes];
  alignas(32) float b0[kSurfaceLanes], b1[kSurfaceLanes], b2[kSurfaceLanes], hs[kSurfaceLanes];
  alignas(32) float gx[kSurfaceLanes], gy[kSurfaceLanes], gz[kSurfaceLanes];
  _mm256_store_si256(reinterpret_cast<__m256i*>(c1), va);
  _mm256_store_si256(reinterpret_cast<__m256i*>(c2), vb);
  _mm256_store_ps(b0, bu), _mm256_store_ps(b1, ba), _mm256_store_ps(b2, bb);
  _mm256_store_ps(hs, h);
  _mm256_store_ps(gx, g.x), _mm256_store_ps(gy, g.y), _mm256_store_ps(gz, g.z);
  for (int l = 0; l < kSurfaceLanes; ++l) {
    if (!(found >> l & 1u)) continue;
    SurfaceSample& s = out[l];
    s.v[0] = ids[0][l], s.v[1] = c1[l], s.v[2] = c2[l];
    s.bary = glm::vec3(b0[l], b1[l], b2[l]);
    s.h = hs[l];
    s.gradient = Lanes::of(glm::vec3(gx[l], gy[l], gz[l]));
  }
  return found;
}

void sampleSurface8(const VertexPoint* points, const VertexLinks* links,
                    const uint32_t near[kSurfaceLanes], const Lanes p[kSurfaceLanes],
                    SurfaceSample out[kSurfaceLanes]) {
  uint32_t anchors[kSurfaceLanes];
  std::copy(near, near + kSurfaceLanes, anchors);
  uint8_t moves[kSurfaceLanes] = {};
  Lanes queries[kSurfaceLanes];
  std::copy(p, p + kSurfaceLanes, queries);
  SurfaceSample found[kSurfaceLanes];
  // A lane that has found its face repeats the query of a lane that has not, whose anchor
  // moved; its own sample is kept.
  uint32_t pending = 0xffu;
  for (;;) {
    const uint32_t now = locateStep8(points, links, anchors, moves, queries, found);
    for (int l = 0; l < kSurfaceLanes; ++l)
      if ((pending & now) >> l & 1u) out[l] = found[l];
    pending &= ~now;
    if (!pending) return;
    const int lead = __builtin_ctz(pending);
    for (int l = 0; l < kSurfaceLanes; ++l)
      if (!(pending >> l & 1u))
        anchors[l] = anchors[lead], moves[l] = moves[lead], queries[l] = queries[lead];
  }
}

#else

uint32_t locateStep8(const VertexPoint*, const VertexLinks*, uint32_t*, uint8_t*, const Lanes*,
                     SurfaceSample*) {
  std::abort();  // callers check avx2Available()
}

void sampleSurface8(const VertexPoint*, const VertexLinks*, const uint32_t*, const Lanes*,
                    SurfaceSample*) {
  std::abort();
}

#endif

}  // namespace erosion
