#include "planet/tile_heightmap_grid.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <glm/geometric.hpp>

#include "geodesy/icosahedron.h"
#include "geodesy/latlon.h"
#include "geodesy/spacing.h"

namespace planet {
namespace {

using tiles::LatticePoint;

// Rows of the square made at a time (of 257 at T = 256).
constexpr size_t kBandRows = 32;

// Where a sample falls: the lattice triangle of frequency F holding it, named by its base
// face, its (i, j) and whether it is a down triangle, and the sample's chart coordinates in it.
struct Place {
  uint32_t base = 0;
  uint32_t i = 0, j = 0;
  bool down = false;
  float a = 0.0f, b = 0.0f;  // i and j past (i, j), in lattice steps
};

Place locate(geodesy::Spacing spacing, uint64_t frequency, const glm::dvec3& d) {
  const geodesy::Icosahedron& ico = geodesy::icosahedron();
  uint32_t base = 0;
  double nearest = glm::dot(d, ico.centres[0]);
  for (uint32_t f = 1; f < 20; ++f) {
    const double along = glm::dot(d, ico.centres[f]);
    if (along > nearest) base = f, nearest = along;
  }
  const auto& n = ico.opposite_normals[base];
  const glm::dvec3 w = geodesy::latticeCoordinates(
      spacing, {std::max(0.0, glm::dot(d, n[0])), std::max(0.0, glm::dot(d, n[1])),
                std::max(0.0, glm::dot(d, n[2]))});
  const double F = double(frequency);
  const double x = std::clamp(w.y * F, 0.0, F), y = std::clamp(w.z * F, 0.0, F);
  const uint64_t j = std::min(uint64_t(y), frequency - 1);
  const uint64_t i = std::min(uint64_t(x), frequency - 1 - j);
  Place p;
  p.base = base;
  p.i = uint32_t(i);
  p.j = uint32_t(j);
  p.a = float(std::clamp(x - double(i), 0.0, 1.0));
  p.b = float(std::clamp(y - double(j), 0.0, 1.0));
  p.down = p.a + p.b > 1.0f && i + j + 1 < frequency;
  return p;
}

// The triangle's corners and the sample's weights on them.
void corners(const Place& p, LatticePoint (&c)[3], double (&w)[3]) {
  const double a = p.a, b = p.b;
  if (p.down) {
    c[0] = {p.base, p.i + 1, p.j}, c[1] = {p.base, p.i + 1, p.j + 1}, c[2] = {p.base, p.i, p.j + 1};
    w[0] = 1.0 - b, w[1] = a + b - 1.0, w[2] = 1.0 - a;
  } else {
    c[0] = {p.base, p.i, p.j}, c[1] = {p.base, p.i + 1, p.j}, c[2] = {p.base, p.i, p.j + 1};
    w[0] = std::max(0.0, 1.0 - a - b), w[1] = a, w[2] = b;
  }
}

// The tile's vertex at chart point (i, j) of its base face, or -1.
struct TileChart {
  uint32_t base = 0, edge = 0;
  int64_t i0 = 0, j0 = 0, d1i = 0, d1j = 0, d2i = 0, d2j = 0;

