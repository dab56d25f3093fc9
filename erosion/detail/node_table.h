#pragma once
// Per-vertex data of the droplet loop, split by who reads it so that a step's cache lines
// carry nothing else: geometry and height (locating the droplet), topology (walking the
// mesh), erodibility (the brush). Positions and links are built once per workspace; the
// brush's arrays (heights, erodibility, areas) and the start heights are made by
// refreshNodeTable at a call's start and kept for the next call until releaseCallArrays frees
// them (ErosionWorkspace::releaseCallMemory: the pipeline, before a fluvial share, so that the
// workspace holds 48 bytes per vertex there instead of 68). Internal to erosion/.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "erosion/detail/simd.h"
#if PLANETGEN_SSE2
#include <xmmintrin.h>
#endif

#include <glm/geometric.hpp>
#include <glm/vec3.hpp>

#include "erosion/detail/lanes.h"
#include "geodesy/sphere_mesh.h"

namespace erosion {

struct alignas(16) VertexPoint {
  glm::vec3 x{0.0f};  // unit position
  float h = 0.0f;     // height in edge lengths (see droplet.h), as published to droplets
};

struct alignas(32) VertexLinks {
  // Neighbours counter-clockwise seen from outside, as mesh.neighbours; a five-valent vertex
  // repeats nbr[4] in nbr[5].
  uint32_t nbr[6] = {0, 0, 0, 0, 0, 0};
  // Bits 3k..3k+2: the slot of this vertex in nbr[k]'s list. Bits 24..26: the degree.
  // Bit 31: the lattice brush around this vertex would cross a five-valent vertex.
  // Bit 30: its brush is the row brush (see LatticeBrush, markRowBrushes).
  uint32_t links = 0;

  int degree() const { return int(links >> 24 & 7u); }
  int backSlot(int k) const { return int(links >> (3 * k) & 7u); }
  bool irregularBrush() const { return links >> 31; }
  bool rowBrush() const { return links >> 30 & 1u; }
  static constexpr uint32_t kRowBrushBit = 1u << 30;
};

// The brush reads runs of consecutive vertices in blocks of kBrushLanes (SSE2) or eight (AVX2,
// brush_lanes.h); the arrays it reads so (NodeTable's brush arrays, ChangeAccumulator) have
// kBrushPadding entries more than vertices, so a block never reads past the end. The extra
// entries hold zero weight's worth: nothing.
inline constexpr size_t kBrushLanes = 4;
inline constexpr size_t kBrushPadding = 8;

struct NodeTable {
  std::vector<VertexPoint> points;
  std::vector<VertexLinks> links;
  // What the brush reads, one array each (padded by kBrushPadding): height as in points (the
  // two are published together: locate reads it with the position, the brush in runs; keeping
  // only this copy made locate wait on a second array and was slower), erodibility (per call,
  // [0,1]) and dual area / mean dual area.
  std::vector<float> height, erodibility, area;
  // Mean dual area / dual area, for deposits (height = volume * inv_area): a dense array, so
  // that a deposit on a face or a brush reads a few cache lines, not one vertex record each.
  std::vector<float> inv_area;
  std::vector<float> start_m;  // elevation at the call's start, metres

  size_t memoryBytes() const {
    return points.capacity() * sizeof(VertexPoint) + links.capacity() * sizeof(VertexLinks) +
           (height.capacity() + erodibility.capacity() + area.capacity() + inv_area.capacity() +
            start_m.capacity()) *
               sizeof(float);
  }
  // Publishes vertex v's height (normalised) to the locator's and the brush's copy.
  void setHeight(size_t v, float h) {
    points[v].h = h;
    height[v] = h;
  }
};

// Builds the positions and links of every vertex (points' heights 0; no per-call arrays).
// ring_depth: vertices within this many rings of a five-valent vertex get the irregular-brush
// bit. Parallel.
NodeTable buildNodeTable(const geodesy::SphereMesh& mesh, int ring_depth);

// Per call: the per-call arrays of the table built for mesh, made (with the areas) where a
// release freed them: heights from elevation_m (metres; h = metres * height_scale),
// erodibility (empty = 1; 0 where channel is nonzero, so the brush takes nothing from a
// channel: ErosionInput::channel), start heights. Parallel.
void refreshNodeTable(NodeTable& table, const geodesy::SphereMesh& mesh,
                      std::span<const float> elevation_m, double height_scale,
                      std::span<const float> erodibility, std::span<const uint8_t> channel = {});

// Frees what refreshNodeTable made (the points keep their last heights).
void releaseCallArrays(NodeTable& table);

// The entry of v whose score (a, b, c) is largest, the first of equals.
inline uint32_t atLargest(const uint32_t* v, float a, float b, float c) {
  if (a >= b && a >= c) return v[0];
  return b >= c ? v[1] : v[2];
}

// What a droplet needs of the terrain at its position: the face under it (corners
// counter-clockwise, v[0] the anchor the search ended at), the corners' weights (those of the
// point where the droplet's ray meets the flat face, as geodesy's locate defines them), the
// interpolated height and its gradient on the sphere.
struct SurfaceSample {
  uint32_t v[3];
  glm::vec3 bary;
  float h;
  Lanes gradient;  // per unit length on the unit sphere, tangent at p (lane 3: 0)

