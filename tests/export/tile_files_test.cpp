// The tile files of export/: a tile glb read back by tinygltf (positions in double within 1 mm
// of the generator's on an Earth-radius equator, the morphing attributes, skirts facing out) and
// checked by the Khronos glTF-Validator; tileset.json's frame (y-up planet to z-up ECEF) and
// tree; the heightmap PNG read back by libpng within one 16-bit step, and its sidecar.

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <glm/geometric.hpp>

#include "export/tile_glb.h"
#include "export/tile_heightmap.h"
#include "export/tileset_json.h"
#include "geodesy/hash.h"
#include "geodesy/latlon.h"
#include "geodesy/lattice_numbering.h"
#include "support/glb_read.h"
#include "support/lattice_planet.h"
#include "support/png16_read.h"
#include "support/support.h"
#include "tiles/tile_generator.h"

namespace fs = std::filesystem;
using namespace test_support;

namespace {

// Hills and sea on an Earth-sized planet of frequency 16.
struct HillPlanet {
  std::vector<float> elevation;
  tiles::TilePlanet planet;

  HillPlanet() {
    const int f = 16;
    elevation = latticeField(f, [](const glm::dvec3& p, uint32_t v) {
      return 1800.0 * std::sin(4.0 * p.x + 1.0) * std::cos(3.0 * p.z) +
             400.0 * (geodesy::unitFromHash(geodesy::hash3(1, 2, v)) - 0.5);
    });
    planet.frequency = f;
    planet.radius_m = 6371000.0;
    planet.elevation_m = elevation;
    planet.spectrum = {99, 2.0, 2.0, 0.5};
  }
};

const tiles::TileGenerator& generator() {
  static const HillPlanet planet;
  static const tiles::TileGenerator g(planet.planet, {256, {}, {}});
  return g;
}

planet_export::TileGlb glbOf(const tiles::TileMesh& mesh, double skirt_depth_m) {
  planet_export::TileGlb file;
  file.centre_m = mesh.centre_m;
  file.positions_m = mesh.positions_m;
  file.normals = mesh.normals;
  file.height_m = mesh.height_m;
  file.parent_height_m = mesh.parent_height_m;
  file.indices = mesh.topology->indices;
  for (int k = 0; k < 3; ++k) file.edges[k] = mesh.topology->edges[k];
  file.skirt_depth_m = skirt_depth_m;
  file.base = mesh.id.base, file.level = mesh.id.level, file.index = mesh.id.index;
  file.spacing_m = 27.0;
  return file;
}

// A 30 m tile on the equator (latitude 0, longitude 37).
tiles::TileMesh equatorTile() {
  const tiles::TileGenerator& g = generator();
  const int level = g.layout().levelForSpacing(30.0, g.radiusM());
  const glm::dvec3 where = geodesy::latLonToUnit({0.0, 37.0 * M_PI / 180.0});
  return g.generate(g.tileAt(where, level));
}

}  // namespace

TEST_CASE("export: a tile glb on an Earth-radius equator reads back within 1 mm", "[export]") {
  TempDir dir;
  const tiles::TileGenerator& g = generator();
  const tiles::TileMesh mesh = equatorTile();
  REQUIRE(mesh.vertexCount() == 33153);
  writeTileGlb(dir.path / "tile.glb", glbOf(mesh, 0.0));
  const tinygltf::Model model = loadGlb(dir.path / "tile.glb");
  REQUIRE(model.nodes.size() == 1);
  const std::vector<double>& t = model.nodes[0].translation;
  REQUIRE(t.size() == 3);
  // The centre is written in double: bit for bit.
  CHECK(t[0] == mesh.centre_m.x);
  CHECK(t[1] == mesh.centre_m.y);
  CHECK(t[2] == mesh.centre_m.z);
  const tinygltf::Primitive& primitive = model.meshes[0].primitives[0];
  const std::vector<float> position = accessorFloats(model, primitive.attributes.at("POSITION"));
  const std::vector<float> height = accessorFloats(model, primitive.attributes.at("_HEIGHT"));
  const std::vector<float> parent =
      accessorFloats(model, primitive.attributes.at("_PARENT_HEIGHT"));
  const std::vector<float> normal = accessorFloats(model, primitive.attributes.at("NORMAL"));
  REQUIRE(position.size() == 3 * mesh.vertexCount());
  const glm::dvec3 centre(t[0], t[1], t[2]);
  const uint32_t edge = uint32_t(g.layout().tileEdge());
  double worst = 0.0;
  size_t k = 0, same_attributes = 0;
  for (uint32_t v = 0; v <= edge; ++v) {
    for (uint32_t u = 0; u + v <= edge; ++u, ++k) {
      const glm::dvec3 read =
          centre + glm::dvec3(position[3 * k], position[3 * k + 1], position[3 * k + 2]);
      const glm::dvec3 exact = g.surfacePosition(
          int(mesh.id.level), g.layout().vertexPoint(mesh.id, u, v), mesh.height_m[k]);
      worst = std::max(worst, glm::length(read - exact));
      same_attributes += height[k] == mesh.height_m[k] && parent[k] == mesh.parent_height_m[k] &&
                         normal[3 * k] == mesh.normals[k].x &&
                         normal[3 * k + 2] == mesh.normals[k].z;
    }
  }
  INFO("worst position error " << worst * 1000.0 << " mm");
  CHECK(worst < 1e-3);
  CHECK(same_attributes == mesh.vertexCount());
}

