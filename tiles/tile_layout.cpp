#include "tiles/tile_layout.h"

#include <cassert>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "geodesy/icosahedron.h"

namespace tiles {
namespace {

// A number as a message shows it: "nan", "-inf", "1e-300" (std::to_string would print 0.000000).
std::string numberText(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", x);
  return text;
}

std::string tileName(const TileId& id) {
  return "tile (base face " + std::to_string(id.base) + ", level " + std::to_string(id.level) +
         ", index " + std::to_string(id.index) + ")";
}

// Tile on base edge e of a face with 2^level tiles per edge, `step` tiles from corner e:
// geodesy::Lattice::boundaryFace for frequency n.
TileSlot boundarySlot(uint64_t n, int e, uint64_t step) {
  switch (e) {
    case 0:
      return {step, 0, false};
    case 1:
      return {n - 1 - step, step, false};
    default:
      return {0, n - 1 - step, false};
  }
}

}  // namespace

TileLayout::TileLayout(int planet_frequency, int requested_edge)
    : planet_frequency_(planet_frequency) {
  if (planet_frequency < 1 || planet_frequency > geodesy::kMaxFrequency) {
    throw std::invalid_argument("planet frequency " + std::to_string(planet_frequency) +
                                " is out of range; allowed: 1 to " +
                                std::to_string(geodesy::kMaxFrequency));
  }
  if (requested_edge < 2 || requested_edge > kMaxTileEdge) {
    throw std::invalid_argument("tile edge " + std::to_string(requested_edge) +
                                " is out of range; allowed: 2 to " + std::to_string(kMaxTileEdge) +
                                " lattice steps");
  }
  int odd = planet_frequency, twos = 0;
  while (odd % 2 == 0) odd /= 2, ++twos;
  int edge = 2 * odd;
  while (2 * edge <= requested_edge) edge *= 2;
  tile_edge_ = edge;
  int k = 0;
  while ((edge >> k) % 2 == 0) ++k;
  planet_level_ = twos > k ? twos - k : 0;
  deepest_level_ = 0;
  while ((uint64_t(tile_edge_) << (deepest_level_ + 1)) <= kMaxLatticeFrequency) ++deepest_level_;
}

double TileLayout::levelSpacingRad(int level) const {
  return geodesy::icosahedron().edge_arc / double(levelFrequency(level));
}

int TileLayout::levelForSpacing(double spacing_m, double radius_m) const {
  if (!(spacing_m > 0.0) || !std::isfinite(spacing_m)) {
    throw std::invalid_argument("tile spacing " + numberText(spacing_m) +
                                " m is not a positive number");
  }
  if (!(radius_m > 0.0) || !std::isfinite(radius_m)) {
    throw std::invalid_argument("planet radius " + numberText(radius_m) +
                                " m is not a positive number");
  }
  for (int level = 0; level < deepest_level_; ++level) {
    if (levelSpacingRad(level) * radius_m <= spacing_m) return level;
  }
  return deepest_level_;
}

void TileLayout::check(const TileId& id) const {
  if (id.base >= 20) {
    throw std::invalid_argument(tileName(id) + ": base face " + std::to_string(id.base) +
                                " does not exist; allowed: 0 to 19");
  }
  if (id.level > uint32_t(deepest_level_)) {
    throw std::invalid_argument(tileName(id) + ": level " + std::to_string(id.level) +
                                " is past the deepest level " + std::to_string(deepest_level_) +
                                " (T = " + std::to_string(tile_edge_) +
                                " steps per tile edge; lattice ids hold 29 bits per coordinate)");
  }
  const uint64_t n = uint64_t(1) << id.level;
  if (id.index >= n * n) {
    throw std::invalid_argument(tileName(id) + ": index " + std::to_string(id.index) +
                                " does not exist at level " + std::to_string(id.level) +
                                "; allowed: 0 to " + std::to_string(n * n - 1));
  }
}

TileId TileLayout::parent(const TileId& id) const {
  check(id);
  if (id.level == 0) throw std::invalid_argument(tileName(id) + " is a base face: no parent");
  const TileSlot s = slotOf(uint64_t(1) << id.level, id.index);
  // A child is the parent's middle triangle when its orientation differs from the parent's:
  // an up child at odd (i, j), or a down child at even (i, j).
  const bool odd = s.i % 2 == 1 && s.j % 2 == 1;
  const bool even = s.i % 2 == 0 && s.j % 2 == 0;
  const bool parent_down = s.down ? !even : odd;
  const TileSlot p{s.i / 2, s.j / 2, parent_down};
  return {id.base, id.level - 1, slotIndex(uint64_t(1) << (id.level - 1), p)};
}

std::array<TileId, 4> TileLayout::children(const TileId& id) const {
  check(id);
  if (id.level >= uint32_t(deepest_level_)) {
    throw std::invalid_argument(tileName(id) + " is at the deepest level " +
                                std::to_string(deepest_level_) + ": no children");
  }
  const TileSlot s = slotOf(uint64_t(1) << id.level, id.index);
  const uint64_t n = uint64_t(1) << (id.level + 1);
  const uint64_t i = 2 * s.i, j = 2 * s.j;
  TileSlot c[4];
  if (!s.down) {
    c[0] = {i, j, false};
    c[1] = {i + 1, j, false};
    c[2] = {i, j + 1, false};
    c[3] = {i, j, true};
  } else {
    // Corners (i + 1, j), (i + 1, j + 1), (i, j + 1) of the parent, doubled.
    c[0] = {i + 1, j, true};
    c[1] = {i + 1, j + 1, true};
    c[2] = {i, j + 1, true};
    c[3] = {i + 1, j + 1, false};
  }
  std::array<TileId, 4> out;
  for (int k = 0; k < 4; ++k) out[k] = {id.base, id.level + 1, slotIndex(n, c[k])};
  return out;
}

std::array<TileNeighbour, 3> TileLayout::neighbours(const TileId& id) const {
  check(id);
  const uint64_t n = uint64_t(1) << id.level;
  const TileSlot s = slotOf(n, id.index);
  const geodesy::Icosahedron& ico = geodesy::icosahedron();
  auto inFace = [&](const TileSlot& t, int edge) {
    return TileNeighbour{{id.base, id.level, slotIndex(n, t)}, edge};
  };
  // Across base edge e, step t of edge e meets step n - 1 - t of the adjacent face's edge.
  auto across = [&](int e, uint64_t t) {
    const int e2 = ico.adjacent_edge[id.base][e];
    return TileNeighbour{
        {ico.adjacent_face[id.base][e], id.level, slotIndex(n, boundarySlot(n, e2, n - 1 - t))},
        e2};
  };
  if (s.down) {
    return {inFace({s.i + 1, s.j, false}, 2), inFace({s.i, s.j + 1, false}, 0),
            inFace({s.i, s.j, false}, 1)};
  }
  return {s.j == 0 ? across(0, s.i) : inFace({s.i, s.j - 1, true}, 1),
          s.i + s.j + 1 == n ? across(1, s.j) : inFace({s.i, s.j, true}, 2),
          s.i == 0 ? across(2, n - 1 - s.j) : inFace({s.i - 1, s.j, true}, 0)};
}

std::array<TileId, 5> TileLayout::cornerTiles(int corner, int level) const {
  if (corner < 0 || corner >= 12) {
    throw std::invalid_argument("icosahedron corner " + std::to_string(corner) +
                                " does not exist; allowed: 0 to 11");
  }
  if (level < 0 || level > deepest_level_) {
    throw std::invalid_argument("tile level " + std::to_string(level) +
                                " does not exist; allowed: 0 to " + std::to_string(deepest_level_));
  }
  const uint64_t n = uint64_t(1) << level;
  const CornerFan& fan = cornerFan(corner);
  std::array<TileId, 5> out;
  for (int m = 0; m < 5; ++m) {
    const int k = fan.corner_in_face[m];
    const TileSlot s = k == 0   ? TileSlot{0, 0, false}
                       : k == 1 ? TileSlot{n - 1, 0, false}
                                : TileSlot{0, n - 1, false};
    out[m] = {fan.faces[m], uint32_t(level), slotIndex(n, s)};
  }
  return out;
}

std::array<LatticePoint, 3> TileLayout::tileCorners(const TileId& id) const {
  check(id);
  const TileSlot s = slotOf(uint64_t(1) << id.level, id.index);
  const uint32_t t = uint32_t(tile_edge_);
  const uint32_t i = uint32_t(s.i) * t, j = uint32_t(s.j) * t;
  if (s.down) return {{{id.base, i + t, j}, {id.base, i + t, j + t}, {id.base, i, j + t}}};
  return {{{id.base, i, j}, {id.base, i + t, j}, {id.base, i, j + t}}};
}

LatticePoint TileLayout::vertexPoint(const TileId& id, uint32_t u, uint32_t v) const {
  const auto c = tileCorners(id);
  const int64_t t = tile_edge_;
  // corner 0 + u (c1 - c0) / T + v (c2 - c0) / T
  const int64_t i =
      int64_t(c[0].i) +
      (int64_t(u) * (int64_t(c[1].i) - c[0].i) + int64_t(v) * (int64_t(c[2].i) - c[0].i)) / t;
  const int64_t j =
      int64_t(c[0].j) +
      (int64_t(u) * (int64_t(c[1].j) - c[0].j) + int64_t(v) * (int64_t(c[2].j) - c[0].j)) / t;
  return {id.base, uint32_t(i), uint32_t(j)};
}

uint64_t TileLayout::latticeId(int level, const LatticePoint& p) const {
  assert(level >= 0 && level <= deepest_level_);
  const LatticePoint c = canonicalPoint(levelFrequency(level), p);
  const int shift = deepest_level_ - level;
  return uint64_t(c.base) << 58 | (uint64_t(c.i) << shift) << 29 | (uint64_t(c.j) << shift);
}

LatticePoint TileLayout::pointOfLatticeId(uint64_t id) const {
  const uint64_t mask = (uint64_t(1) << 29) - 1;
  return {uint32_t(id >> 58), uint32_t((id >> 29) & mask), uint32_t(id & mask)};
}

}  // namespace tiles
