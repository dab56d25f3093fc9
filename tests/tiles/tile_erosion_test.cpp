// Erosion at the tiles' own scales (TileParams::erosion): seams bit-identical in height, normal
// and masks (inside a base face, across a base-face edge, around five-face corners), the same
// bits in any request order, from a fresh generator and on 1, 2 and 4 threads, erosion that
// changes the ground, and tile edges that a hillshade cannot find in a block of 4 x 4 tiles.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <tbb/task_arena.h>
#include <catch2/catch.hpp>

#include <glm/geometric.hpp>

#include "export/tile_masks.h"
#include "geodesy/hash.h"
#include "support/lattice_planet.h"
#include "support/tile_blocks.h"
#include "tiles/detail/erosion_model.h"
#include "tiles/detail/erosion_window.h"
#include "tiles/detail/surface_model.h"
#include "tiles/detail/window_chart.h"
#include "tiles/tile_generator.h"

using test_support::middleTile;
using tiles::LatticePoint;
using tiles::TileGenerator;
using tiles::TileId;
using tiles::TileMesh;

namespace {

constexpr int kPlanetFrequency = 16;
constexpr int kTileEdge = 32;

// A rough synthetic planet (as the generator's own test): ranges, vertex-to-vertex noise, sea,
// lakes, rain that grows towards +x, and each vertex draining to its lowest neighbour.
struct SyntheticPlanet {
  std::vector<float> elevation, water, rain;
  std::vector<uint32_t> receiver;
  tiles::TilePlanet planet;

  explicit SyntheticPlanet(int f) {
    const size_t n = 10 * size_t(f) * size_t(f) + 2;
    std::vector<glm::dvec3> position(n);
    elevation = test_support::latticeField(f, [&](const glm::dvec3& p, uint32_t v) {
      position[v] = p;
      const double noise = geodesy::unitFromHash(geodesy::hash3(11, 22, v)) - 0.5;
      return 2000.0 * std::sin(3.0 * p.x) * std::cos(2.0 * p.y) +
             800.0 * std::sin(7.0 * p.z + p.x) + 600.0 * noise + 300.0;
    });
    rain = test_support::latticeField(
        f, [](const glm::dvec3& p, uint32_t) { return 1.0 + 0.8 * p.x; });
    water = elevation;
    for (size_t v = 0; v < n; v += 7) water[v] = std::max(water[v], elevation[v] + 20.0f);
    // Steepest descent to the nearest-lower vertex (the six lattice neighbours by distance).
    receiver.resize(n);
    for (size_t v = 0; v < n; ++v) {
      uint32_t best = uint32_t(v);
      for (size_t u = 0; u < n; ++u) {
        if (glm::distance(position[u], position[v]) > 1.6 * 1.1071 / f) continue;
        if (elevation[u] < elevation[best]) best = uint32_t(u);
      }
      receiver[v] = elevation[v] < 0.0f ? uint32_t(v) : best;
    }
    planet.frequency = f;
    planet.radius_m = 6371000.0;
    planet.sea_level_m = 0.0;
    planet.elevation_m = elevation;
    planet.water_level_m = water;
    planet.spectrum = {12345, 2.0, 2.0, 0.5};
    planet.rainfall = rain;
    planet.receiver = receiver;
  }
};

const SyntheticPlanet& smallPlanet() {
  static const SyntheticPlanet planet(kPlanetFrequency);
  return planet;
}

tiles::TileParams erodedParams() {
  tiles::TileParams params;
  params.tile_edge = kTileEdge;
  params.erosion.enabled = true;
  params.erosion.halo = 12;
  // Every level of this small planet (220 km to 7 km spacing) erodes: the test is of the
  // windows and their blend, not of the scale. Without the relief levels (reliefParams below
  // adds them).
  params.erosion.max_spacing_m = 1e9;
  params.erosion.relief = false;
  return params;
}

const TileGenerator& eroded() {
  static const TileGenerator generator(smallPlanet().planet, erodedParams());
  return generator;
}

const TileGenerator& plain() {
  static const TileGenerator generator(smallPlanet().planet, {kTileEdge, {}, {}});
  return generator;
}

template <typename T>
bool sameArray(const std::vector<T>& x, const std::vector<T>& y) {
  return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(T)) == 0;
}

