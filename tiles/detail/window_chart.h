#pragma once
// The flat chart of an erosion window: the lattice points of one level within `radius` lattice
// steps of a centre point, laid out in the chart of the centre's base face and continued flat
// across that face's edges into its neighbours and, around one of its corners, into the two
// faces beyond (geodesy/lattice.h's (i, j) chart; tiles/lattice_point.h for the crossing).
//
// Chart offset (x, y) from the centre is the lattice vector x (1, 0) + y (0, 1); the window
// holds |x|, |y|, |x + y| <= radius (a hexagon). Around an icosahedron corner only five faces
// meet: unfolded, they leave the wedge opposite the centre's face empty (unfold() gives no
// point there) and the two rays that bound it name the same points of the sphere, so those
// points are in the chart twice. Windows are smaller than half a base-face edge (the caller
// checks), so at most one corner is in reach and no point is more than two faces away.

#include <array>
#include <cstdint>
#include <optional>

#include "tiles/lattice_point.h"

namespace tiles::detail {

class WindowChart {
 public:
  // frequency: the level's lattice frequency F; centre: a canonical point of it.
  WindowChart(uint64_t frequency, const LatticePoint& centre, uint32_t radius);

  uint64_t frequency() const { return frequency_; }
  const LatticePoint& centre() const { return centre_; }
  uint32_t radius() const { return radius_; }

  // The point at chart offset (x, y), named in the face the chart reaches it through (not
  // canonical), or nothing in the empty wedge beside a corner.
  std::optional<LatticePoint> unfold(int64_t x, int64_t y) const;

  // A chart offset of p (any face's name for it) within `within` steps of the centre, if the
  // chart holds it there. A point the chart holds twice gives one of its two offsets.
  bool offsetOf(const LatticePoint& p, uint32_t within, int64_t& x, int64_t& y) const;

  // The icosahedron corner within the window's radius, or -1.
  int corner() const { return corner_; }

 private:
  // Chart (i, j) of the centre's face -> (i', j') of `face`: i' = m00 i + m01 j + t0, ...;
  // and back (inverse, exact: the maps are lattice isometries).
  struct FaceMap {
    uint32_t face = 0;
    int64_t m[2][2] = {{1, 0}, {0, 1}};
    int64_t t[2] = {0, 0};
    int64_t inv[2][2] = {{1, 0}, {0, 1}};
  };

  uint64_t frequency_;
  LatticePoint centre_;
  uint32_t radius_;
  int corner_ = -1;
  int map_count_ = 0;
  std::array<FaceMap, 10> maps_{};  // the centre's face, its 3 neighbours, 6 faces beyond
};

}  // namespace tiles::detail
