// Tile addressing (tiles/tile_layout.h, tiles/tile_id.h): the tile edge derived from the planet's
// frequency, parent/child round trips, neighbours across tile and base-face edges and around the
// five-face corners, lattice ids, the deepest level and the errors for ids that do not exist.

#include <algorithm>
#include <bit>
#include <functional>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "geodesy/hash.h"
#include "tiles/tile_layout.h"

using tiles::LatticePoint;
using tiles::TileId;
using tiles::TileLayout;

namespace {

std::vector<TileId> allTiles(int level) {
  std::vector<TileId> out;
  const uint64_t n = uint64_t(1) << level;
  for (uint32_t base = 0; base < 20; ++base) {
    for (uint64_t index = 0; index < n * n; ++index) out.push_back({base, uint32_t(level), index});
  }
  return out;
}

// The canonical lattice points along edge k of a tile, from its corner k to corner k + 1.
std::vector<uint64_t> edgeIds(const TileLayout& layout, const TileId& id, int k) {
  const uint32_t t = uint32_t(layout.tileEdge());
  std::vector<uint64_t> out;
  for (uint32_t s = 0; s <= t; ++s) {
    const uint32_t u = k == 0 ? s : k == 1 ? t - s : 0;
    const uint32_t v = k == 0 ? 0 : k == 1 ? s : t - s;
    out.push_back(layout.latticeId(int(id.level), layout.vertexPoint(id, u, v)));
  }
  return out;
}

std::string thrownBy(const std::function<void()>& call) {
  try {
    call();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("tile layout: T makes every planet vertex a lattice point of the planet level",
          "[tiles]") {
  CHECK(TileLayout(512, 256).tileEdge() == 256);
  CHECK(TileLayout(512, 256).planetLevel() == 1);
  CHECK(TileLayout(128, 256).planetLevel() == 0);
  CHECK(TileLayout(384, 256).tileEdge() == 192);   // 3 * 2^6
  CHECK(TileLayout(1000, 256).tileEdge() == 250);  // 125 * 2
  CHECK(TileLayout(1023, 256).tileEdge() == 2046);
  CHECK(TileLayout(512, 256).deepestLevel() == 20);  // 256 * 2^20 = 2^28 < 2^29
  for (int f = 1; f <= 400; ++f) {
    for (int request : {2, 16, 100, 256}) {
      const TileLayout layout(f, request);
      const uint64_t t = uint64_t(layout.tileEdge());
      REQUIRE(t % 2 == 0);
      REQUIRE((t <= uint64_t(request) || t == 2 * uint64_t(f >> std::countr_zero(unsigned(f)))));
      const uint64_t at = layout.levelFrequency(layout.planetLevel());
      REQUIRE(at % uint64_t(f) == 0);
      if (layout.planetLevel() > 0) {
        const uint64_t below = layout.levelFrequency(layout.planetLevel() - 1);
        REQUIRE(below < uint64_t(f));
        REQUIRE(uint64_t(f) % below == 0);
      }
      REQUIRE(layout.levelFrequency(layout.deepestLevel()) <= tiles::kMaxLatticeFrequency);
      REQUIRE(2 * layout.levelFrequency(layout.deepestLevel()) > tiles::kMaxLatticeFrequency);
    }
  }
}

TEST_CASE("tile layout: bad planets and tile edges are refused with the allowed range", "[tiles]") {
  CHECK(thrownBy([] { TileLayout(0, 256); }).find("allowed: 1 to") != std::string::npos);
  CHECK(thrownBy([] { TileLayout(512, 1); }).find("tile edge 1 is out of range; allowed: 2 to") !=
        std::string::npos);
  CHECK(thrownBy([] { TileLayout(512, 100000); }).find("tile edge 100000") != std::string::npos);
}

TEST_CASE("tile id: slots and keys round trip", "[tiles]") {
  for (int level = 0; level <= 4; ++level) {
    for (const TileId& id : allTiles(level)) {
      const uint64_t n = uint64_t(1) << level;
      REQUIRE(tiles::slotIndex(n, tiles::slotOf(n, id.index)) == id.index);
      REQUIRE(tiles::unpackTileId(tiles::packTileId(id)) == id);
    }
  }
  geodesy::HashStream rng(1, 2, 3);
  for (int k = 0; k < 1000; ++k) {
    const uint32_t level = uint32_t(rng.next() % 21);
    const uint64_t n = uint64_t(1) << level;
    const TileId id{uint32_t(rng.next() % 20), level, rng.next() % (n * n)};
    REQUIRE(tiles::slotIndex(n, tiles::slotOf(n, id.index)) == id.index);
    REQUIRE(tiles::unpackTileId(tiles::packTileId(id)) == id);
  }
}

TEST_CASE("tile layout: children tile their parent and name it back", "[tiles]") {
  const TileLayout layout(16, 8);
  for (int level = 0; level <= 4; ++level) {
    std::set<uint64_t> children;
    for (const TileId& id : allTiles(level)) {
      const auto kids = layout.children(id);
      const auto corners = layout.tileCorners(id);
      for (int k = 0; k < 4; ++k) {
        REQUIRE(layout.parent(kids[k]) == id);
        children.insert(tiles::packTileId(kids[k]));
      }
      // Corner child k shares the parent's corner k (at twice the frequency).
      for (int k = 0; k < 3; ++k) {
        const auto kc = layout.tileCorners(kids[k]);
        REQUIRE(kc[k] == LatticePoint{id.base, 2 * corners[k].i, 2 * corners[k].j});
      }
    }
    CHECK(children.size() == 20 * (uint64_t(1) << (2 * level + 2)));
  }
  // Deep down too.
  geodesy::HashStream rng(4, 5, 6);
  for (int k = 0; k < 1000; ++k) {
    const uint32_t level = 1 + uint32_t(rng.next() % uint64_t(layout.deepestLevel()));
    const uint64_t n = uint64_t(1) << level;
    const TileId id{uint32_t(rng.next() % 20), level, rng.next() % (n * n)};
    const auto kids = layout.children(layout.parent(id));
    REQUIRE(std::count(kids.begin(), kids.end(), id) == 1);
  }
}

TEST_CASE("tile layout: neighbours are mutual and share their edge's lattice points", "[tiles]") {
  const TileLayout layout(8, 4);
  for (int level = 0; level <= 3; ++level) {
    for (const TileId& id : allTiles(level)) {
      const auto around = layout.neighbours(id);
      for (int k = 0; k < 3; ++k) {
        const tiles::TileNeighbour& nb = around[k];
        REQUIRE(nb.id.level == id.level);
        const auto back = layout.neighbours(nb.id)[nb.edge];
        REQUIRE(back.id == id);
        REQUIRE(back.edge == k);
        std::vector<uint64_t> mine = edgeIds(layout, id, k);
        const std::vector<uint64_t> theirs = edgeIds(layout, nb.id, nb.edge);
        std::reverse(mine.begin(), mine.end());
        REQUIRE(mine == theirs);
      }
    }
  }
}

TEST_CASE("tile layout: five tiles meet at each icosahedron corner", "[tiles]") {
  const TileLayout layout(8, 4);
  for (int level : {0, 2, 5}) {
    for (int c = 0; c < 12; ++c) {
      const auto fan = layout.cornerTiles(c, level);
      std::set<uint64_t> corner_ids;
      for (int m = 0; m < 5; ++m) {
        const auto corners = layout.tileCorners(fan[m]);
        int at_corner = 0;
        for (const LatticePoint& p : corners) {
          if (tiles::cornerOf(layout.levelFrequency(level), p) == c) {
            ++at_corner;
            corner_ids.insert(layout.latticeId(level, p));
          }
        }
        REQUIRE(at_corner == 1);
        // Consecutive tiles of the fan are edge neighbours.
        const auto around = layout.neighbours(fan[m]);
        REQUIRE(std::any_of(around.begin(), around.end(), [&](const tiles::TileNeighbour& nb) {
          return nb.id == fan[(m + 1) % 5];
        }));
      }
      REQUIRE(corner_ids.size() == 1);
    }
  }
}

TEST_CASE("tile layout: lattice ids name each point once, at every level that holds it",
          "[tiles]") {
  const TileLayout layout(4, 4);
  for (int level = 0; level <= 2; ++level) {
    std::set<uint64_t> ids;
    const uint32_t t = uint32_t(layout.tileEdge());
    for (const TileId& id : allTiles(level)) {
      for (uint32_t v = 0; v <= t; ++v) {
        for (uint32_t u = 0; u + v <= t; ++u) {
          const LatticePoint p = layout.vertexPoint(id, u, v);
          const uint64_t lid = layout.latticeId(level, p);
          ids.insert(lid);
          // The same point one level finer has the same id; the id gives the point back.
          REQUIRE(layout.latticeId(level + 1, {p.base, 2 * p.i, 2 * p.j}) == lid);
          const LatticePoint back = layout.pointOfLatticeId(lid);
          const int shift = layout.deepestLevel() - level;
          const LatticePoint canonical = tiles::canonicalPoint(layout.levelFrequency(level), p);
          REQUIRE(back == LatticePoint{canonical.base, canonical.i << shift, canonical.j << shift});
        }
      }
    }
    const uint64_t f = layout.levelFrequency(level);
    CHECK(ids.size() == 10 * f * f + 2);
  }
}

TEST_CASE("tile layout: ids past the deepest level or out of range are refused", "[tiles]") {
  const TileLayout layout(512, 256);
  CHECK_NOTHROW(layout.check({19, 20, (uint64_t(1) << 40) - 1}));
  CHECK(thrownBy([&] {
          layout.check({0, 21, 0});
        }).find("level 21 is past the deepest level 20") != std::string::npos);
  CHECK(thrownBy([&] {
          layout.check({20, 0, 0});
        }).find("base face 20 does not exist") != std::string::npos);
  CHECK(thrownBy([&] {
          layout.check({3, 2, 16});
        })
            .find("index 16 does not exist at level 2; "
                  "allowed: 0 to 15") != std::string::npos);
  CHECK(thrownBy([&] { layout.parent({0, 0, 0}); }).find("no parent") != std::string::npos);
  CHECK(thrownBy([&] {
          layout.children({0, 20, 0});
        }).find("deepest level 20: no children") != std::string::npos);
  CHECK(thrownBy([&] {
          layout.neighbours({0, 30, 0});
        }).find("past the deepest level") != std::string::npos);
  CHECK(thrownBy([&] { layout.cornerTiles(12, 0); }).find("corner 12") != std::string::npos);
}

// A spacing comes from a user or a file: zero, negative, NaN or infinite ones are refused by
// name (they used to fall through to the deepest level, or stop at an assertion).
TEST_CASE("tile layout: spacings and radii that are not positive numbers are refused", "[tiles]") {
  const TileLayout layout(512, 256);
  CHECK(layout.levelForSpacing(1e9, 6371000.0) == 0);
  CHECK(layout.levelForSpacing(1e-9, 6371000.0) == layout.deepestLevel());
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (const auto& [bad, shown] : std::vector<std::pair<double, std::string>>{
           {0.0, "0"}, {-30.0, "-30"}, {nan, "nan"}, {inf, "inf"}, {-inf, "-inf"}}) {
    const double spacing = bad;  // a name a lambda can capture (clang 14)
    INFO(shown);
    CHECK(thrownBy([&] { (void)layout.levelForSpacing(spacing, 6371000.0); }) ==
          "tile spacing " + shown + " m is not a positive number");
    CHECK(thrownBy([&] { (void)layout.levelForSpacing(30.0, spacing); }) ==
          "planet radius " + shown + " m is not a positive number");
  }
}