bool sameBits(const TileMesh& a, const TileMesh& b) {
  return std::memcmp(&a.centre_m, &b.centre_m, sizeof(a.centre_m)) == 0 &&
         sameArray(a.positions_m, b.positions_m) && sameArray(a.normals, b.normals) &&
         sameArray(a.height_m, b.height_m) && sameArray(a.parent_height_m, b.parent_height_m) &&
         sameArray(a.lattice_ids, b.lattice_ids) && sameArray(a.masks.flow_m2, b.masks.flow_m2) &&
         sameArray(a.masks.wear_m, b.masks.wear_m) &&
         sameArray(a.masks.deposition_m, b.masks.deposition_m) &&
         sameArray(a.masks.water, b.masks.water);
}

// Every lattice point held by more than one tile gets the same height, parent height, normal,
// position (centre + offset, in double) and masks from each. Returns the comparisons made.
size_t checkSeams(const std::vector<TileId>& ids, const TileGenerator& generator = eroded()) {
  struct Seen {
    float height, parent, flow, wear, deposition, water;
    glm::vec3 normal;
    glm::dvec3 position;
    double offset;
  };
  std::map<uint64_t, Seen> seen;
  size_t compared = 0;
  for (const TileId& id : ids) {
    const TileMesh mesh = generator.generate(id);
    REQUIRE(mesh.masks.flow_m2.size() == mesh.vertexCount());
    for (size_t v = 0; v < mesh.vertexCount(); ++v) {
      const Seen here{mesh.height_m[v],
                      mesh.parent_height_m[v],
                      mesh.masks.flow_m2[v],
                      mesh.masks.wear_m[v],
                      mesh.masks.deposition_m[v],
                      mesh.masks.water[v],
                      mesh.normals[v],
                      mesh.centre_m + glm::dvec3(mesh.positions_m[v]),
                      glm::length(glm::dvec3(mesh.positions_m[v]))};
      const auto [it, inserted] = seen.try_emplace(mesh.lattice_ids[v], here);
      if (inserted) continue;
      ++compared;
      const Seen& first = it->second;
      REQUIRE(std::memcmp(&first.height, &here.height, sizeof(float)) == 0);
      REQUIRE(std::memcmp(&first.parent, &here.parent, sizeof(float)) == 0);
      REQUIRE(std::memcmp(&first.flow, &here.flow, sizeof(float)) == 0);
      REQUIRE(std::memcmp(&first.wear, &here.wear, sizeof(float)) == 0);
      REQUIRE(std::memcmp(&first.deposition, &here.deposition, sizeof(float)) == 0);
      REQUIRE(std::memcmp(&first.water, &here.water, sizeof(float)) == 0);
      REQUIRE(std::memcmp(&first.normal, &here.normal, sizeof(glm::vec3)) == 0);
      // Positions are a double centre plus a float offset per tile (the exact position follows
      // from the point and its height): equal up to the offsets' float rounding.
      REQUIRE(glm::distance(first.position, here.position) <= 1e-6 * here.offset + 1e-9);
    }
  }
  return compared;
}

// The block of about 3 x 3 tiles around `centre` (tests/support/tile_blocks.h).
std::vector<TileId> blockAround(const TileId& centre) {
  return test_support::blockAround(eroded().layout(), centre);
}

}  // namespace

TEST_CASE("tile erosion: it changes the ground: metres worn and laid down", "[tiles][erosion]") {
  const TileId id = middleTile(5, 3);
  const TileMesh a = eroded().generate(id);
  const TileMesh b = plain().generate(id);
  REQUIRE(a.vertexCount() == b.vertexCount());
  double largest = 0.0, worn = 0.0, laid = 0.0;
  for (size_t v = 0; v < a.vertexCount(); ++v) {
    largest = std::max(largest, std::abs(double(a.height_m[v]) - double(b.height_m[v])));
    worn = std::max(worn, double(a.masks.wear_m[v]));
    laid = std::max(laid, double(a.masks.deposition_m[v]));
  }
  CHECK(largest > 1.0);
  CHECK(worn > 0.5);
  CHECK(laid > 0.0);
}