TEST_CASE("export: a tile glb's skirts hang under its edges and face outward", "[export]") {
  TempDir dir;
  const tiles::TileMesh mesh = equatorTile();
  writeTileGlb(dir.path / "tile.glb", glbOf(mesh, 50.0));
  const tinygltf::Model model = loadGlb(dir.path / "tile.glb");
  const tinygltf::Primitive& primitive = model.meshes[0].primitives[0];
  const std::vector<float> position = accessorFloats(model, primitive.attributes.at("POSITION"));
  const std::vector<float> height = accessorFloats(model, primitive.attributes.at("_HEIGHT"));
  const size_t n = mesh.vertexCount(), edge = mesh.topology->edges[0].size();
  REQUIRE(height.size() == n + 3 * edge);
  const glm::dvec3 centre(model.nodes[0].translation[0], model.nodes[0].translation[1],
                          model.nodes[0].translation[2]);
  auto at = [&](size_t v) {
    return centre + glm::dvec3(position[3 * v], position[3 * v + 1], position[3 * v + 2]);
  };
  // Each skirt vertex stands 50 m under its edge vertex, its height 50 m less.
  size_t k = n;
  for (const auto& list : mesh.topology->edges) {
    for (uint32_t v : list) {
      CHECK(glm::length(at(v)) - glm::length(at(k)) == Approx(50.0).margin(1e-3));
      CHECK(height[k] == mesh.height_m[v] - 50.0f);
      ++k;
    }
  }
  // Skirt triangles face away from the tile's middle.
  const std::vector<uint32_t> indices = [&] {
    const tinygltf::Accessor& a = model.accessors[size_t(primitive.indices)];
    const tinygltf::BufferView& view = model.bufferViews[size_t(a.bufferView)];
    REQUIRE(a.componentType == TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT);
    std::vector<uint32_t> out(a.count);
    const uint8_t* data = model.buffers[0].data.data() + view.byteOffset + a.byteOffset;
    for (size_t i = 0; i < a.count; ++i) out[i] = uint32_t(data[2 * i] | (data[2 * i + 1] << 8));
    return out;
  }();
  REQUIRE(indices.size() == mesh.topology->indices.size() + 3 * 6 * (edge - 1));
  const glm::dvec3 middle = mesh.centre_m;
  size_t outward = 0, skirt_triangles = 0;
  for (size_t t = mesh.topology->indices.size(); t < indices.size(); t += 3, ++skirt_triangles) {
    const glm::dvec3 a = at(indices[t]), b = at(indices[t + 1]), c = at(indices[t + 2]);
    const glm::dvec3 normal = glm::cross(b - a, c - a);
    const glm::dvec3 away = (a + b + c) / 3.0 - middle;
    const glm::dvec3 up = glm::normalize(a);
    outward += glm::dot(normal, away - glm::dot(away, up) * up) > 0.0;
  }
  CHECK(outward == skirt_triangles);
}

