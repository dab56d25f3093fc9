// The tiles a bake makes and writes (planet/tile_region.h, tile_heightmap_grid.h, tile_bake.h):
// the region's tiles with every ancestor (also across the antimeridian and over a pole), the
// boxes holding their content and their children's, heightmaps that read back by libpng as the
// surface the meshes draw, shards whose files add up to one bake's, all or nothing.

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <glm/geometric.hpp>

#include "export/tile_glb.h"
#include "geodesy/hash.h"
#include "geodesy/latlon.h"
#include "geodesy/lattice_numbering.h"
#include "planet/tile_bake.h"
#include "planet/tile_heightmap_grid.h"
#include "planet/tile_region.h"
#include "support/lattice_planet.h"
#include "support/png16_read.h"
#include "support/support.h"

namespace fs = std::filesystem;
using namespace test_support;

namespace {

// Mountains and sea on an Earth-sized planet of frequency 16, rough from vertex to vertex.
struct MountainPlanet {
  std::vector<float> elevation;
  tiles::TilePlanet planet;

  MountainPlanet() {
    const int f = 16;
    elevation = latticeField(f, [](const glm::dvec3& p, uint32_t v) {
      return 2200.0 * std::sin(5.0 * p.x + 0.5) * std::cos(4.0 * p.y) +
             900.0 * (geodesy::unitFromHash(geodesy::hash3(5, 6, v)) - 0.5);
    });
    planet.frequency = f;
    planet.radius_m = 6371000.0;
    planet.elevation_m = elevation;
    planet.spectrum = {4242, 2.0, 2.0, 0.5};
  }
};

const MountainPlanet& mountains() {
  static const MountainPlanet planet;
  return planet;
}

// Small tiles (T = 16: 153 vertices) keep the bakes below fast.
const tiles::TileGenerator& smallTiles() {
  static const tiles::TileGenerator g(mountains().planet, {16, {}, {}});
  return g;
}

// Directions spread over the cap: the centre and rings out to its rim.
std::vector<glm::dvec3> capSamples(const planet::TileRegion& r, double radius_m) {
  const glm::dvec3 c = planet::directionOf(r.lat_deg, r.lon_deg);
  const glm::dvec3 e = geodesy::eastAt(c), n = geodesy::northAt(c);
  std::vector<glm::dvec3> out{c};
  for (int ring = 1; ring <= 6; ++ring) {
    const double angle = r.radius_m / radius_m * ring / 6.0;
    for (int k = 0; k < 36; ++k) {
      const double a = 2.0 * M_PI * k / 36.0;
      out.push_back(std::cos(angle) * c + std::sin(angle) * (std::cos(a) * e + std::sin(a) * n));
    }
  }
  return out;
}

void checkPlan(const tiles::TileGenerator& g, const planet::TileRegion& region, int level) {
  const planet::TileBakePlan plan = planet::planTileBake(g, region, level);
  REQUIRE(plan.level == level);
  std::set<uint64_t> keys;
  for (const planet::BakeTile& t : plan.tiles) keys.insert(tiles::packTileId(t.id));
  CHECK(keys.size() == plan.tiles.size());
  // Every direction of the cap lies in a tile of the finest level.
  for (const glm::dvec3& d : capSamples(region, g.radiusM())) {
    const tiles::TileId id = g.tileAt(d, level);
    INFO("lat " << geodesy::unitToLatLon(d).lat_rad * 180 / M_PI << " lon "
                << geodesy::unitToLatLon(d).lon_rad * 180 / M_PI);
    CHECK(keys.count(tiles::packTileId(id)) == 1);
  }
  // The 20 base faces, each tile's parent before it, four children of each refined tile (and
  // only those meeting the region are refined), no children at the finest level.
  size_t faces = 0;
  for (size_t k = 0; k < plan.tiles.size(); ++k) {
    const planet::BakeTile& t = plan.tiles[k];
    if (t.id.level == 0) {
      ++faces;
      CHECK(t.parent == -1);
    } else {
      REQUIRE(t.parent >= 0);
      REQUIRE(size_t(t.parent) < k);
      CHECK(plan.tiles[size_t(t.parent)].id == g.layout().parent(t.id));
    }
    if (!t.children.empty()) {
      CHECK(t.children.size() == 4);
      CHECK(t.in_region);
      CHECK(int(t.id.level) < level);
    } else {
      CHECK((int(t.id.level) == level || !t.in_region));
    }
  }
  CHECK(faces == 20);
}

}  // namespace