TEST_CASE("tile erosion: seams inside a base face are bit-identical", "[tiles][erosion]") {
  for (uint32_t level : {2u, 3u}) {
    const std::vector<TileId> block = blockAround(middleTile(5, level));
    CHECK(block.size() == 10);
    CHECK(checkSeams(block) >= 9 * kTileEdge);
  }
}

TEST_CASE("tile erosion: the masks' 8-bit PNG pixels agree where tiles share a point",
          "[tiles][erosion]") {
  // The masks as planetgen tiles writes them (export/tile_masks.h): pixel (u, v) is the vertex
  // u steps along the tile's first edge and v along its second.
  const std::vector<TileId> block = blockAround(middleTile(5, 3));
  const int t = eroded().layout().tileEdge();
  planet_export::TileMasksEncoding encoding;
  encoding.cell_m2 = 1e6;  // about the level's cells here: flow bytes spread over 0..255
  std::map<uint64_t, std::array<uint8_t, 4>> seen;
  size_t compared = 0, nonzero = 0;
  for (const TileId& id : block) {
    const TileMesh mesh = eroded().generate(id);
    planet_export::TileMasksView view;
    view.tile_edge = t;
    view.flow_m2 = mesh.masks.flow_m2, view.wear_m = mesh.masks.wear_m;
    view.deposition_m = mesh.masks.deposition_m, view.water = mesh.masks.water;
    const std::vector<uint8_t> pixels = planet_export::tileMaskPixels(view, encoding);
    REQUIRE(pixels.size() == size_t(t + 1) * size_t(t + 1) * 4);
    const std::string png = planet_export::encodeTileMasksPng(view, encoding);
    CHECK(png.compare(1, 3, "PNG") == 0);
    size_t k = 0;
    for (int v = 0; v <= t; ++v) {
      for (int u = 0; u + v <= t; ++u, ++k) {
        const uint8_t* p = &pixels[(size_t(v) * size_t(t + 1) + size_t(u)) * 4];
        const std::array<uint8_t, 4> here{p[0], p[1], p[2], p[3]};
        if (here[1] != 0 || here[2] != 0) ++nonzero;
        const auto [it, inserted] = seen.try_emplace(mesh.lattice_ids[k], here);
        if (inserted) continue;
        ++compared;
        REQUIRE(it->second == here);
      }
    }
  }
  CHECK(compared >= 9 * size_t(t));
  CHECK(nonzero > 0);
}

TEST_CASE("tile erosion: seams across a base-face edge are bit-identical", "[tiles][erosion]") {
  const tiles::TileLayout& layout = eroded().layout();
  const uint32_t level = 3;
  const uint64_t n = uint64_t(1) << level;
  const TileId edge_tile{7, level, tiles::slotIndex(n, {n / 2 - 1, n / 2, false})};
  const auto across = layout.neighbours(edge_tile)[1];
  REQUIRE(across.id.base != 7);
  std::vector<TileId> ids = blockAround(edge_tile);
  for (const TileId& id : blockAround(across.id)) ids.push_back(id);
  CHECK(checkSeams(ids) >= 2 * kTileEdge);
}

TEST_CASE("tile erosion: the five tiles around an icosahedron corner agree", "[tiles][erosion]") {
  const tiles::TileLayout& layout = eroded().layout();
  for (int level : {2, 3}) {
    for (int corner : {0, 11}) {
      const auto fan = layout.cornerTiles(corner, level);
      CHECK(checkSeams({fan.begin(), fan.end()}) == 5 * (kTileEdge + 1) - 5 + 4);
    }
  }
}

TEST_CASE("tile erosion: the same bits in any order, from a fresh generator, on 1, 2, 4 threads",
          "[tiles][erosion]") {
  const TileId id = middleTile(12, 2);
  const TileMesh first = eroded().generate(id);
  const tiles::TileLayout& layout = eroded().layout();
  for (int threads : {1, 2, 4}) {
    // A generator with nothing cached, its neighbours asked first, then the tile.
    const TileGenerator fresh(smallPlanet().planet, erodedParams());
    tbb::task_arena arena(threads);
    TileMesh mesh;
    arena.execute([&] {
      for (const auto& nb : layout.neighbours(id)) (void)fresh.generate(nb.id);
      mesh = fresh.generate(id);
    });
    CHECK(sameBits(first, mesh));
  }
  // With a cache too small to keep anything.
  tiles::TileParams tiny = erodedParams();
  tiny.erosion.cache_bytes = 1;
  const TileGenerator uncached(smallPlanet().planet, tiny);
  CHECK(sameBits(first, uncached.generate(id)));
}

