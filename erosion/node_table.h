#pragma once
// Per-vertex data of the droplet loop, split by who reads it so that a step's cache lines
// carry nothing else: geometry and height (locating the droplet), topology (walking the
// mesh), erodibility (the brush). Built once per workspace; heights and erodibility are
// refreshed per call. Internal to erosion/.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <glm/geometric.hpp>
#include <glm/vec3.hpp>

#include "geodesy/sphere_mesh.h"

namespace erosion {

struct VertexPoint {
  glm::vec3 x{0.0f};  // unit position
  float h = 0.0f;     // height in edge lengths (see droplet.h), as published to droplets
};

struct alignas(32) VertexLinks {
  // Neighbours counter-clockwise seen from outside, as mesh.neighbours; a five-valent vertex
  // repeats nbr[4] in nbr[5].
  uint32_t nbr[6] = {0, 0, 0, 0, 0, 0};
  // Bits 3k..3k+2: the slot of this vertex in nbr[k]'s list. Bits 24..26: the degree.
  // Bit 31: the lattice brush around this vertex would cross a five-valent vertex.
  uint32_t links = 0;
  float inv_area = 1.0f;  // mean dual area / dual area

  int degree() const { return int(links >> 24 & 7u); }
  int backSlot(int k) const { return int(links >> (3 * k) & 7u); }
  bool irregularBrush() const { return links >> 31; }
};

struct VertexSoil {
  float erodibility = 1.0f;    // per call, [0,1]
  float erodible_area = 1.0f;  // erodibility * dual area / mean dual area
};

struct NodeTable {
  std::vector<VertexPoint> points;
  std::vector<VertexLinks> links;
  std::vector<VertexSoil> soil;
  std::vector<float> area;     // dual area / mean dual area
  std::vector<float> start_m;  // elevation at the call's start, metres

  size_t memoryBytes() const {
    return points.capacity() * sizeof(VertexPoint) + links.capacity() * sizeof(VertexLinks) +
           soil.capacity() * sizeof(VertexSoil) + area.capacity() * sizeof(float) +
           start_m.capacity() * sizeof(float);
  }
};

// Builds the table of every vertex (heights 0, erodibility 1). ring_depth: vertices within
// this many rings of a five-valent vertex get the irregular-brush bit. Parallel.
NodeTable buildNodeTable(const geodesy::SphereMesh& mesh, int ring_depth);

// Per call: heights from elevation_m (metres; h = metres * height_scale) and erodibility
// (empty = 1). Parallel.
void refreshNodeTable(NodeTable& table, std::span<const float> elevation_m, double height_scale,
                      std::span<const float> erodibility);

// A face as seen from one of its corners: anchor, and the slot of the next corner
// (counter-clockwise) in the anchor's neighbour list. Corners: anchor, nbr[slot],
// nbr[slot + 1].
struct FaceRef {
  uint32_t anchor = 0;
  int slot = 0;
};

// What a droplet needs of the terrain at its position: the face, the weights of its corners
// (those of the point where the droplet's ray meets the flat face, as geodesy's locate
// defines them), the interpolated height and its gradient on the sphere.
struct SurfaceSample {
  FaceRef face;
  uint32_t v[3];
  glm::vec3 bary;
  float h;
  glm::vec3 gradient;  // per unit length on the unit sphere, tangent at p

  uint32_t heaviestCorner() const {
    if (bary.x >= bary.y && bary.x >= bary.z) return v[0];
    return bary.y >= bary.z ? v[1] : v[2];
  }
};

inline int wrapSlot(int slot, int degree) {
  return slot >= degree ? slot - degree : (slot < 0 ? slot + degree : slot);
}

// Walks from `start` across face edges to the face whose cone holds the unit point p, and
// samples the terrain there. With N_k = x_{k+1} x x_{k+2}, p's unnormalised weights are
// s_k = p . N_k, computed as (p - x_{k+1}) . N_k, and the gradient of the interpolant
// h = sum h_k s_k / S (S = sum s_k) is sum (h_k - h) N_k / S, tangent at p by construction.
// Every vector is a difference of nearby points, so float keeps full relative precision.
inline SurfaceSample sampleSurface(const VertexPoint* points, const VertexLinks* links,
                                   FaceRef face, const glm::vec3& p) {
  SurfaceSample out;
  for (int hop = 0;; ++hop) {
    const VertexLinks& l = links[face.anchor];
    const int degree = l.degree();
    const int slot2 = wrapSlot(face.slot + 1, degree);
    const uint32_t v[3] = {face.anchor, l.nbr[face.slot], l.nbr[slot2]};
    const glm::vec3 x0 = points[v[0]].x, x1 = points[v[1]].x, x2 = points[v[2]].x;
    const glm::vec3 n0 = glm::cross(x1, x2 - x1);
    const glm::vec3 n1 = glm::cross(x2, x0 - x2);
    const glm::vec3 n2 = glm::cross(x0, x1 - x0);
    const float s0 = glm::dot(p - x1, n0);
    const float s1 = glm::dot(p - x2, n1);
    const float s2 = glm::dot(p - x0, n2);
    const float sum = s0 + s1 + s2;
    const float worst = std::min(s0, std::min(s1, s2));
    if (worst < -1e-6f * sum && hop < 16) {
      if (s1 == worst) {
        face.slot = slot2;  // across the edge x2-x0: next face around the anchor
      } else if (s2 == worst) {
        face.slot = wrapSlot(face.slot - 1, degree);  // across x0-x1: previous face
      } else {
        // Across the far edge x1-x2: the face (x2, x1, w), seen from x2, where x1 follows
        // the anchor in x2's list.
        const int back = l.backSlot(slot2);
        face.anchor = v[2];
        face.slot = wrapSlot(back + 1, links[v[2]].degree());
      }
      continue;
    }
    // p may sit a rounding error outside its face: clamp onto it.
    float w0 = std::max(s0, 0.0f), w1 = std::max(s1, 0.0f), w2 = std::max(s2, 0.0f);
    const float inv = 1.0f / (w0 + w1 + w2);
    w0 *= inv, w1 *= inv, w2 *= inv;
    const float h0 = points[v[0]].h, h1 = points[v[1]].h, h2 = points[v[2]].h;
    out.face = face;
    out.v[0] = v[0], out.v[1] = v[1], out.v[2] = v[2];
    out.bary = glm::vec3(w0, w1, w2);
    out.h = h0 * w0 + h1 * w1 + h2 * w2;
    out.gradient = ((h0 - out.h) * n0 + (h1 - out.h) * n1 + (h2 - out.h) * n2) * (1.0f / sum);
    return out;
  }
}

}  // namespace erosion
