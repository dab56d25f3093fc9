// The tile generator (tiles/tile_generator.h): seams bit-identical between neighbours (inside a
// base face, across a base-face edge, around a five-face corner, at two levels), the same bits
// whatever was made before and at any thread count, the planet's own values at its vertices,
// detail with zero mean over each planet triangle, positions exact to a millimetre on an
// Earth-sized planet, and bad ids refused.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <tbb/task_arena.h>
#include <catch2/catch.hpp>

#include <glm/geometric.hpp>

#include "geodesy/hash.h"
#include "geodesy/lattice_numbering.h"
#include "support/lattice_planet.h"
#include "support/tile_blocks.h"
#include "tiles/planet_triangle.h"
#include "tiles/tile_generator.h"

using test_support::middleTile;
using tiles::LatticePoint;
using tiles::TileGenerator;
using tiles::TileId;
using tiles::TileMesh;

namespace {

constexpr int kPlanetFrequency = 16;
constexpr int kTileEdge = 32;

// A rough synthetic planet: smooth continents and ranges plus vertex-to-vertex noise, part of it
// under the sea, and a lake.
struct SyntheticPlanet {
  std::vector<float> elevation, water;
  tiles::TilePlanet planet;

  explicit SyntheticPlanet(int f, double radius_m = 6371000.0) {
    const size_t n = 10 * size_t(f) * size_t(f) + 2;
    elevation = test_support::latticeField(f, [](const glm::dvec3& p, uint32_t v) {
      const double noise = geodesy::unitFromHash(geodesy::hash3(11, 22, v)) - 0.5;
      return 2000.0 * std::sin(3.0 * p.x) * std::cos(2.0 * p.y) +
             800.0 * std::sin(7.0 * p.z + p.x) + 600.0 * noise + 300.0;
    });
    water = elevation;
    for (size_t v = 0; v < n; v += 7) water[v] = std::max(water[v], elevation[v] + 20.0f);
    planet.frequency = f;
    planet.radius_m = radius_m;
    planet.sea_level_m = 0.0;
    planet.elevation_m = elevation;
    planet.water_level_m = water;
    planet.spectrum = {12345, 2.0, 2.0, 0.5};
  }
};

const SyntheticPlanet& smallPlanet() {
  static const SyntheticPlanet planet(kPlanetFrequency);
  return planet;
}

const TileGenerator& generatorOf(bool detail = true) {
  static const TileGenerator with(smallPlanet().planet, {kTileEdge, {}, {}});
  static const TileGenerator without(smallPlanet().planet, {kTileEdge, {false}, {}});
  return detail ? with : without;
}

bool sameBits(const TileMesh& a, const TileMesh& b) {
  auto same = [](const auto& x, const auto& y) {
    return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(x[0])) == 0;
  };
  return std::memcmp(&a.centre_m, &b.centre_m, sizeof(a.centre_m)) == 0 &&
         same(a.positions_m, b.positions_m) && same(a.normals, b.normals) &&
         same(a.height_m, b.height_m) && same(a.parent_height_m, b.parent_height_m) &&
         same(a.lattice_ids, b.lattice_ids);
}

// Every lattice point held by more than one of the tiles gets the same height, normal and
// parent height from each. Returns how many (tile, shared point) pairs were compared.
size_t checkSeams(const std::vector<TileId>& ids) {
  struct Seen {
    float height, parent;
    glm::vec3 normal;
    int tiles;
  };
  const TileGenerator& generator = generatorOf();
  std::map<uint64_t, Seen> seen;
  size_t compared = 0;
  for (const TileId& id : ids) {
    const TileMesh mesh = generator.generate(id);
    for (size_t v = 0; v < mesh.vertexCount(); ++v) {
      const auto [it, inserted] = seen.try_emplace(
          mesh.lattice_ids[v], Seen{mesh.height_m[v], mesh.parent_height_m[v], mesh.normals[v], 1});
      if (inserted) continue;
      ++compared;
      ++it->second.tiles;
      REQUIRE(std::memcmp(&it->second.height, &mesh.height_m[v], sizeof(float)) == 0);
      REQUIRE(std::memcmp(&it->second.parent, &mesh.parent_height_m[v], sizeof(float)) == 0);
      REQUIRE(std::memcmp(&it->second.normal, &mesh.normals[v], sizeof(glm::vec3)) == 0);
    }
  }
  return compared;
}

// The block of about 3 x 3 tiles around `centre` (tests/support/tile_blocks.h).
std::vector<TileId> blockAround(const TileId& centre) {
  return test_support::blockAround(generatorOf().layout(), centre);
}

}  // namespace