TEST_CASE("tile erosion: a window is the disk of its bump plus the halo, bad sizes refused",
          "[tiles][erosion]") {
  using tiles::detail::ErosionModel;
  tiles::TileParams params = erodedParams();  // T = 32
  params.erosion.window_subdivision = 1;      // cores of C = 16 steps
  params.erosion.bump_fraction = 0.62;
  const tiles::detail::SurfaceModel surface(smallPlanet().planet, params);
  {
    // R = 0.62 C = 9.92 (one step inside the inradius would be 12.86); the disk of radius
    // R + 1 + halo = 22.92 (squared 525.3), bounded in chart offsets by 22.92 / (sqrt(3)/2) =
    // 26.47, so 27 steps.
    const ErosionModel model(surface, smallPlanet().planet, params.erosion);
    CHECK(model.bumpRadius() == Approx(9.92).margin(1e-12));
    CHECK(model.windowDiskRadius() == Approx(22.92).margin(1e-12));
    CHECK(model.windowRadius() == 27);
    // Squared lengths x^2 + x y + y^2: 484 and 507 in, 529 and 588 out; (-13, 26) and
    // (13, 13) lie 26 chart steps out along y and along x + y.
    CHECK(model.inWindow(22, 0));
    CHECK(model.inWindow(-13, 26));
    CHECK(model.inWindow(13, 13));
    CHECK_FALSE(model.inWindow(23, 0));
    CHECK_FALSE(model.inWindow(-14, 28));
    CHECK_FALSE(model.inWindow(0, -23));
    CHECK(model.inWindow(0, -23, 1.0));  // the parents' disk, one step more: 529 < 573.6
  }
  {
    // 0.85 C = 13.6 is more than one step inside the inradius: 12.86 instead; the disk
    // 25.86 (over sqrt(3)/2: 29.86, so 30).
    params.erosion.bump_fraction = 0.85;
    const ErosionModel model(surface, smallPlanet().planet, params.erosion);
    CHECK(model.bumpRadius() == Approx(std::sqrt(3.0) / 2.0 * 16.0 - 1.0).margin(1e-12));
    CHECK(model.windowRadius() == 30);
  }
  {
    // The bump at the core's inradius less a step, 12.86, and a halo of 20: the disk 33.86
    // (over sqrt(3)/2: 39.1, so 40).
    params.erosion.bump_fraction = std::sqrt(3.0) / 2.0;
    params.erosion.halo = 20;
    const ErosionModel model(surface, smallPlanet().planet, params.erosion);
    CHECK(model.bumpRadius() == Approx(std::sqrt(3.0) / 2.0 * 16.0 - 1.0).margin(1e-12));
    CHECK(model.windowDiskRadius() == Approx(std::sqrt(3.0) / 2.0 * 16.0 + 20.0).margin(1e-12));
    CHECK(model.windowRadius() == 40);
  }
  // A refused value: the message names the key, the value and what is allowed.
  auto refused = [&](const std::string& key, double bad) {
    try {
      const ErosionModel model(surface, smallPlanet().planet, params.erosion);
      FAIL(key << " " << bad << " was taken");
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      CHECK(what.find(key + " " + std::to_string(bad)) != std::string::npos);
      CHECK(what.find("allowed") != std::string::npos);
    }
  };
  // Under C / sqrt(3) some point would lie in no window's bump; over the inradius the bump
  // would reach beyond the core.
  for (const double bad : {0.55, 0.6, 0.9}) {
    params.erosion.bump_fraction = bad;
    refused("bump_fraction", bad);
  }
  params.erosion.bump_fraction = 0.62;
  params.erosion.halo = 3;
  CHECK_THROWS_AS(ErosionModel(surface, smallPlanet().planet, params.erosion),
                  std::invalid_argument);
  // The relief's bound: 0 (none) or more, finite.
  params.erosion.halo = 12;
  params.erosion.relief = true;
  params.erosion.relief_max_spacing_m = 1e9;
  for (const double bad : {-0.5, std::numeric_limits<double>::infinity()}) {
    params.erosion.relief_amplitude = bad;
    refused("relief_amplitude", bad);
  }
  params.erosion.relief_amplitude = 0.0;
  CHECK_NOTHROW(ErosionModel(surface, smallPlanet().planet, params.erosion));
  // The relief's low pass: over 0, at most a planet edge.
  for (const double bad : {0.0, -0.125, 1.5, std::numeric_limits<double>::quiet_NaN()}) {
    params.erosion.relief_low_pass_edges = bad;
    refused("relief_low_pass_edges", bad);
  }
  params.erosion.relief_low_pass_edges = 1.0;
  CHECK_NOTHROW(ErosionModel(surface, smallPlanet().planet, params.erosion));
  // The relief's reach: 1 to the halo (12 here), so no point of a bump hangs from the rim.
  for (const int bad : {0, -1, 13, 40}) {
    params.erosion.relief_steady_state.reach_steps = bad;
    try {
      const ErosionModel model(surface, smallPlanet().planet, params.erosion);
      FAIL("reach_steps " << bad << " was taken");
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      CHECK(what.find("reach_steps " + std::to_string(bad) + " with a halo of 12") !=
            std::string::npos);
      CHECK(what.find("allowed: 1 to the halo") != std::string::npos);
    }
  }
  for (const int good : {1, 12}) {
    params.erosion.relief_steady_state.reach_steps = good;
    CHECK_NOTHROW(ErosionModel(surface, smallPlanet().planet, params.erosion));
  }
  // Without the relief levels the reach is not read.
  params.erosion.relief = false;
  params.erosion.relief_steady_state.reach_steps = 40;
  CHECK_NOTHROW(ErosionModel(surface, smallPlanet().planet, params.erosion));
}