// Runs after the npm_ci_tools fixture (tests/CMakeLists.txt): hidden from catch_discover_tests.
TEST_CASE("export: tile glbs pass the Khronos glTF-Validator", "[export][.validator]") {
  TempDir dir;
  const tiles::TileMesh mesh = equatorTile();
  const fs::path script = fs::path(PLANETGEN_SOURCE_DIR) / "tests/tools/validate.mjs";
  REQUIRE(fs::exists(fs::path(PLANETGEN_SOURCE_DIR) / "tests/tools/node_modules/gltf-validator"));
  for (const double skirt : {0.0, 40.0}) {
    const fs::path file = dir.path / ("tile_" + std::to_string(int(skirt)) + ".glb");
    writeTileGlb(file, glbOf(mesh, skirt));
    const CommandResult result = run("node " + quoted(script) + " " + quoted(file));
    INFO(result.output);
    REQUIRE(result.exit_code != 2);
    const nlohmann::json report = nlohmann::json::parse(result.output);
    const nlohmann::json& issues = report["issues"];
    WARN("glTF-Validator " << report["validatorVersion"].get<std::string>() << " on "
                           << file.filename() << ": " << issues["numErrors"] << " errors, "
                           << issues["numWarnings"] << " warnings, " << issues["numInfos"]
                           << " infos");
    CHECK(issues["numErrors"].get<int>() == 0);
    CHECK(issues["numWarnings"].get<int>() == 0);
  }
}

TEST_CASE("export: tileset.json is 3D Tiles 1.1, z-up (ECEF), with its tree", "[export]") {
  // Planet frame: +Y north, longitude 0 on +X, 90 degrees east on -Z. A box centred over
  // latitude 0, longitude 90 E and one over the north pole.
  planet_export::TilesetTile root, east, pole;
  root.box = {0, 0, 0, 7e6, 0, 0, 0, 7e6, 0, 0, 0, 7e6};
  root.geometric_error_m = 6.4e6;
  root.children = {1, 2};
  const glm::dvec3 at_east = geodesy::latLonToUnit({0.0, M_PI / 2}) * 6.4e6;
  const glm::dvec3 at_pole = geodesy::latLonToUnit({M_PI / 2, 0.0}) * 6.4e6;
  east.box = {at_east.x, at_east.y, at_east.z, 1, 0, 0, 0, 2, 0, 0, 0, 3};
  east.geometric_error_m = 30.0;
  east.content_uri = "east.glb";
  pole.box = {at_pole.x, at_pole.y, at_pole.z, 1, 0, 0, 0, 2, 0, 0, 0, 3};
  pole.geometric_error_m = 30.0;
  pole.content_uri = "pole.glb";
  const std::vector<planet_export::TilesetTile> tiles{root, east, pole};
  const nlohmann::json j = nlohmann::json::parse(planet_export::tilesetJson(tiles, 0, "test"));
  CHECK(j["asset"]["version"] == "1.1");
  CHECK(j["geometricError"] == 6.4e6);
  CHECK(j["root"]["refine"] == "REPLACE");
  CHECK_FALSE(j["root"].contains("content"));
  REQUIRE(j["root"]["children"].size() == 2);
  const nlohmann::json& e = j["root"]["children"][0];
  const nlohmann::json& p = j["root"]["children"][1];
  CHECK(e["content"]["uri"] == "east.glb");
  // ECEF: 90 degrees east is +Y, north is +Z; the axes rotate with the centre.
  CHECK(e["boundingVolume"]["box"][0].get<double>() == Approx(0.0).margin(1e-6));
  CHECK(e["boundingVolume"]["box"][1].get<double>() == Approx(6.4e6));
  CHECK(e["boundingVolume"]["box"][2].get<double>() == Approx(0.0).margin(1e-6));
  CHECK(p["boundingVolume"]["box"][2].get<double>() == Approx(6.4e6));
  const std::vector<double> axes(e["boundingVolume"]["box"].begin() + 3,
                                 e["boundingVolume"]["box"].end());
  CHECK(axes == std::vector<double>{1, 0, 0, 0, 0, 2, 0, -3, 0});
  // A child listed twice, or one out of range, is refused.
  std::vector<planet_export::TilesetTile> twice = tiles;
  twice[1].children = {2};
  CHECK_THROWS_AS(planet_export::tilesetJson(twice, 0, "test"), std::invalid_argument);
  twice[1].children = {7};
  CHECK_THROWS_AS(planet_export::tilesetJson(twice, 0, "test"), std::invalid_argument);
}