  uint32_t heaviestCorner() const { return atLargest(v, bary.x, bary.y, bary.z); }
  // The corner nearest to q, a point about one edge away (the droplet's next position): where
  // sampleSurface at q starts (1.1 fan tries on average; 1.65 from the heaviest corner).
  uint32_t cornerToward(const VertexPoint* points, Lanes q) const {
    return atLargest(v, dot(Lanes::load(&points[v[0]].x.x), q),
                     dot(Lanes::load(&points[v[1]].x.x), q),
                     dot(Lanes::load(&points[v[2]].x.x), q));
  }
};

// The six neighbours of a vertex in structure-of-arrays form (slots 6 and 7 repeat 0 and 1),
// so that distances and sides for all of them take a few vector operations.
struct RingCoordinates {
  alignas(16) float x[8], y[8], z[8];
};

inline void loadRing(const VertexPoint* points, const uint32_t* nbr, RingCoordinates& r) {
#if PLANETGEN_SSE2
  for (int half = 0; half < 2; ++half) {
    __m128 a = _mm_load_ps(&points[nbr[(4 * half + 0) % 6]].x.x);
    __m128 b = _mm_load_ps(&points[nbr[(4 * half + 1) % 6]].x.x);
    __m128 c = _mm_load_ps(&points[nbr[(4 * half + 2) % 6]].x.x);
    __m128 d = _mm_load_ps(&points[nbr[(4 * half + 3) % 6]].x.x);
    _MM_TRANSPOSE4_PS(a, b, c, d);  // a = x, b = y, c = z, d = h
    _mm_store_ps(r.x + 4 * half, a);
    _mm_store_ps(r.y + 4 * half, b);
    _mm_store_ps(r.z + 4 * half, c);
  }
#else
  for (int k = 0; k < 8; ++k) {
    const glm::vec3 x = points[nbr[k % 6]].x;
    r.x[k] = x.x, r.y[k] = x.y, r.z[k] = x.z;
  }
#endif
}

// out[k] = (r_k - o) . w for the eight slots (the same operations as glm's dot).
inline void ringDots(const RingCoordinates& r, Lanes o, Lanes w, float* out) {
#if PLANETGEN_SSE2
  const __m128 ox = o.splat<0>(), oy = o.splat<1>(), oz = o.splat<2>();
  const __m128 wx = w.splat<0>(), wy = w.splat<1>(), wz = w.splat<2>();
  for (int k = 0; k < 8; k += 4) {
    const __m128 dx = _mm_sub_ps(_mm_load_ps(r.x + k), ox);
    const __m128 dy = _mm_sub_ps(_mm_load_ps(r.y + k), oy);
    const __m128 dz = _mm_sub_ps(_mm_load_ps(r.z + k), oz);
    _mm_store_ps(out + k, _mm_add_ps(_mm_add_ps(_mm_mul_ps(dx, wx), _mm_mul_ps(dy, wy)),
                                     _mm_mul_ps(dz, wz)));
  }
#else
  for (int k = 0; k < 8; ++k)
    out[k] = (r.x[k] - o.x()) * w.x() + (r.y[k] - o.y()) * w.y() + (r.z[k] - o.z()) * w.z();
#endif
}

// The sector of a vertex's fan that holds a direction, from side_k = det(x_u, x_k, p) for its
// neighbours k (side[degree] repeating side[0]): the k with side_k >= 0 > side_{k+1}. Read off
// the sign bits when they change from + to - exactly once (six-valent vertices, p not on top
// of the vertex); otherwise the k with the largest margin min(side_k, -side_{k+1}).
inline int fanSector(const float* side, int degree) {
#if PLANETGEN_SSE2
  if (degree == 6) {
    // Bit k: side_k >= 0, for k = 0..7 (slots 6 and 7 repeat 0 and 1).
    const __m128 zero = _mm_setzero_ps();
    const int plus = _mm_movemask_ps(_mm_cmpge_ps(_mm_load_ps(side), zero)) |
                     _mm_movemask_ps(_mm_cmpge_ps(_mm_load_ps(side + 4), zero)) << 4;
    const unsigned turns = unsigned(plus & ~(plus >> 1)) & 0x3fu;
    // One change of sign with a margin above zero: the largest margin, and the only one (a
    // side of exactly zero leaves the choice to the loop's first-maximum rule).
    if (turns && !(turns & (turns - 1))) {
      const int k = __builtin_ctz(turns);
      if (side[k] > 0.0f) return k;
    }
  }
#endif
  int k = 0;
  float margin = std::min(side[0], -side[1]);
  for (int j = 1; j < degree; ++j) {
    const float m = std::min(side[j], -side[j + 1]);
    if (m > margin) margin = m, k = j;
  }
  return k;
}

// Samples the terrain at the unit point p, starting from `near`, a vertex near p (in the droplet
// loop the old face's corner toward p, see cornerToward; at the spawn the face's heaviest
// corner). A search that has not found the face after kLocateMoves moves keeps the last fan,
// clamped.
//
// From the anchor u (first `near`), p lies in the fan of faces around u in the sector between
// neighbours k and k + 1 where side_k = det(x_u, x_k, p) >= 0 > side_{k+1} (fanSector). Those
// sides are also p's unnormalised weights of corners k + 1 and k; corner u's is
// det(p, x_k, x_{k+1}). If that is negative, p lies beyond the fan's rim and the search moves
// to the heavier far corner (a step of one edge usually ends within one or two fans). With
// N_j the normal of the edge opposite corner j (x_k x x_{k+1} for u), the gradient of the
// interpolant h = sum h_j s_j / S (S = sum s_j) is sum (h_j - h) N_j / S, tangent at p by
// construction. Every vector is a difference of nearby points, so float keeps full relative
// precision.
// How often sampleSurface moves on to another fan before it keeps the last one, clamped.
inline constexpr int kLocateMoves = 8;

inline SurfaceSample sampleSurface(const VertexPoint* points, const VertexLinks* links,
                                   uint32_t near, Lanes p) {
  RingCoordinates ring;
  uint32_t u = near;
  for (int attempt = 0;; ++attempt) {
    const Lanes xu = Lanes::load(&points[u].x.x);  // lane 3: the height
    const VertexLinks& l = links[u];
    const int degree = l.degree();
    loadRing(points, l.nbr, ring);
    // side_k = det(x_u, x_k, p) = (x_k - x_u) . ((p - x_u) x x_u).
    alignas(16) float side[8];
    ringDots(ring, xu, cross(p - xu, xu), side);
    side[degree] = side[0];
    const int k = fanSector(side, degree);
    const int k1 = k + 1 == degree ? 0 : k + 1;
    const uint32_t va = l.nbr[k], vb = l.nbr[k1];
    const Lanes xa = Lanes::load(&points[va].x.x), xb = Lanes::load(&points[vb].x.x);
    const Lanes nu = cross(xa, xb - xa);
    float su = dot(p - xa, nu);
    float sa = -side[k + 1], sb = side[k];
    const float sum = su + sa + sb;
    if (su < -1e-6f * sum && attempt < kLocateMoves) {
      u = sa > sb ? va : vb;  // p is beyond the fan's rim: look from the nearer far corner
      continue;
    }
    // p may sit a rounding error outside its face: clamp onto it.
    su = std::max(su, 0.0f), sa = std::max(sa, 0.0f), sb = std::max(sb, 0.0f);
    const float inv = 1.0f / (su + sa + sb);
    SurfaceSample out;
    out.v[0] = u, out.v[1] = va, out.v[2] = vb;
    out.bary = glm::vec3(su * inv, sa * inv, sb * inv);
    const float hu = xu.w(), ha = xa.w(), hb = xb.w();
    out.h = hu * out.bary.x + ha * out.bary.y + hb * out.bary.z;
    const Lanes na = cross(xb, xu - xb), nb = cross(xu, xa - xu);
    out.gradient = (1.0f / sum) * ((hu - out.h) * nu + (ha - out.h) * na + (hb - out.h) * nb);
    return out;
  }
}

}  // namespace erosion