TEST_CASE("tile erosion: windows made together have the bits of each made alone",
          "[tiles][erosion]") {
  // The windows a request makes at once share their points' surface before erosion (from level
  // 4 of this planet on: f = 512 > 2 (4 + 1) (window radius)). Each level's windows around a point,
  // made together by sample(), against the same windows made one by one by window().
  using tiles::detail::ErosionModel;
  using tiles::detail::WindowResult;
  const tiles::TileParams params = erodedParams();
  const tiles::detail::SurfaceModel surface(smallPlanet().planet, params);
  const ErosionModel together(surface, smallPlanet().planet, params.erosion);
  const ErosionModel alone(surface, smallPlanet().planet, params.erosion);
  auto sameWindow = [](const WindowResult& a, const WindowResult& b) {
    auto same = [](const auto& x, const auto& y) {
      return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(x[0])) == 0;
    };
    return same(a.change_m, b.change_m) && same(a.flow_m2, b.flow_m2) && same(a.wear_m, b.wear_m) &&
           same(a.deposition_m, b.deposition_m) && same(a.water, b.water) &&
           a.droplet_steps == b.droplet_steps;
  };
  REQUIRE(together.lastLevel() >= 4);
  for (int level = together.firstLevel(); level <= together.lastLevel(); ++level) {
    const uint64_t f = surface.layout.levelFrequency(level);
    const int64_t core = together.coreRadius();
    // Every third point of the core hexagon around the middle of base face 3, then around a
    // point 10 steps from its corner 0 (windows in the corner's five faces, where the shared
    // chart and a window's own may name a place differently), each a request of its own,
    // through a window chart: a point beyond face 3 is named in the face that holds it (at
    // f = 64 the hexagon around the middle reaches 70 steps from corner 0, beyond face 3).
    for (const LatticePoint& middle :
         {LatticePoint{3, uint32_t(f / 3), uint32_t(f / 3)}, LatticePoint{3, 5, 5}}) {
      const tiles::detail::WindowChart chart(f, middle, uint32_t(core));
      std::vector<LatticePoint> points;
      for (int64_t a = -core; a <= core; a += 3) {
        for (int64_t b = -core; b <= core; b += 3) {
          if (std::max({std::abs(a), std::abs(b), std::abs(a + b)}) > core) continue;
          const std::optional<LatticePoint> p = chart.unfold(a, b);
          if (p) points.push_back(tiles::canonicalPoint(f, *p));
        }
      }
      std::sort(points.begin(), points.end(), tiles::pointLess);
      points.erase(std::unique(points.begin(), points.end()), points.end());
      std::vector<tiles::detail::PointErosion> out(points.size());
      together.sample(level, points, out);
      std::map<tiles::detail::WindowKey, LatticePoint> windows;
      for (const LatticePoint& p : points) {
        tiles::detail::CandidateWindow near[6];
        const int count = together.windowsAt(level, p, near);
        for (int k = 0; k < count; ++k) windows.emplace(near[k].key, near[k].centre);
      }
      CHECK(windows.size() >= 4);
      for (const auto& [key, centre] : windows)
        CHECK(sameWindow(*together.window(level, centre), *alone.window(level, centre)));
    }
  }
}