TEST_CASE("tiles: seams inside a base face are bit-identical at two levels", "[tiles]") {
  for (uint32_t level : {2u, 4u}) {
    const std::vector<TileId> block = blockAround(middleTile(5, level));
    CHECK(block.size() == 10);
    // 9 shared edges of T + 1 points each, corners shared more often.
    CHECK(checkSeams(block) >= 9 * kTileEdge);
  }
}

TEST_CASE("tiles: seams across a base-face edge are bit-identical at two levels", "[tiles]") {
  const tiles::TileLayout& layout = generatorOf().layout();
  for (uint32_t level : {2u, 4u}) {
    const uint64_t n = uint64_t(1) << level;
    // An up tile on base edge 1 of face 7, away from the corners, and the one across.
    const TileId edge_tile{7, level, tiles::slotIndex(n, {n / 2 - 1, n / 2, false})};
    const auto across = layout.neighbours(edge_tile)[1];
    REQUIRE(across.id.base != 7);
    std::vector<TileId> ids = blockAround(edge_tile);
    for (const TileId& id : blockAround(across.id)) ids.push_back(id);
    CHECK(checkSeams(ids) >= 2 * kTileEdge);
  }
}

TEST_CASE("tiles: the five tiles around an icosahedron corner agree at two levels", "[tiles]") {
  const tiles::TileLayout& layout = generatorOf().layout();
  for (int level : {2, 4}) {
    for (int corner : {0, 3, 11}) {
      const auto fan = layout.cornerTiles(corner, level);
      // 5 shared edges of T + 1 points, the corner point itself 4 more times.
      CHECK(checkSeams({fan.begin(), fan.end()}) == 5 * (kTileEdge + 1) - 5 + 4);
    }
  }
}

TEST_CASE("tiles: the same bits alone, after neighbours, and on 1, 2 and 4 threads", "[tiles]") {
  const TileGenerator& generator = generatorOf();
  const TileId id = middleTile(12, 3);
  const TileMesh alone = generator.generate(id);
  for (const auto& nb : generator.layout().neighbours(id)) (void)generator.generate(nb.id);
  CHECK(sameBits(alone, generator.generate(id)));
  for (int threads : {1, 2, 4}) {
    tbb::task_arena arena(threads);
    TileMesh mesh;
    arena.execute([&] { mesh = generator.generate(id); });
    CHECK(sameBits(alone, mesh));
  }
}