TEST_CASE(
    "tiles bake: the region's tiles and every ancestor, also across the antimeridian "
    "and over a pole",
    "[planet][tiles]") {
  const tiles::TileGenerator& g = smallTiles();
  const int level = g.layout().levelForSpacing(3000.0, g.radiusM());
  checkPlan(g, {12.0, 40.0, 60000.0}, level);
  checkPlan(g, {-3.0, 179.9, 80000.0}, level);  // across the antimeridian
  checkPlan(g, {89.95, 20.0, 50000.0}, level);  // over the north pole
  checkPlan(g, {-90.0, 0.0, 40000.0}, level);   // centred on the south pole
  checkPlan(g, {0.0, 0.0, 1.0}, level);         // a point
  // A region wider than every tile: every tile of every level, to the finest.
  const planet::TileBakePlan all = planet::planTileBake(g, {0.0, 0.0, M_PI * g.radiusM()}, 2);
  CHECK(all.tiles.size() == 20 * (1 + 4 + 16));
}

TEST_CASE("tiles bake: a tile's box holds its content and its descendants', tightly",
          "[planet][tiles]") {
  const tiles::TileGenerator& g = smallTiles();
  const int level = g.layout().levelForSpacing(5000.0, g.radiusM());
  const planet::TileBakePlan plan = planet::planTileBake(g, {25.0, -60.0, 100000.0}, level);
  // Every tile's points as its glb stores them, skirts included.
  std::vector<std::vector<glm::dvec3>> points(plan.tiles.size());
  std::vector<planet::BoxExtent> content(plan.tiles.size());
  for (size_t k = 0; k < plan.tiles.size(); ++k) {
    const tiles::TileMesh mesh = g.generate(plan.tiles[k].id);
    const double depth =
        planet::skirtDepth(mesh, planet::tileGeometricError(g, int(mesh.id.level)));
    for (size_t v = 0; v < mesh.vertexCount(); ++v) points[k].push_back(mesh.position(v));
    for (const auto& edge : mesh.topology->edges)
      for (uint32_t v : edge)
        points[k].push_back(mesh.centre_m + glm::dvec3(planet_export::skirtOffset(
                                                mesh.centre_m, mesh.positions_m[v], depth)));
    content[k] = planet::tileContentExtent(planet::tileBoxFrame(g, mesh.id), mesh, depth);
  }
  const std::vector<std::array<double, 12>> boxes = planet::tileBoxes(g, plan, content);
  // The box's half-extent along its axis a, and where p lies along it from the centre.
  auto half = [](const std::array<double, 12>& b, int a) {
    return glm::length(glm::dvec3(b[3 + 3 * a], b[4 + 3 * a], b[5 + 3 * a]));
  };
  auto along = [&](const std::array<double, 12>& b, int a, const glm::dvec3& p) {
    const glm::dvec3 axis(b[3 + 3 * a], b[4 + 3 * a], b[5 + 3 * a]);
    return glm::dot(p - glm::dvec3(b[0], b[1], b[2]), axis / half(b, a));
  };
  // Every point in its tile's box and each ancestor's; per tile, the extent along its box's
  // axes of its own points and its descendants' (its subtree's content).
  std::vector<std::array<double, 6>> subtree(plan.tiles.size());
  for (auto& e : subtree) e = {INFINITY, INFINITY, INFINITY, -INFINITY, -INFINITY, -INFINITY};
  size_t checked = 0, outside = 0;
  for (size_t k = 0; k < plan.tiles.size(); ++k) {
    for (const glm::dvec3& p : points[k]) {
      for (int64_t t = int64_t(k); t >= 0; t = plan.tiles[size_t(t)].parent) {
        const auto& b = boxes[size_t(t)];
        for (int a = 0; a < 3; ++a) {
          const double x = along(b, a, p);
          outside += std::abs(x) > half(b, a) + 1e-6;
          ++checked;
          subtree[size_t(t)][size_t(a)] = std::min(subtree[size_t(t)][size_t(a)], x);
          subtree[size_t(t)][size_t(a) + 3] = std::max(subtree[size_t(t)][size_t(a) + 3], x);
        }
      }
    }
  }
  INFO(outside << " of " << checked << " point-axis checks outside their boxes");
  CHECK(outside == 0);
  CHECK(checked > 30000);
  // Tight: a leaf's box is its points' extent plus the margin on each side; a refined tile's
  // also holds its children's boxes, turned against its own (each frame faces its own centre),
  // whose corners reach past its subtree's points. On this small planet (T = 16, f = 16) a
  // tile is wide against the radius, so the corners reach far: up to 1.61 times the subtree's
  // extent along an axis at level 0, 1.34 at level 6 (printed); the bound here is 1.7.
  double worst_leaf = 0.0;
  std::vector<double> worst_parent(size_t(level), 0.0);  // per level
  for (size_t k = 0; k < plan.tiles.size(); ++k) {
    for (int a = 0; a < 3; ++a) {
      const double extent = subtree[k][size_t(a) + 3] - subtree[k][size_t(a)];
      const double box = 2.0 * half(boxes[k], a);
      if (plan.tiles[k].children.empty()) {
        worst_leaf = std::max(worst_leaf, box - extent - 2.0 * planet::kBoxMarginM);
      } else {
        double& worst = worst_parent[plan.tiles[k].id.level];
        worst = std::max(worst, (box - 2.0 * planet::kBoxMarginM) / extent);
      }
    }
  }
  std::string ratios;
  for (double r : worst_parent) ratios += " " + std::to_string(r);
  WARN("leaf boxes exceed their points' extent plus margins by up to "
       << worst_leaf << " m; refined tiles' boxes reach up to" << ratios
       << " times their subtree's extent along an axis, by level from 0");
  CHECK(worst_leaf <= 1e-6);
  for (double r : worst_parent) CHECK(r <= 1.7);
}