namespace {

// 8 threads ask one generator of `params` for a tile, its neighbours and its children, each
// thread in another order; every tile has the bits `serial` (the same params) makes alone.
void checkEightThreads(const tiles::TileParams& params, const TileGenerator& serial) {
  const TileGenerator generator(smallPlanet().planet, params);
  const tiles::TileLayout& layout = generator.layout();
  const TileId centre = middleTile(6, 2);
  std::vector<TileId> ids{centre};
  for (const auto& nb : layout.neighbours(centre)) ids.push_back(nb.id);
  for (const TileId& child : layout.children(centre)) ids.push_back(child);
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
  for (size_t r = 0; r < ids.size(); ++r) {
    const TileMesh alone = serial.generate(ids[r]);
    for (int k = 0; k < kThreads; ++k) {
      CHECK(sameBits(made[k][(r + ids.size() - size_t(k)) % ids.size()], alone));
    }
  }
}

}  // namespace

TEST_CASE("tile erosion: 8 threads asking for overlapping tiles get the bits of one",
          "[tiles][erosion]") {
  checkEightThreads(erodedParams(), eroded());
}

TEST_CASE("tile erosion: heights() gives the values generate() gives", "[tiles][erosion]") {
  const tiles::TileLayout& layout = eroded().layout();
  const TileId id = middleTile(4, 3);
  const TileMesh mesh = eroded().generate(id);
  std::vector<LatticePoint> points;
  for (uint32_t v = 0; v <= uint32_t(kTileEdge); ++v) {
    for (uint32_t u = 0; u + v <= uint32_t(kTileEdge); ++u)
      points.push_back(layout.vertexPoint(id, u, v));
  }
  std::reverse(points.begin(), points.end());
  std::vector<float> heights = eroded().heights(3, points);
  std::reverse(heights.begin(), heights.end());
  CHECK(sameArray(heights, mesh.height_m));
}

namespace {

// Mean |second difference| across lattice lines of a 4T x 4T rhombus of level `level` (a block
// of 4 x 4 tile pairs), of the three line directions, split into lines on tile edges and lines
// inside tiles. The second difference across a line is the hillshade's slope change there.
// Lines along the planet's own edges are left out of both: the planet's surface bends more
// there (on this small rough planet the plain surface's contrast is 3 times that inside), with
// or without erosion, and at level 3 every tile edge is one.
struct LineContrast {
  double edges = 0.0, interior = 0.0;
};

LineContrast lineContrast(const TileGenerator& generator, uint32_t base, int level, uint32_t i0,
                          uint32_t j0, bool change_only) {
  const int64_t t = kTileEdge, n = 4 * t;
  const int64_t planet_step = int64_t(generator.layout().levelFrequency(level)) / kPlanetFrequency;
  // The rhombus plus one point around it.
  std::vector<LatticePoint> points;
  for (int64_t j = -1; j <= n + 1; ++j) {
    for (int64_t i = -1; i <= n + 1; ++i) {
      points.push_back({base, uint32_t(int64_t(i0) + i), uint32_t(int64_t(j0) + j)});
    }
  }
  std::vector<float> h = generator.heights(level, points);
  if (change_only) {
    const std::vector<float> before = plain().heights(level, points);
    for (size_t k = 0; k < h.size(); ++k) h[k] = float(double(h[k]) - double(before[k]));
  }
  const int64_t w = n + 3;
  auto at = [&](int64_t i, int64_t j) { return double(h[size_t((j + 1) * w + (i + 1))]); };
  double sum_edge = 0.0, sum_inner = 0.0;
  size_t count_edge = 0, count_inner = 0;
  for (int64_t j = 0; j <= n; ++j) {
    for (int64_t i = 0; i <= n; ++i) {
      // Across i = const (step (1, 0)), j = const (step (0, 1)), i + j = const (step (1, 0)
      // and (0, 1) crossing it from either side: the step (1, -1) runs along it).
      const double across[3] = {at(i + 1, j) - 2 * at(i, j) + at(i - 1, j),
                                at(i, j + 1) - 2 * at(i, j) + at(i, j - 1),
                                at(i + 1, j + 1) - 2 * at(i, j) + at(i - 1, j - 1)};
      const int64_t line[3] = {int64_t(i0) + i, int64_t(j0) + j, int64_t(i0 + j0) + i + j};
      for (int d = 0; d < 3; ++d) {
        if (line[d] % planet_step == 0) continue;
        if (line[d] % t == 0) {
          sum_edge += std::abs(across[d]), ++count_edge;
        } else {
          sum_inner += std::abs(across[d]), ++count_inner;
        }
      }
    }
  }
  return {sum_edge / double(count_edge), sum_inner / double(count_inner)};
}

}  // namespace