TEST_CASE("tiles: 8 threads asking at once get the bits of one (no thread count changes a tile)",
          "[tiles]") {
  const TileGenerator& generator = generatorOf();
  const tiles::TileLayout& layout = generator.layout();
  // Overlapping requests: a tile, its neighbours and its children, each asked by every thread.
  const TileId centre = middleTile(6, 2);
  std::vector<TileId> ids{centre};
  for (const auto& nb : layout.neighbours(centre)) ids.push_back(nb.id);
  for (const TileId& child : layout.children(centre)) ids.push_back(child);
  std::vector<TileMesh> serial;
  for (const TileId& id : ids) serial.push_back(generator.generate(id));
  constexpr int kThreads = 8;
  std::vector<std::vector<TileMesh>> made(kThreads);
  std::vector<std::thread> threads;
  for (int k = 0; k < kThreads; ++k) {
    threads.emplace_back([&, k] {
      for (size_t r = 0; r < ids.size(); ++r) {
        made[k].push_back(generator.generate(ids[(r + size_t(k)) % ids.size()]));
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int k = 0; k < kThreads; ++k) {
    for (size_t r = 0; r < ids.size(); ++r) {
      CHECK(sameBits(made[k][r], serial[(r + size_t(k)) % ids.size()]));
    }
  }
}

TEST_CASE("tiles: the parent height is the parent tile's surface at each vertex", "[tiles]") {
  const TileGenerator& generator = generatorOf();
  const tiles::TileLayout& layout = generator.layout();
  for (uint32_t level : {1u, 3u}) {
    const TileId id = middleTile(10, level);
    const TileMesh parent = generator.generate(layout.parent(id));
    const TileMesh child = generator.generate(id);
    std::map<uint64_t, float> parent_height;
    for (size_t v = 0; v < parent.vertexCount(); ++v) {
      parent_height[parent.lattice_ids[v]] = parent.height_m[v];
    }
    // Points of the parent level carry its height; the others the mean of the two parent
    // points on either side along the parent's edge through them.
    const uint32_t t = uint32_t(kTileEdge);
    auto index = [&](uint32_t u, uint32_t v) {
      return size_t(v) * (t + 1) - size_t(v) * (v ? v - 1 : 0) / 2 + u;
    };
    size_t at_parent_points = 0;
    for (uint32_t v = 0; v <= t; ++v) {
      for (uint32_t u = 0; u + v <= t; ++u) {
        const size_t k = index(u, v);
        const auto it = parent_height.find(child.lattice_ids[k]);
        if (u % 2 == 0 && v % 2 == 0) {
          REQUIRE(it != parent_height.end());
          REQUIRE(child.parent_height_m[k] == it->second);
          ++at_parent_points;
        } else {
          REQUIRE(it == parent_height.end());
          // Along u, along v, or the diagonal (u + 1, v - 1) -- (u - 1, v + 1) in the tile.
          const int du = u % 2 == 1 ? 1 : 0, dv = v % 2 == 1 ? (u % 2 == 1 ? -1 : 1) : 0;
          const size_t a = index(u + du, v + dv), b = index(u - du, v - dv);
          REQUIRE(child.parent_height_m[k] == float(0.5 * (double(child.parent_height_m[a]) +
                                                           double(child.parent_height_m[b]))));
        }
      }
    }
    CHECK(at_parent_points == size_t(t / 2 + 1) * (t / 2 + 2) / 2);
  }
}

TEST_CASE("tiles: edge lists run along the tile's edges, the neighbour's the other way",
          "[tiles]") {
  const TileGenerator& generator = generatorOf();
  const tiles::TileLayout& layout = generator.layout();
  for (const TileId& id : {middleTile(3, 2), TileId{7, 2, 8}, layout.cornerTiles(4, 2)[0]}) {
    const TileMesh mesh = generator.generate(id);
    const auto around = layout.neighbours(id);
    for (int k = 0; k < 3; ++k) {
      const TileMesh other = generator.generate(around[k].id);
      const auto& mine = mesh.topology->edges[k];
      const auto& theirs = other.topology->edges[around[k].edge];
      REQUIRE(mine.size() == size_t(kTileEdge) + 1);
      for (size_t s = 0; s < mine.size(); ++s) {
        REQUIRE(mesh.lattice_ids[mine[s]] == other.lattice_ids[theirs[mine.size() - 1 - s]]);
      }
    }
  }
}

TEST_CASE("tiles: at the planet's vertices a tile has the planet's elevation", "[tiles]") {
  const SyntheticPlanet& planet = smallPlanet();
  const geodesy::LatticeNumbering numbering(kPlanetFrequency);
  // T = 32: every level is finer than the planet (F = 32, 64, ...); T = 8: level 0 is coarser
  // (F = 8, a subset of the planet's vertices), level 1 is the planet's own lattice.
  const TileGenerator coarse(planet.planet, {8, {}, {}});
  for (const TileGenerator* generator : {&generatorOf(), &coarse}) {
    const tiles::TileLayout& layout = generator->layout();
    const uint32_t t = uint32_t(layout.tileEdge());
    for (uint32_t level : {0u, 1u, 3u}) {
      const TileId id = middleTile(9, level);
      const TileMesh mesh = generator->generate(id);
      const uint64_t frequency = layout.levelFrequency(int(level));
      size_t checked = 0;
      for (uint32_t v = 0; v <= t; ++v) {
        for (uint32_t u = 0; u + v <= t; ++u) {
          const LatticePoint p = layout.vertexPoint(id, u, v);
          // The point's coordinates at the planet's frequency, when it is a planet vertex.
          const uint64_t i = p.i * uint64_t(kPlanetFrequency), j = p.j * uint64_t(kPlanetFrequency);
          if (i % frequency != 0 || j % frequency != 0) continue;
          const uint32_t vertex =
              numbering.vertex(p.base, uint32_t(i / frequency), uint32_t(j / frequency));
          const size_t k = size_t(v) * (t + 1) - size_t(v) * (v ? v - 1 : 0) / 2 + u;
          REQUIRE(mesh.height_m[k] == planet.elevation[vertex]);
          ++checked;
        }
      }
      // Every point when the level is at most as fine as the planet.
      if (frequency <= uint64_t(kPlanetFrequency)) CHECK(checked == layout.verticesPerTile());
      CHECK(checked >= 4);
    }
  }
}

TEST_CASE("tiles: heights() gives the values generate() gives, in any order", "[tiles]") {
  const TileGenerator& generator = generatorOf();
  const tiles::TileLayout& layout = generator.layout();
  for (uint32_t level : {1u, 3u}) {
    const TileId id = middleTile(4, level);
    const TileMesh mesh = generator.generate(id);
    std::vector<LatticePoint> points;
    for (uint32_t v = 0; v <= uint32_t(kTileEdge); ++v) {
      for (uint32_t u = 0; u + v <= uint32_t(kTileEdge); ++u)
        points.push_back(layout.vertexPoint(id, u, v));
    }
    const std::vector<float> heights = generator.heights(int(level), points);
    REQUIRE(std::memcmp(heights.data(), mesh.height_m.data(), heights.size() * sizeof(float)) == 0);
    // In another order, the noise's eight lanes hold other company: the same bits.
    std::reverse(points.begin(), points.end());
    std::vector<float> reversed = generator.heights(int(level), points);
    std::reverse(reversed.begin(), reversed.end());
    REQUIRE(std::memcmp(reversed.data(), mesh.height_m.data(), reversed.size() * sizeof(float)) ==
            0);
    // One point alone.
    const std::vector<LatticePoint> one{points[points.size() / 3]};
    CHECK(generator.heights(int(level), one)[0] ==
          mesh.height_m[points.size() - 1 - points.size() / 3]);
  }
}

TEST_CASE("tiles: detail is zero-mean over each planet triangle, within 2% of the relief",
          "[tiles]") {
  const TileGenerator& with = generatorOf(true);
  const TileGenerator& without = generatorOf(false);
  const SyntheticPlanet& planet = smallPlanet();
  const geodesy::LatticeNumbering numbering(kPlanetFrequency);
  for (int level : {2, 4}) {
    const uint64_t frequency = with.layout().levelFrequency(level);
    const uint64_t m = frequency / kPlanetFrequency;
    double worst = 0.0, detail_rms = 0.0, relief_sum = 0.0;
    int triangles = 0;
    for (uint32_t base : {2u, 8u, 15u}) {
      for (uint32_t pj = 0; pj < uint32_t(kPlanetFrequency); pj += 3) {
        for (uint32_t pi = 0; pi + pj < uint32_t(kPlanetFrequency); pi += 2) {
          // The level's lattice points over the up planet triangle (pi, pj), all of them.
          const tiles::TriangleSamples samples =
              tiles::planetTriangleSamples(with.layout(), level, base, pi, pj, uint32_t(m));
          const std::vector<float> detailed = with.heights(level, samples.points);
          const std::vector<float> smooth = without.heights(level, samples.points);
          const tiles::TriangleMoments moments =
              tiles::differenceMoments(samples, detailed, smooth);
          const double relief = tiles::localRelief(numbering, planet.elevation, base, pi, pj);
          worst = std::max(worst, std::abs(moments.mean) / relief);
          detail_rms += moments.rms;
          relief_sum += relief;
          ++triangles;
        }
      }
    }
    INFO("level " << level << ": " << triangles << " triangles, worst |mean| / relief " << worst
                  << ", mean detail rms / relief " << detail_rms / relief_sum);
    CHECK(triangles >= 60);
    CHECK(worst <= 0.02);
    // The detail is there to be averaged: its rms is a sizeable share of the relief.
    CHECK(detail_rms / relief_sum > 0.01);
  }
}

TEST_CASE("tiles: float positions about a double centre are within 1 mm on Earth", "[tiles]") {
  static const SyntheticPlanet earth(kPlanetFrequency, 6371000.0);
  const TileGenerator generator(earth.planet, {256, {}, {}});
  const tiles::TileLayout& layout = generator.layout();
  // A T = 256 tile of about 30 m spacing (6.9 km across), the one holding the point on the
  // equator at longitude 0 (+X).
  const int level = layout.levelForSpacing(30.0, 6371000.0);
  const TileId id = generator.tileAt({1.0, 0.0, 0.0}, level);
  const TileMesh mesh = generator.generate(id);
  double worst = 0.0;
  for (uint32_t v = 0; v <= 256; ++v) {
    for (uint32_t u = 0; u + v <= 256; ++u) {
      const size_t k = size_t(v) * 257 - size_t(v) * (v ? v - 1 : 0) / 2 + u;
      const glm::dvec3 exact =
          generator.surfacePosition(level, layout.vertexPoint(id, u, v), mesh.height_m[k]);
      const glm::dvec3 d = mesh.position(k) - exact;
      worst = std::max(worst, std::sqrt(d.x * d.x + d.y * d.y + d.z * d.z));
    }
  }
  INFO("level " << level << ", worst " << worst * 1000.0 << " mm");
  CHECK(std::abs(glm::length(mesh.centre_m) / 6371000.0 - 1.0) < 1e-3);
  CHECK(std::abs(mesh.centre_m.y) < 10000.0);  // on the equator
  CHECK(worst < 0.001);
}

TEST_CASE("tiles: ids that name no tile are refused with a clear error", "[tiles]") {
  const TileGenerator& generator = generatorOf();
  const int deepest = generator.layout().deepestLevel();
  try {
    (void)generator.generate({0, uint32_t(deepest + 1), 0});
    FAIL("no error");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("past the deepest level " + std::to_string(deepest)) !=
          std::string::npos);
  }
  CHECK_THROWS_AS(generator.generate({20, 0, 0}), std::invalid_argument);
  CHECK_THROWS_AS(generator.generate({0, 1, 4}), std::invalid_argument);
  const std::vector<LatticePoint> points{{0, 0, 0}};
  CHECK_THROWS_AS(generator.heights(-1, points), std::invalid_argument);
  CHECK_THROWS_AS(generator.heights(deepest + 1, points), std::invalid_argument);
  CHECK_THROWS_AS(generator.tileAt({1.0, 0.0, 0.0}, deepest + 1), std::invalid_argument);
}

TEST_CASE("tiles: a planet whose arrays do not fit its frequency is refused", "[tiles]") {
  tiles::TilePlanet bad = smallPlanet().planet;
  bad.frequency = 17;
  try {
    const TileGenerator generator(bad, {});
    FAIL("no error");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("a planet of frequency 17 has 2892 vertices") !=
          std::string::npos);
  }
}

namespace {

std::string refusal(const std::function<void()>& call) {
  try {
    call();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace

// What a corrupt planet file or a careless caller can hand the generator: a NaN or infinite
// elevation, water level or sea level (each would spread through every tile that samples it),
// detail parameters out of range, and a direction that names no point (zero, NaN: turned into
// a lattice index, undefined behaviour).
TEST_CASE("tiles: values that are not finite and directions that name no point are refused",
          "[tiles]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const SyntheticPlanet& good = smallPlanet();
  SECTION("the planet's arrays and sea level") {
    std::vector<float> elevation = good.elevation, water = good.water;
    elevation[17] = float(nan);
    tiles::TilePlanet bad = good.planet;
    bad.elevation_m = elevation;
    CHECK(refusal([&] {
            (void)TileGenerator(bad, {kTileEdge, {}, {}});
          }) == "planet elevation at vertex 17 is nan; allowed: finite numbers (metres)");
    bad = good.planet;
    water[5] = -inf;
    bad.water_level_m = water;
    CHECK(refusal([&] {
            (void)TileGenerator(bad, {kTileEdge, {}, {}});
          }) == "planet water level at vertex 5 is -inf; allowed: finite numbers (metres)");
    bad = good.planet;
    bad.sea_level_m = nan;
    CHECK(refusal([&] {
            (void)TileGenerator(bad, {kTileEdge, {}, {}});
          }) == "planet sea level nan m is not finite");
    bad = good.planet;
    bad.radius_m = 0.0;
    CHECK(refusal([&] {
            (void)TileGenerator(bad, {kTileEdge, {}, {}});
          }) == "planet radius 0 m is not a positive number");
  }
  SECTION("detail parameters") {
    tiles::TileParams params{kTileEdge, {}, {}};
    params.detail.relief_roughness = -1.0;
    CHECK(refusal([&] { (void)TileGenerator(good.planet, params); }) ==
          "detail relief_roughness -1 is not a finite number of at least 0");
    params = {kTileEdge, {}, {}};
    params.detail.lake_bed = 1.5;
    CHECK(refusal([&] { (void)TileGenerator(good.planet, params); }) ==
          "detail lake_bed 1.5 is out of range; allowed: 0 to 1");
    params = {kTileEdge, {}, {}};
    params.detail.valley_floor = nan;
    CHECK(refusal([&] { (void)TileGenerator(good.planet, params); }) ==
          "detail valley_floor nan is out of range; allowed: 0 to 1");
    params = {kTileEdge, {}, {}};
    params.detail.hurst = double(inf);
    CHECK(refusal([&] { (void)TileGenerator(good.planet, params); }).find("detail hurst inf") == 0);
    params = {1, {}, {}};
    CHECK(refusal([&] {
            (void)TileGenerator(good.planet, params);
          }).find("tile edge 1 is out of range") == 0);
  }
  SECTION("directions") {
    const TileGenerator& generator = generatorOf();
    CHECK(generator.tileAt({0.0, 0.0, 2.0}, 1) == generator.tileAt({0.0, 0.0, 1.0}, 1));
    for (const glm::dvec3& direction :
         {glm::dvec3(0.0), glm::dvec3(nan, 0.0, 1.0), glm::dvec3(0.0, double(inf), 0.0)}) {
      CHECK(refusal([&] { (void)generator.tileAt(direction, 1); }).find("is zero or not finite") !=
            std::string::npos);
    }
  }
}