TEST_CASE("export: tileset.json names the planet's sphere and the baked region", "[export]") {
  planet_export::TilesetTile root;
  root.box = {0, 0, 0, 3e6, 0, 0, 0, 3e6, 0, 0, 0, 3e6};
  root.geometric_error_m = 2e6;
  const std::vector<planet_export::TilesetTile> tiles{root};
  // Without a radius: neither the extension nor the extras.
  const nlohmann::json bare = nlohmann::json::parse(planet_export::tilesetJson(tiles, 0, "test"));
  CHECK_FALSE(bare.contains("extensionsUsed"));
  CHECK_FALSE(bare.contains("extensions"));
  CHECK_FALSE(bare.contains("extras"));
  planet_export::TilesetPlanet about;
  about.radius_m = 2e6;
  about.sea_level_m = -12.5;
  about.region_lat_deg = 35.5;
  about.region_lon_deg = -120.0;
  about.region_radius_m = 4000.0;
  about.finest_level = 10;
  about.finest_spacing_m = 67.5;
  const nlohmann::json j =
      nlohmann::json::parse(planet_export::tilesetJson(tiles, 0, "test", about));
  CHECK(j["extensionsUsed"] == nlohmann::json::array({"3DTILES_ellipsoid"}));
  CHECK_FALSE(j.contains("extensionsRequired"));  // readers without it still load the tiles
  CHECK(j["extensions"]["3DTILES_ellipsoid"]["radii"] == nlohmann::json::array({2e6, 2e6, 2e6}));
  const nlohmann::json& p = j["extras"]["planetgen"];
  CHECK(p["radius_m"] == 2e6);
  CHECK(p["sea_level_m"] == -12.5);
  CHECK(p["region"]["lat_deg"] == 35.5);
  CHECK(p["region"]["lon_deg"] == -120.0);
  CHECK(p["region"]["radius_m"] == 4000.0);
  CHECK(p["finest_level"] == 10);
  CHECK(p["finest_spacing_m"] == 67.5);
}

TEST_CASE("export: a heightmap PNG reads back by libpng within one 16-bit step", "[export]") {
  planet_export::TileHeightmap map;
  map.size = 65;
  map.spacing_m = 25.0;
  map.radius_m = 6371000.0;
  map.up = geodesy::latLonToUnit({0.3, -2.0});
  map.east = geodesy::eastAt(map.up);
  map.north = geodesy::northAt(map.up);
  map.height_m.resize(65 * 65);
  for (int y = 0; y < 65; ++y)
    for (int x = 0; x < 65; ++x)
      map.height_m[size_t(y) * 65 + size_t(x)] =
          float(-120.0 + 900.0 * std::sin(0.1 * x) * std::cos(0.07 * y) + 0.013 * x * y);
  const std::string bytes = planet_export::encodeHeightmapPng(map);
  const Png16 png = decodePng16(bytes);
  REQUIRE(png.width == 65);
  REQUIRE(png.height == 65);
  CHECK(png.bit_depth == 16);
  CHECK(png.colour_type == PNG_COLOR_TYPE_GRAY);
  const nlohmann::json side =
      nlohmann::json::parse(planet_export::heightmapSidecarJson(map, "h.png"));
  const double lo = side["height_min_m"], hi = side["height_max_m"];
  const double step = side["metres_per_step"];
  CHECK(step == Approx((hi - lo) / 65535.0));
  CHECK(lo == *std::min_element(map.height_m.begin(), map.height_m.end()));
  CHECK(hi == *std::max_element(map.height_m.begin(), map.height_m.end()));
  double worst = 0.0;
  for (size_t k = 0; k < map.height_m.size(); ++k)
    worst = std::max(worst, std::abs(lo + png.samples[k] * step - double(map.height_m[k])));
  CHECK(worst <= step);
  CHECK(worst <= 0.5 * step * (1.0 + 1e-9));
  // The corners: half the size from the centre along east and north.
  CHECK(side["size_m"] == 64 * 25.0);
  const auto nw = planet_export::heightmapLatLon(map, -800.0, 800.0);
  CHECK(side["corners"]["north_west"]["lat_deg"] == nw[0]);
  CHECK(side["corners"]["north_west"]["lon_deg"] == nw[1]);
  CHECK(nw[0] > side["centre"]["lat_deg"].get<double>());
  CHECK(nw[1] < side["centre"]["lon_deg"].get<double>());
  CHECK(side["frame"]["up_ecef"][1] == Approx(-map.up.z));
}