TEST_CASE("tile erosion: a hillshade of 4 x 4 tiles cannot find their edges", "[tiles][erosion]") {
  // Level 5: a planet edge is 64 steps, two tiles, so half the tile edges are not on one.
  const int level = 5;
  const uint64_t f = eroded().layout().levelFrequency(level);
  // Tile corners inside base face 5, away from its edges.
  const uint32_t i0 = uint32_t(f / 4), j0 = uint32_t(f / 8);
  const LineContrast ground = lineContrast(eroded(), 5, level, i0, j0, false);
  INFO("eroded ground: tile edges " << ground.edges << " m, inside " << ground.interior << " m");
  CHECK(ground.edges <= 1.2 * ground.interior);
  CHECK(ground.edges >= ground.interior / 1.2);
  // What erosion changed, alone: the blend of the windows leaves no crease along tile edges.
  const LineContrast change = lineContrast(eroded(), 5, level, i0, j0, true);
  INFO("change: tile edges " << change.edges << " m, inside " << change.interior << " m");
  CHECK(change.interior > 0.0);
  CHECK(change.edges <= 1.2 * change.interior);
}

namespace {

// Relief levels (TileErosionParams::relief): the three coarsest levels of the small planet
// (220, 110 and 55 km, 2, 4 and 8 steps a planet edge: a low pass of a whole edge, 2 steps at
// the coarsest) build the drained relief, the finer ones erode as above.
tiles::TileParams reliefParams() {
  tiles::TileParams params = erodedParams();
  params.erosion.relief = true;
  params.erosion.max_spacing_m = 30000.0;
  params.erosion.relief_max_spacing_m = 1e9;
  params.erosion.relief_low_pass_edges = 1.0;
  return params;
}

const TileGenerator& relief() {
  static const TileGenerator generator(smallPlanet().planet, reliefParams());
  return generator;
}

}  // namespace

TEST_CASE("tile erosion: a level whose relief low pass is under 2 steps is no relief level",
          "[tiles][erosion]") {
  // The small planet's levels of 220, 110 and 55 km have 2, 4 and 8 lattice steps a planet
  // edge. An eighth of an edge is under 2 steps on each: with the relief on they erode as
  // without it, from the first level at most max_spacing_m. A quarter is 2 steps at 55 km
  // only: that level alone builds relief, and the tile differs from both.
  const TileId tile = middleTile(5, 3);
  tiles::TileParams without = erodedParams();
  without.erosion.max_spacing_m = 30000.0;
  const TileMesh plain_erosion = TileGenerator(smallPlanet().planet, without).generate(tile);
  tiles::TileParams eighth = reliefParams();
  eighth.erosion.relief_low_pass_edges = 0.125;
  CHECK(sameBits(TileGenerator(smallPlanet().planet, eighth).generate(tile), plain_erosion));
  tiles::TileParams quarter = reliefParams();
  quarter.erosion.relief_low_pass_edges = 0.25;
  const TileMesh one_level = TileGenerator(smallPlanet().planet, quarter).generate(tile);
  CHECK_FALSE(sameArray(one_level.height_m, plain_erosion.height_m));
  CHECK_FALSE(sameArray(one_level.height_m, relief().generate(tile).height_m));
}

