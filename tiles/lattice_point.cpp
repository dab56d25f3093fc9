#include "tiles/lattice_point.h"

#include <algorithm>
#include <cassert>

#include "geodesy/icosahedron.h"
#include "geodesy/lattice_numbering.h"

namespace tiles {
namespace {

using Weights = std::array<int64_t, 3>;  // (a0, a1, a2), summing to F

Weights weightsOf(uint64_t frequency, uint32_t base_i, uint32_t base_j) {
  return {int64_t(frequency) - int64_t(base_i) - int64_t(base_j), int64_t(base_i), int64_t(base_j)};
}

LatticePoint pointOf(uint32_t base, const Weights& a) {
  return {base, uint32_t(a[1]), uint32_t(a[2])};
}

// Crossing edge e of face b (corner e -> corner e + 1) into the adjacent face b', where the
// edge is e' and runs the other way: a point s steps along edge e and r steps inward (toward
// corner e + 2) is F - s steps along e' and -r inward. In weights: s = a[e+1], r = a[e+2].
Weights acrossEdge(const Weights& a, int e, int e_across) {
  const int64_t s = a[(e + 1) % 3], r = a[(e + 2) % 3];
  const int64_t f = a[0] + a[1] + a[2];
  Weights out{};
  out[(e_across + 1) % 3] = f - s;
  out[(e_across + 2) % 3] = -r;
  out[e_across] = s + r;
  return out;
}

std::array<CornerFan, geodesy::Icosahedron::kCorners> makeFans() {
  const geodesy::Icosahedron& ico = geodesy::icosahedron();
  std::array<CornerFan, geodesy::Icosahedron::kCorners> fans{};
  for (int c = 0; c < geodesy::Icosahedron::kCorners; ++c) {
    int base = -1, k = 0;
    for (int b = 0; b < geodesy::Icosahedron::kFaces && base < 0; ++b) {
      for (int m = 0; m < 3; ++m) {
        if (ico.faces[b][m] == c) base = b, k = m;
      }
    }
    // Counter-clockwise past the direction of corner k + 2 lies the face across the edge
    // from corner k + 2 back to corner k: edge (k + 2) % 3.
    for (int m = 0; m < 5; ++m) {
      fans[c].faces[m] = uint8_t(base);
      fans[c].corner_in_face[m] = uint8_t(k);
      const int next = ico.adjacent_face[base][(k + 2) % 3];
      const int next_edge = ico.adjacent_edge[base][(k + 2) % 3];
      // The shared edge runs corner k -> corner k + 2 in the next face: it is that face's edge
      // from our corner, so our corner is its corner next_edge.
      base = next;
      k = next_edge;
      assert(ico.faces[base][k] == c);
    }
    assert(base == fans[c].faces[0]);
  }
  return fans;
}

}  // namespace

std::array<int64_t, 3> acrossBaseEdge(const std::array<int64_t, 3>& a, int e, int e_across) {
  return acrossEdge(a, e, e_across);
}

const CornerFan& cornerFan(int corner) {
  static const std::array<CornerFan, geodesy::Icosahedron::kCorners> fans = makeFans();
  return fans[corner];
}

int cornerOf(uint64_t frequency, const LatticePoint& p) {
  const Weights a = weightsOf(frequency, p.i, p.j);
  for (int c = 0; c < 3; ++c) {
    if (uint64_t(a[c]) == frequency) return geodesy::icosahedron().faces[p.base][c];
  }
  return -1;
}

LatticePoint canonicalPoint(uint64_t frequency, const LatticePoint& p) {
  assert(uint64_t(p.i) + p.j <= frequency && p.base < 20);
  const Weights a = weightsOf(frequency, p.i, p.j);
  const geodesy::Icosahedron& ico = geodesy::icosahedron();
  for (int c = 0; c < 3; ++c) {
    if (uint64_t(a[c]) == frequency) {
      const CornerFan& fan = cornerFan(ico.faces[p.base][c]);
      Weights corner{};
      corner[fan.corner_in_face[0]] = int64_t(frequency);
      return pointOf(fan.faces[0], corner);
    }
  }
  for (int e = 0; e < 3; ++e) {
    if (a[(e + 2) % 3] != 0) continue;
    const uint32_t other = ico.adjacent_face[p.base][e];
    if (other > p.base) return p;
    return pointOf(other, acrossEdge(a, e, ico.adjacent_edge[p.base][e]));
  }
  return p;
}

LatticePoint pointInChart(uint64_t frequency, uint32_t base, int64_t i, int64_t j) {
  const Weights a{int64_t(frequency) - i - j, i, j};
  for (int e = 0; e < 3; ++e) {
    if (a[(e + 2) % 3] >= 0) continue;
    const geodesy::Icosahedron& ico = geodesy::icosahedron();
    const Weights b = acrossEdge(a, e, ico.adjacent_edge[base][e]);
    assert(b[0] >= 0 && b[1] >= 0 && b[2] >= 0);
    return canonicalPoint(frequency, pointOf(ico.adjacent_face[base][e], b));
  }
  return canonicalPoint(frequency, pointOf(base, a));
}

int latticeRing(uint64_t frequency, const LatticePoint& p, std::array<LatticePoint, 6>& ring) {
  assert(frequency >= 1);
  int count = 6;
  const int corner = cornerOf(frequency, p);
  if (corner >= 0) {
    const CornerFan& fan = cornerFan(corner);
    count = 5;
    for (int m = 0; m < 5; ++m) {
      const int k = fan.corner_in_face[m];
      Weights a{};
      a[k] = int64_t(frequency) - 1;
      a[(k + 1) % 3] = 1;
      ring[m] = canonicalPoint(frequency, pointOf(fan.faces[m], a));
    }
  } else {
    for (int m = 0; m < 6; ++m) {
      ring[m] = pointInChart(frequency, p.base, int64_t(p.i) + kLatticeSteps[m][0],
                             int64_t(p.j) + kLatticeSteps[m][1]);
    }
  }
  const auto lowest = std::min_element(ring.begin(), ring.begin() + count, pointLess);
  std::rotate(ring.begin(), lowest, ring.begin() + count);
  return count;
}

glm::dvec3 unitPosition(geodesy::Spacing spacing, uint64_t frequency, const LatticePoint& p) {
  return geodesy::latticePosition(spacing, frequency, p.base, p.i, p.j);
}

}  // namespace tiles