TEST_CASE("tiles bake: a tile's heightmap reads back by libpng as the meshes' surface",
          "[planet][tiles]") {
  const tiles::TileGenerator& g = smallTiles();
  // A 30 m level (tiles 480 m across): a range of metres, a 16-bit step of a tenth of a
  // millimetre.
  const int level = g.layout().levelForSpacing(30.0, g.radiusM());
  const auto top = std::max_element(mountains().elevation.begin(), mountains().elevation.end());
  const geodesy::LatticeNumbering numbering(16);
  glm::dvec3 where(0.0);
  for (uint32_t base = 0; base < 20 && where == glm::dvec3(0.0); ++base)
    for (uint32_t j = 0; j <= 16; ++j)
      for (uint32_t i = 0; i + j <= 16; ++i)
        if (numbering.vertex(base, i, j) == uint32_t(top - mountains().elevation.begin()))
          where = geodesy::latticePosition(geodesy::Spacing::kSineWeights, 16, base, i, j);
  const tiles::TileId id = g.tileAt(glm::normalize(where + glm::dvec3(0.01, 0.0, 0.0)), level);
  const tiles::TileMesh mesh = g.generate(id);
  const planet_export::TileHeightmap map = planet::tileHeightmap(g, mesh);
  CHECK(map.size == 17);  // 2^4 + 1 for T = 16
  const Png16 png = decodePng16(planet_export::encodeHeightmapPng(map));
  REQUIRE(png.width == map.size);
  const planet_export::HeightmapRange range = planet_export::heightmapRange(map);
  const double step = (range.max_m - range.min_m) / 65535.0;
  REQUIRE(range.max_m - range.min_m > 5.0);

  // The meshes around: every tile within three edge steps of it (the six tiles around each
  // of its corners; the square reaches into them).
  std::vector<tiles::TileMesh> block{mesh};
  std::set<uint64_t> seen{tiles::packTileId(id)};
  std::vector<tiles::TileId> ring{id};
  for (int step_out = 0; step_out < 3; ++step_out) {
    std::vector<tiles::TileId> next;
    for (const tiles::TileId& t : ring) {
      for (const auto& a : g.layout().neighbours(t)) {
        if (seen.insert(tiles::packTileId(a.id)).second) {
          block.push_back(g.generate(a.id));
          next.push_back(a.id);
        }
      }
    }
    ring = next;
  }
  // The mesh's height where the ray from the planet's centre along d meets a mesh of the block:
  // the triangle's vertex heights interpolated at the hit (as a renderer interpolates
  // _HEIGHT; the hit's own distance would also hold the flat triangle's sag below the
  // sphere).
  auto meshHeight = [&](const glm::dvec3& d, double& out) {
    for (const tiles::TileMesh& m : block) {
      const auto& ix = m.topology->indices;
      for (size_t t = 0; t < ix.size(); t += 3) {
        const glm::dvec3 a = m.position(ix[t]), b = m.position(ix[t + 1]),
                         c = m.position(ix[t + 2]);
        const double det = glm::dot(d, glm::cross(b - a, c - a));
        if (det == 0.0) continue;
        const double s = glm::dot(a, glm::cross(b - a, c - a)) / det;  // along d
        const glm::dvec3 p = s * d;
        const double wa = glm::dot(glm::cross(b - p, c - p), glm::cross(b - a, c - a)) /
                          glm::dot(glm::cross(b - a, c - a), glm::cross(b - a, c - a));
        const double wb = glm::dot(glm::cross(c - p, a - p), glm::cross(b - a, c - a)) /
                          glm::dot(glm::cross(b - a, c - a), glm::cross(b - a, c - a));
        const double wc = 1.0 - wa - wb;
        if (wa < -1e-9 || wb < -1e-9 || wc < -1e-9 || s <= 0.0) continue;
        out = wa * m.height_m[ix[t]] + wb * m.height_m[ix[t + 1]] + wc * m.height_m[ix[t + 2]];
        return true;
      }
    }
    return false;
  };
  const double half = 0.5 * map.spacing_m * (map.size - 1);
  size_t compared = 0;
  double worst = 0.0;
  for (int row = 0; row < map.size; ++row) {
    for (int col = 0; col < map.size; ++col) {
      const double x = -half + col * map.spacing_m, y = half - row * map.spacing_m;
      const glm::dvec3 d = glm::normalize(map.up + (x * map.east + y * map.north) / map.radius_m);
      double expected = 0.0;
      if (!meshHeight(d, expected)) continue;
      const double read = range.min_m + png.samples[size_t(row) * size_t(map.size) + col] * step;
      worst = std::max(worst, std::abs(read - expected) / step);
      ++compared;
    }
  }
  WARN("heightmap against the meshes: worst difference " << worst << " steps of " << step * 1000.0
                                                         << " mm");
  CHECK(compared == size_t(map.size * map.size));
  CHECK(worst <= 1.0);
}

