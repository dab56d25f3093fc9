#include "tiles/detail/window_chart.h"

#include <algorithm>
#include <cassert>
#include <cstdlib>

#include "geodesy/icosahedron.h"

namespace tiles::detail {
namespace {

using Weights = std::array<int64_t, 3>;

int negatives(const Weights& a, int& which) {
  int count = 0;
  for (int k = 0; k < 3; ++k) {
    if (a[k] < 0) ++count, which = k;
  }
  return count;
}

// A point's weights with a[k] < 0 lie beyond the face's edge opposite corner k: edge k + 1
// (from corner k + 1 to corner k + 2).
int edgeBeyond(int negative) {
  return (negative + 1) % 3;
}

// Weights in face `face` carried across its edge `edge`: the weights in the face beyond, and
// that face.
Weights cross(uint32_t& face, const Weights& a, int edge) {
  const geodesy::Icosahedron& ico = geodesy::icosahedron();
  const Weights out = acrossBaseEdge(a, edge, ico.adjacent_edge[face][edge]);
  face = ico.adjacent_face[face][edge];
  return out;
}

// The weights of (i, j) in the chart of the centre's face (frequency f), carried across
// `edges` (count of them, each an edge of the face reached so far), and the face they end in.
Weights unfoldPath(uint64_t f, uint32_t base, const int* edges, int count, int64_t i, int64_t j,
                   uint32_t& face) {
  Weights a{int64_t(f) - i - j, i, j};
  face = base;
  for (int k = 0; k < count; ++k) a = cross(face, a, edges[k]);
  return a;
}

int64_t distance(int64_t x, int64_t y) {
  return std::max({std::abs(x), std::abs(y), std::abs(x + y)});
}

}  // namespace

WindowChart::WindowChart(uint64_t frequency, const LatticePoint& centre, uint32_t radius)
    : frequency_(frequency), centre_(centre), radius_(radius) {
  assert(2 * uint64_t(radius) < frequency);
  const geodesy::Icosahedron& ico = geodesy::icosahedron();
  // The centre's face, then across each edge, then across each further edge of those faces but
  // the one back: every face the unfolding can reach, with its affine map (from the crossings
  // evaluated at three chart points).
  auto add = [&](const int* edges, int count) {
    FaceMap& map = maps_[map_count_++];
    uint32_t face = 0;
    const Weights o = unfoldPath(frequency, centre.base, edges, count, 0, 0, face);
    const Weights u = unfoldPath(frequency, centre.base, edges, count, 1, 0, face);
    const Weights v = unfoldPath(frequency, centre.base, edges, count, 0, 1, face);
    map.face = face;
    map.t[0] = o[1], map.t[1] = o[2];
    map.m[0][0] = u[1] - o[1], map.m[1][0] = u[2] - o[2];
    map.m[0][1] = v[1] - o[1], map.m[1][1] = v[2] - o[2];
    const int64_t det = map.m[0][0] * map.m[1][1] - map.m[0][1] * map.m[1][0];
    assert(det == 1 || det == -1);
    map.inv[0][0] = map.m[1][1] * det, map.inv[0][1] = -map.m[0][1] * det;
    map.inv[1][0] = -map.m[1][0] * det, map.inv[1][1] = map.m[0][0] * det;
  };
  add(nullptr, 0);
  for (int e = 0; e < 3; ++e) {
    const int first[1] = {e};
    add(first, 1);
    const int back = ico.adjacent_edge[centre.base][e];
    for (int e2 = 0; e2 < 3; ++e2) {
      if (e2 == back) continue;
      const int path[2] = {e, e2};
      add(path, 2);
    }
  }
  // The corner in reach, if any (only the centre face's own corners can be: the window is
  // smaller than half a face).
  const Weights c{int64_t(frequency) - centre.i - centre.j, centre.i, centre.j};
  for (int k = 0; k < 3; ++k) {
    // Distance from the centre to corner k in lattice steps: F - a_k.
    if (int64_t(frequency) - c[k] <= int64_t(radius)) corner_ = ico.faces[centre.base][k];
  }
}

std::optional<LatticePoint> WindowChart::unfold(int64_t x, int64_t y) const {
  const int64_t i = int64_t(centre_.i) + x, j = int64_t(centre_.j) + y;
  const int64_t f = int64_t(frequency_);
  Weights a{f - i - j, i, j};
  uint32_t face = centre_.base;
  int which = -1;
  int count = negatives(a, which);
  if (count == 1) {
    a = cross(face, a, edgeBeyond(which));
    count = negatives(a, which);
    if (count == 1) {
      a = cross(face, a, edgeBeyond(which));
      count = negatives(a, which);
    }
  }
  if (count != 0) return std::nullopt;
  return LatticePoint{face, uint32_t(a[1]), uint32_t(a[2])};
}

bool WindowChart::offsetOf(const LatticePoint& p, uint32_t within, int64_t& x, int64_t& y) const {
  const int64_t f = int64_t(frequency_);
  // Every name of p: its own, the face across the base edge it lies on, the five faces of the
  // corner it is.
  std::array<LatticePoint, 5> names;
  int count = 0;
  const int corner = cornerOf(frequency_, p);
  if (corner >= 0) {
    const CornerFan& fan = cornerFan(corner);
    for (int m = 0; m < 5; ++m) {
      Weights a{0, 0, 0};
      a[fan.corner_in_face[m]] = f;
      names[count++] = {fan.faces[m], uint32_t(a[1]), uint32_t(a[2])};
    }
  } else {
    names[count++] = p;
    const Weights a{f - int64_t(p.i) - int64_t(p.j), int64_t(p.i), int64_t(p.j)};
    for (int e = 0; e < 3; ++e) {
      if (a[(e + 2) % 3] != 0) continue;
      uint32_t face = p.base;
      const Weights b = cross(face, a, e);
      names[count++] = {face, uint32_t(b[1]), uint32_t(b[2])};
    }
  }
  for (int n = 0; n < count; ++n) {
    for (int k = 0; k < map_count_; ++k) {
      const FaceMap& map = maps_[k];
      if (map.face != names[n].base) continue;
      const int64_t u = int64_t(names[n].i) - map.t[0], v = int64_t(names[n].j) - map.t[1];
      const int64_t i = map.inv[0][0] * u + map.inv[0][1] * v;
      const int64_t j = map.inv[1][0] * u + map.inv[1][1] * v;
      const int64_t cx = i - int64_t(centre_.i), cy = j - int64_t(centre_.j);
      if (distance(cx, cy) > int64_t(within)) continue;
      // The chart reaches this offset through this face (not through the empty wedge, and not
      // through another face that happens to share the name's base).
      const std::optional<LatticePoint> back = unfold(cx, cy);
      if (!back || back->base != names[n].base || back->i != names[n].i || back->j != names[n].j)
        continue;
      x = cx, y = cy;
      return true;
    }
  }
  return false;
}

}  // namespace tiles::detail
