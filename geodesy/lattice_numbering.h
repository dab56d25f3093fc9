#pragma once
// The icosphere's lattice without the mesh: the vertex id buildIcosphere gives each lattice
// point, and where a lattice point of any frequency goes on the sphere. The builder numbers and
// places its vertices with these, so code that works on the lattice directly (tiles, at
// frequencies far above any mesh) agrees with the mesh bit for bit.
//
// Lattice point (i, j) of base face b at frequency f is the point of geodesy/lattice.h: corner
// weights ((f - i - j) / f, i / f, j / f) on the face's corners (c0, c1, c2).

#include <cstdint>
#include <vector>

#include <glm/vec3.hpp>

#include "geodesy/icosahedron.h"
#include "geodesy/lattice.h"
#include "geodesy/spacing.h"
#include "geodesy/sphere_mesh.h"

namespace geodesy {

// g(k / frequency) of the spacing (Spacing in sphere_mesh.h). Exact in k / frequency: for any
// m, spacingWeight(s, m k, m f) == spacingWeight(s, k, f) bit for bit (both divisions round the
// same rational), so a lattice of frequency m f places the points it shares with frequency f at
// the same doubles. k <= frequency < 2^53.
double spacingWeight(Spacing spacing, uint64_t k, uint64_t frequency);

// Unit position of lattice point (i, j) of base face `base` at `frequency` (i + j <= frequency),
// with weight(k) = spacingWeight(spacing, k, frequency) (a table or a call). The point's bits
// do not depend on which base face names it: a corner is the icosahedron corner itself, a
// point on a base edge is placed from the edge's two corners only, the lower corner id first.
template <typename Weight>
glm::dvec3 latticePosition(const Weight& weight, uint64_t frequency, uint32_t base, uint64_t i,
                           uint64_t j) {
  const Icosahedron& ico = icosahedron();
  const auto& face = ico.faces[base];
  const uint64_t k0 = frequency - i - j;
  // The corner whose weight is the whole: (f, 0, 0) -> corner 0 and so on.
  if (k0 == frequency) return ico.corners[face[0]];
  if (i == frequency) return ico.corners[face[1]];
  if (j == frequency) return ico.corners[face[2]];
  // On base edge e (from corner e to corner e + 1) the point is `step` from corner e.
  int edge = -1;
  uint64_t step = 0;
  if (j == 0)
    edge = 0, step = i;
  else if (k0 == 0)
    edge = 1, step = j;
  else if (i == 0)
    edge = 2, step = frequency - j;
  if (edge >= 0) {
    const uint32_t a = face[edge], b = face[(edge + 1) % 3];
    const uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
    const uint64_t from_lo = a == lo ? step : frequency - step;
    return placePoint(weight(frequency - from_lo), weight(from_lo), 0.0, ico.corners[lo],
                      ico.corners[hi], {});
  }
  return placePoint(weight(k0), weight(i), weight(j), ico.corners[face[0]], ico.corners[face[1]],
                    ico.corners[face[2]]);
}

// latticePosition with the weights computed on the spot.
glm::dvec3 latticePosition(Spacing spacing, uint64_t frequency, uint32_t base, uint64_t i,
                           uint64_t j);

// Vertex ids of the lattice points of one frequency, as buildIcosphere numbers them: the 12
// corners first, then the other base-edge points in a fixed order, then each base face's
// interior row by row (Lattice::interiorVertex). Holds one id per base-edge step of every face
// (60 f entries); vertex() is O(1) and thread-safe (const).
class LatticeNumbering {
 public:
  // 1 <= frequency <= kMaxFrequency.
  explicit LatticeNumbering(int frequency);

  const Lattice& lattice() const { return lattice_; }
  uint32_t frequency() const { return lattice_.f; }

  // Id of lattice point (i, j) of base face `base` (i + j <= f).
  uint32_t vertex(uint32_t base, uint32_t i, uint32_t j) const {
    return lattice_.onBoundary(i, j)
               ? ring_[size_t(base) * 3 * lattice_.f + lattice_.ringIndex(i, j)]
               : lattice_.interiorVertex(base, i, j);
  }
  // Id of the point `step` (0 <= step < f) along edge k of base face `base` from its corner k.
  uint32_t ringVertex(uint32_t base, int k, uint32_t step) const {
    return ring_[(size_t(base) * 3 + size_t(k)) * lattice_.f + step];
  }

 private:
  Lattice lattice_;
  std::vector<uint32_t> ring_;  // [base * 3f + k f + step]
};

// For every vertex of `coarse`, the vertex of `fine` at the same point: lattice point (i, j) of a
// base face at frequency f is point (m i, m j) at frequency m f, placed at the same doubles
// (spacingWeight), so the two positions are equal bit for bit. Both meshes must come from
// buildIcosphere; empty unless fine's frequency is a multiple of coarse's and their spacings are
// the same. Serial, O(coarse vertices) (no point location).
std::vector<uint32_t> sharedVertices(const SphereMesh& coarse, const SphereMesh& fine);

}  // namespace geodesy
