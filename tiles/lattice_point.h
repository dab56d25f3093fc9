#pragma once
// Points of the icosphere's lattice at any frequency F (up to 2^29), named by their base face
// and integer corner weights, and the operations tiles need on them: one name per point
// (canonical form), the ring of neighbours around a point across base-face edges and at the
// 12 five-valent corners, and the unit position.
//
// A point of base face b is a = (a0, a1, a2) with a0 + a1 + a2 = F, all >= 0: the lattice
// point (i, j) = (a1, a2) of geodesy/lattice.h. A point on a base edge belongs to two base
// faces and a corner to five; its canonical form is the one in the lowest-numbered base face
// holding it, so two tiles that share a point name it alike and compute it alike.

#include <array>
#include <cstdint>

#include <glm/vec3.hpp>

#include "geodesy/sphere_mesh.h"

namespace tiles {

struct LatticePoint {
  uint32_t base = 0;
  uint32_t i = 0;  // a1: weight of the base face's corner 1, in steps of 1 / F
  uint32_t j = 0;  // a2: weight of corner 2

  friend bool operator==(const LatticePoint&, const LatticePoint&) = default;
};

// The six lattice steps (di, dj) around a point inside a base face, counter-clockwise
// (erosion::LatticePatch's order).
inline constexpr int64_t kLatticeSteps[6][2] = {{1, 0}, {0, 1}, {-1, 1}, {-1, 0}, {0, -1}, {1, -1}};

// Largest lattice frequency: a point's i and j fit 29 bits (lattice ids, tile_layout.h).
constexpr uint64_t kMaxLatticeFrequency = (uint64_t(1) << 29) - 1;

// Lexicographic (base, i, j): the order lattice ids sort in.
inline bool pointLess(const LatticePoint& a, const LatticePoint& b) {
  if (a.base != b.base) return a.base < b.base;
  if (a.i != b.i) return a.i < b.i;
  return a.j < b.j;
}

// The canonical form of a point of base face p.base at frequency F (p.i + p.j <= F).
LatticePoint canonicalPoint(uint64_t frequency, const LatticePoint& p);

// The point given in the chart of base face `base` by signed coordinates (i, j), which may lie
// one step outside the face across one of its edges (not beyond a corner), in canonical form.
// The chart of a face continues flat across each edge into the adjacent face (the two faces
// unfold into one plane), so lattice directions carry over.
LatticePoint pointInChart(uint64_t frequency, uint32_t base, int64_t i, int64_t j);

// Corner weights (a0, a1, a2) of a point in a base face's chart carried across the face's edge
// e (from corner e to corner e + 1) into the face beyond, where the edge is e_across
// (geodesy::Icosahedron::adjacent_edge): the chart continued flat. Exact for any weights,
// inside the face or not.
std::array<int64_t, 3> acrossBaseEdge(const std::array<int64_t, 3>& a, int e, int e_across);

// The neighbours of canonical point p at frequency F >= 1, in canonical form, counter-clockwise
// seen from outside the sphere, starting with the lowest (pointLess). 6 of them, or 5 at the 12
// icosahedron corners. Returns the count. The order and start depend only on the point, not
// on the face it was reached from, so sums around the ring give the same bits on every tile.
int latticeRing(uint64_t frequency, const LatticePoint& p, std::array<LatticePoint, 6>& ring);

// Whether p (any form) lies on a base-face edge or corner.
inline bool onBaseEdge(uint64_t frequency, const LatticePoint& p) {
  return p.i == 0 || p.j == 0 || uint64_t(p.i) + p.j == frequency;
}

// Unit position of p (geodesy::latticePosition: the icosphere's own placement, so a point
// shared with the planet's mesh lands on the planet's vertex bit for bit).
glm::dvec3 unitPosition(geodesy::Spacing spacing, uint64_t frequency, const LatticePoint& p);

// The icosahedron corner a canonical or non-canonical point sits on, or -1.
int cornerOf(uint64_t frequency, const LatticePoint& p);

// The five base faces around icosahedron corner c (0..11), counter-clockwise seen from
// outside, starting with the lowest-numbered, each with the corner's index (0..2) in it.
struct CornerFan {
  std::array<uint8_t, 5> faces;
  std::array<uint8_t, 5> corner_in_face;
};
const CornerFan& cornerFan(int corner);

}  // namespace tiles