  TileChart(const tiles::TileLayout& layout, const tiles::TileId& id)
      : base(id.base), edge(uint32_t(layout.tileEdge())) {
    const auto c = layout.tileCorners(id);
    const int64_t t = edge;
    i0 = c[0].i, j0 = c[0].j;
    d1i = (int64_t(c[1].i) - i0) / t, d1j = (int64_t(c[1].j) - j0) / t;
    d2i = (int64_t(c[2].i) - i0) / t, d2j = (int64_t(c[2].j) - j0) / t;
  }
  int64_t vertexOf(const LatticePoint& p) const {
    if (p.base != base) return -1;
    const int64_t di = int64_t(p.i) - i0, dj = int64_t(p.j) - j0;
    const int64_t u = di * d2j - dj * d2i, v = dj * d1i - di * d1j;
    if (u < 0 || v < 0 || u + v > int64_t(edge)) return -1;
    return v * (edge + 1) - v * (v - 1) / 2 + u;
  }
};

// Slots of distinct lattice points (open addressing on the packed point, i and j fit 29 bits;
// at most three quarters full):
// find(p, next) returns p's slot, giving it `next` if p is new.
class PointSlots {
 public:
  explicit PointSlots(size_t expected) {
    size_t capacity = 1024;
    while (3 * capacity < 4 * expected) capacity *= 2;
    keys_.assign(capacity, kEmpty);
    slots_.resize(capacity);
  }
  int32_t find(const LatticePoint& p, int32_t next) {
    const uint64_t key = (uint64_t(p.base) << 58) | (uint64_t(p.i) << 29) | uint64_t(p.j);
    const size_t mask = keys_.size() - 1;
    for (size_t h = size_t(mix(key)) & mask;; h = (h + 1) & mask) {
      if (keys_[h] == key) return slots_[h];
      if (keys_[h] == kEmpty) {
        keys_[h] = key, slots_[h] = next;
        if (4 * ++used_ > 3 * keys_.size()) grow();
        return next;
      }
    }
  }

 private:
  static constexpr uint64_t kEmpty = ~uint64_t(0);
  static uint64_t mix(uint64_t x) {  // splitmix64's finaliser
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
  }
  void grow() {
    std::vector<uint64_t> keys(2 * keys_.size(), kEmpty);
    std::vector<int32_t> slots(keys.size());
    const size_t mask = keys.size() - 1;
    for (size_t k = 0; k < keys_.size(); ++k) {
      if (keys_[k] == kEmpty) continue;
      size_t h = size_t(mix(keys_[k])) & mask;
      while (keys[h] != kEmpty) h = (h + 1) & mask;
      keys[h] = keys_[k], slots[h] = slots_[k];
    }
    keys_.swap(keys), slots_.swap(slots);
  }