TEST_CASE("tile erosion: relief levels: 8 threads asking for overlapping tiles get the bits of one",
          "[tiles][erosion]") {
  checkEightThreads(reliefParams(), relief());
}

TEST_CASE("tile erosion: relief levels keep the seams and the bits, build relief, hide tile edges",
          "[tiles][erosion]") {
  // Seams inside a base face and around an icosahedron corner.
  CHECK(checkSeams(blockAround(middleTile(5, 3)), relief()) >= 9 * kTileEdge);
  const auto fan = relief().layout().cornerTiles(0, 3);
  CHECK(checkSeams({fan.begin(), fan.end()}, relief()) == 5 * (kTileEdge + 1) - 5 + 4);
  // The same bits from fresh generators on 1, 2 and 4 threads, neighbours asked first.
  const TileId id = middleTile(12, 2);
  const TileMesh first = relief().generate(id);
  for (int threads : {1, 2, 4}) {
    const TileGenerator fresh(smallPlanet().planet, reliefParams());
    tbb::task_arena arena(threads);
    TileMesh mesh;
    arena.execute([&] {
      for (const auto& nb : relief().layout().neighbours(id)) (void)fresh.generate(nb.id);
      mesh = fresh.generate(id);
    });
    CHECK(sameBits(first, mesh));
  }
  // The relief moves the ground by more than the erosion without it.
  const TileId tile = middleTile(5, 3);
  const TileMesh with = relief().generate(tile), without = eroded().generate(tile),
                 before = plain().generate(tile);
  double sum2 = 0.0, sum2_without = 0.0;
  for (size_t v = 0; v < with.vertexCount(); ++v) {
    const double d = double(with.height_m[v]) - double(before.height_m[v]);
    const double e = double(without.height_m[v]) - double(before.height_m[v]);
    sum2 += d * d, sum2_without += e * e;
  }
  INFO("change rms " << std::sqrt(sum2 / double(with.vertexCount())) << " m with relief levels, "
                     << std::sqrt(sum2_without / double(with.vertexCount())) << " m without");
  CHECK(sum2 > 4.0 * sum2_without);
  // The relief's amplitude is bounded by the ground's own fine relief (relief_amplitude times
  // its rms per window): a tighter bound moves the ground less.
  auto change_rms = [&](double amplitude) {
    tiles::TileParams params = reliefParams();
    params.erosion.relief_amplitude = amplitude;
    const TileMesh mesh = TileGenerator(smallPlanet().planet, params).generate(tile);
    double s2 = 0.0;
    for (size_t v = 0; v < mesh.vertexCount(); ++v) {
      const double d = double(mesh.height_m[v]) - double(before.height_m[v]);
      s2 += d * d;
    }
    return std::sqrt(s2 / double(mesh.vertexCount()));
  };
  const double rms = std::sqrt(sum2 / double(with.vertexCount()));
  // (At 1, the default, this planet's hung relief is within the bound: the same as none.)
  const double tight = change_rms(0.25), middle = change_rms(0.35), unbounded = change_rms(0.0);
  INFO("change rms: bound 0.25 " << tight << " m, 0.35 " << middle << " m, 1 " << rms << " m, none "
                                 << unbounded << " m");
  CHECK(tight < 0.8 * middle);
  CHECK(middle < 0.9 * rms);
  CHECK(rms <= unbounded);
  // Tile edges a hillshade cannot find (level 5, as above): the relief's ridges and valleys run
  // along its own levels' lattice lines, which hold every tile edge (unsmoothed, 1.34 and 1.74).
  const uint64_t f = relief().layout().levelFrequency(5);
  const uint32_t i0 = uint32_t(f / 4), j0 = uint32_t(f / 8);
  const LineContrast ground = lineContrast(relief(), 5, 5, i0, j0, false);
  INFO("relief ground: tile edges " << ground.edges << " m, inside " << ground.interior << " m");
  CHECK(ground.edges <= 1.2 * ground.interior);
  CHECK(ground.edges >= ground.interior / 1.2);
  const LineContrast change = lineContrast(relief(), 5, 5, i0, j0, true);
  INFO("relief change: tile edges " << change.edges << " m, inside " << change.interior << " m");
  CHECK(change.edges <= 1.2 * change.interior);
}