TEST_CASE("tiles bake: shards write disjoint files that add up to one bake's, all or nothing",
          "[planet][tiles]") {
  TempDir dir("tiles_bake");
  const tiles::TileGenerator& g = smallTiles();
  planet::TileBakeOptions options;
  options.region = {-8.0, 179.0, 150000.0};  // across the antimeridian
  options.spacing_m = 3000.0;
  options.threads = 2;
  const planet::TileBakeResult one = planet::bakeTiles(g, options, dir.path / "one");
  CHECK(one.shard_tiles == one.plan_tiles);
  CHECK(one.region_tiles > 4);
  const std::vector<std::string> names = TempDir::namesOf(dir.path / "one");
  // tileset.json, three files per tile and the transaction's manifest.
  CHECK(names.size() == 3 * one.plan_tiles + 2);

  // Every glb the tileset names is there, once.
  const nlohmann::json tileset = nlohmann::json::parse(readFile(dir.path / "one" / "tileset.json"));
  std::vector<std::string> uris;
  std::vector<const nlohmann::json*> stack{&tileset["root"]};
  while (!stack.empty()) {
    const nlohmann::json& t = *stack.back();
    stack.pop_back();
    if (t.contains("content")) uris.push_back(t["content"]["uri"]);
    if (t.contains("children"))
      for (const nlohmann::json& c : t["children"]) stack.push_back(&c);
  }
  CHECK(uris.size() == one.plan_tiles);
  for (const std::string& uri : uris) CHECK(fs::exists(dir.path / "one" / uri));

  // Three shards into three folders: disjoint, and their union is the one bake, byte for byte.
  std::map<std::string, std::string> merged;
  for (int k = 0; k < 3; ++k) {
    options.shard = k, options.shards = 3;
    options.threads = 1 + k % 2;
    const fs::path folder = dir.path / ("shard" + std::to_string(k));
    const planet::TileBakeResult r = planet::bakeTiles(g, options, folder);
    CHECK(r.plan_tiles == one.plan_tiles);
    for (const std::string& name : TempDir::namesOf(folder)) {
      if (name[0] == '.') continue;  // the transaction's manifest
      CHECK(merged.count(name) == 0);
      merged[name] = readFile(folder / name);
    }
  }
  size_t visible = 0;
  for (const std::string& name : names) {
    if (name[0] == '.') continue;
    ++visible;
    INFO(name);
    REQUIRE(merged.count(name) == 1);
    CHECK(merged[name] == readFile(dir.path / "one" / name));
  }
  CHECK(merged.size() == visible);

  // A bad shard changes nothing; a second bake replaces the first's files, keeps the user's.
  { std::ofstream(dir.path / "one" / "notes.txt") << "mine"; }
  options.shard = 3;
  CHECK_THROWS_AS(planet::bakeTiles(g, options, dir.path / "one"), std::invalid_argument);
  CHECK(TempDir::namesOf(dir.path / "one").size() == names.size() + 1);
  options.shard = 0, options.shards = 1;
  options.region = {10.0, 10.0, 20000.0};
  const planet::TileBakeResult small = planet::bakeTiles(g, options, dir.path / "one");
  const std::vector<std::string> after = TempDir::namesOf(dir.path / "one");
  CHECK(after.size() == 3 * small.plan_tiles + 3);
  CHECK(std::count(after.begin(), after.end(), "notes.txt") == 1);
}