  std::vector<uint64_t> keys_;
  std::vector<int32_t> slots_;
  size_t used_ = 0;
};

}  // namespace

planet_export::TileHeightmap tileHeightmap(const tiles::TileGenerator& generator,
                                           const tiles::TileMesh& mesh,
                                           std::span<const KnownTile> known) {
  const tiles::TileLayout& layout = generator.layout();
  const tiles::TileId& id = mesh.id;
  const int level = int(id.level);
  const uint64_t frequency = layout.levelFrequency(level);
  const double radius = generator.radiusM();
  const geodesy::Spacing spacing = generator.spacing();
  const TileChart chart(layout, id);
  std::vector<TileChart> known_charts;
  for (const KnownTile& k : known) {
    if (k.id.level != id.level || k.height_m.size() != layout.verticesPerTile())
      throw std::invalid_argument("tileHeightmap: a known tile of another level or size");
    known_charts.emplace_back(layout, k.id);
  }

  // The frame at the tile's centre, then re-centred on the square around the tile's edge
  // vertices in that frame's tangent plane.
  const auto tc = layout.tileCorners(id);
  glm::dvec3 up(0.0);
  for (const LatticePoint& c : tc) up += glm::normalize(generator.surfacePosition(level, c, 0.0f));
  up = glm::normalize(up);
  double half = 0.0;
  for (int pass = 0; pass < 2; ++pass) {
    const glm::dvec3 east = geodesy::eastAt(up), north = geodesy::northAt(up);
    double lo_x = INFINITY, hi_x = -INFINITY, lo_y = INFINITY, hi_y = -INFINITY;
    for (const auto& edge : mesh.topology->edges) {
      for (uint32_t v : edge) {
        const glm::dvec3 u = glm::normalize(mesh.position(v));
        const double x = radius * glm::dot(u, east) / glm::dot(u, up);
        const double y = radius * glm::dot(u, north) / glm::dot(u, up);
        lo_x = std::min(lo_x, x), hi_x = std::max(hi_x, x);
        lo_y = std::min(lo_y, y), hi_y = std::max(hi_y, y);
      }
    }
    if (pass == 0) {
      up = glm::normalize(up + (0.5 * (lo_x + hi_x) * east + 0.5 * (lo_y + hi_y) * north) / radius);
    } else {
      half = std::max({-lo_x, hi_x, -lo_y, hi_y});
    }
  }

  planet_export::TileHeightmap map;
  int steps = 1;
  while (steps < layout.tileEdge()) steps *= 2;
  map.size = steps + 1;
  map.spacing_m = 2.0 * half / double(steps);
  map.radius_m = radius;
  map.up = up;
  map.east = geodesy::eastAt(up);
  map.north = geodesy::northAt(up);
  map.base = id.base, map.level = id.level, map.index = id.index;
  const size_t n = size_t(map.size);

  // The square in bands of rows, each made whole before the next: what a band needs (where
  // its samples fall, their corners, the heights of its lattice points outside the tile) is
  // about a tenth of what the whole square would need at once, and a bake holds one square per
  // thread. A point on the rows two bands share is found (or asked for) by each.
  map.height_m.resize(n * n);
  std::vector<Place> places;
  std::vector<int32_t> corner_of;
  std::vector<float> outside_height;
  std::vector<LatticePoint> unknown;  // outside points no known tile holds
  std::vector<int32_t> unknown_slot;
  for (size_t first_row = 0; first_row < n; first_row += kBandRows) {
    const size_t rows = std::min(kBandRows, n - first_row), count = rows * n;
    const size_t first = first_row * n;
    // Where each sample falls (the costly part: the spacing's inverse per sample).
    places.resize(count);
    tbb::parallel_for(size_t(0), rows, [&](size_t r) {
      const size_t row = first_row + r;
      for (size_t col = 0; col < n; ++col) {
        const double x = -half + double(col) * map.spacing_m;
        const double y = half - double(row) * map.spacing_m;
        const glm::dvec3 d = glm::normalize(map.up + (x * map.east + y * map.north) / radius);
        places[r * n + col] = locate(spacing, frequency, d);
      }
    });
    // Each sample's corners: a vertex of the tile, or a slot of the lattice points outside it,
    // each point once (neighbouring samples share corners), in the order samples first meet
    // them.
    corner_of.resize(3 * count);
    outside_height.clear();
    unknown.clear();
    unknown_slot.clear();
    {
      PointSlots slots(count / 2);  // about as many points outside as the band holds inside
      for (size_t k = 0; k < count; ++k) {
        LatticePoint c[3];
        double w[3];
        corners(places[k], c, w);
        for (int m = 0; m < 3; ++m) {
          const int64_t v = chart.vertexOf(c[m]);
          if (v >= 0) {
            corner_of[3 * k + size_t(m)] = int32_t(v);
            continue;
          }
          const LatticePoint q = tiles::canonicalPoint(frequency, c[m]);
          const int32_t next = int32_t(outside_height.size());
          const int32_t slot = slots.find(q, next);
          corner_of[3 * k + size_t(m)] = -1 - slot;
          if (slot != next) continue;
          // A new point: from a known tile that holds it under either name, else asked for.
          float height = 0.0f;
          bool found = false;
          for (size_t t = 0; t < known.size() && !found; ++t) {
            for (const LatticePoint& name : {c[m], q}) {
              const int64_t at = known_charts[t].vertexOf(name);
              if (at >= 0) {
                height = known[t].height_m[size_t(at)];
                found = true;
                break;
              }
            }
          }
          outside_height.push_back(height);
          if (!found) unknown.push_back(q), unknown_slot.push_back(slot);
        }
      }
    }
    {
      const std::vector<float> asked = generator.heights(level, unknown);
      for (size_t u = 0; u < asked.size(); ++u) outside_height[size_t(unknown_slot[u])] = asked[u];
    }

    tbb::parallel_for(size_t(0), count, [&](size_t k) {
      LatticePoint c[3];
      double w[3];
      corners(places[k], c, w);
      double h = 0.0;
      for (int m = 0; m < 3; ++m) {
        const int32_t at = corner_of[3 * k + size_t(m)];
        const double value =
            at >= 0 ? double(mesh.height_m[size_t(at)]) : double(outside_height[size_t(-1 - at)]);
        h += w[m] * value;
      }
      map.height_m[first + k] = h;
    });
  }
  return map;
}

}  // namespace planet
