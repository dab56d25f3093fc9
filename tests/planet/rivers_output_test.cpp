// Rivers and lakes as files (export/geojson.h, export/detail/glb_water.h): rivers.geojson
// against RFC 7946, the antimeridian cut, planet.glb's Rivers and Lakes nodes, the same file
// at any thread count.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <numbers>
#include <sstream>

#include <stb_image.h>
#include <tbb/task_arena.h>
#include <tiny_gltf.h>
#include <glm/geometric.hpp>
#include <glm/vec2.hpp>
#include <nlohmann/json.hpp>

#include "export/geojson.h"
#include "export/image.h"
#include "export/maps.h"
#include "export/png_io.h"
#include "geodesy/latlon.h"
#include "hydrology/rivers.h"
#include "planet/config.h"
#include "planet/pipeline.h"
#include "planet/rivers_output.h"
#include "support/river_planets.h"

using namespace planet;
using namespace metrics;
using hydrology::RiverEnd;
namespace fs = std::filesystem;
using namespace river_fixtures;

namespace {

double ringArea(const nlohmann::json& ring) {  // shoelace in lon/lat, closed ring
  double a = 0.0;
  for (size_t i = 0; i + 1 < ring.size(); ++i)
    a += ring[i][0].get<double>() * ring[i + 1][1].get<double>() -
         ring[i + 1][0].get<double>() * ring[i][1].get<double>();
  return 0.5 * a;
}

// RFC 7946 checks, independent of the writer: positions in range with 2 or 3 numbers, lines
// of >= 2 positions, rings of >= 4 positions, closed, exterior counter-clockwise, holes
// clockwise. Returns the number of problems (and lists them).
int rfc7946Problems(const nlohmann::json& doc, std::ostringstream& why) {
  int problems = 0;
  auto fail = [&](const std::string& what) {
    if (problems++ < 10) why << what << "\n";
  };
  auto position = [&](const nlohmann::json& p) {
    if (!p.is_array() || p.size() < 2 || p.size() > 3) return fail("position size"), false;
    for (const auto& x : p)
      if (!x.is_number()) return fail("position not numbers"), false;
    const double lon = p[0], lat = p[1];
    if (!(lon >= -180.0 && lon <= 180.0 && lat >= -90.0 && lat <= 90.0))
      return fail("position out of range: " + p.dump()), false;
    return true;
  };
  auto line = [&](const nlohmann::json& c) {
    if (!c.is_array() || c.size() < 2) return fail("line of < 2 positions");
    for (const auto& p : c) position(p);
  };
  auto polygon = [&](const nlohmann::json& rings) {
    if (!rings.is_array() || rings.empty()) return fail("polygon without rings");
    for (size_t r = 0; r < rings.size(); ++r) {
      const auto& ring = rings[r];
      if (!ring.is_array() || ring.size() < 4) return fail("ring of < 4 positions");
      for (const auto& p : ring) position(p);
      if (ring.front() != ring.back()) fail("ring not closed");
      const double a = ringArea(ring);
      if (r == 0 ? a <= 0.0 : a >= 0.0) fail("ring orientation (right-hand rule)");
    }
  };
  if (doc.value("type", "") != "FeatureCollection") fail("not a FeatureCollection");
  for (const auto& f : doc.at("features")) {
    if (f.value("type", "") != "Feature") fail("not a Feature");
    if (!f.contains("properties")) fail("feature without properties");
    const auto& g = f.at("geometry");
    const std::string type = g.at("type");
    const auto& c = g.at("coordinates");
    if (type == "LineString") {
      line(c);
    } else if (type == "MultiLineString") {
      for (const auto& l : c) line(l);
    } else if (type == "Polygon") {
      polygon(c);
    } else if (type == "MultiPolygon") {
      for (const auto& p : c) polygon(p);
    } else {
      fail("unexpected geometry " + type);
    }
  }
  return problems;
}

}  // namespace

TEST_CASE("rivers: rivers.geojson follows RFC 7946 and matches the network", "[river_data]") {
  const Fixture& f = defaultPlanet();
  const nlohmann::json doc = nlohmann::json::parse(riversGeoJson(f.network, f.planet));
  std::ostringstream why;
  CHECK(rfc7946Problems(doc, why) == 0);
  INFO(why.str());
  size_t rivers = 0, lakes = 0;
  for (const auto& feature : doc["features"]) {
    const auto& props = feature["properties"];
    if (props["kind"] == "river") {
      rivers += 1;
      size_t n = 0;
      const auto& g = feature["geometry"];
      if (g["type"] == "LineString") {
        n = g["coordinates"].size();
      } else {
        for (const auto& part : g["coordinates"]) n += part.size();
      }
      CHECK(props["discharge_m3_s"].size() == n);
      CHECK(props["width_m"].size() == n);
      CHECK(props["strahler"].get<int>() >= 1);
    } else {
      lakes += 1;
      CHECK(props["area_km2"].get<double>() > 0.0);
    }
  }
  CHECK(rivers == f.network.rivers.size());
  CHECK(lakes == f.network.lakes.size());
}

TEST_CASE("geojson: lines and polygons across the antimeridian are cut there", "[river_data]") {
  planet_export::GeoLine line;
  line.lon_deg = {178.0, 179.5, -179.5, -178.0};
  line.lat_deg = {10.0, 10.5, 11.5, 12.0};
  line.elevation_m = {30.0, 20.0, 10.0, 0.0};
  line.point_values = {{"q", {1.0, 2.0, 3.0, 4.0}}};
  planet_export::GeoPolygon poly;
  poly.rings = {{{179.0, -1.0}, {-179.0, -1.0}, {-179.0, 1.0}, {179.0, 1.0}}};
  const nlohmann::json doc =
      nlohmann::json::parse(planet_export::geoJsonText(std::span(&line, 1), std::span(&poly, 1)));
  std::ostringstream why;
  CHECK(rfc7946Problems(doc, why) == 0);
  INFO(why.str());
  const auto& l = doc["features"][0];
  REQUIRE(l["geometry"]["type"] == "MultiLineString");
  const auto& parts = l["geometry"]["coordinates"];
  REQUIRE(parts.size() == 2);
  CHECK(parts[0].back()[0].get<double>() == 180.0);
  CHECK(parts[1].front()[0].get<double>() == -180.0);
  CHECK(parts[0].back()[1].get<double>() == Approx(11.0));  // halfway in longitude
  CHECK(l["properties"]["q"].size() == parts[0].size() + parts[1].size());
  CHECK(l["properties"]["q"][2].get<double>() == Approx(2.5));
  const auto& p = doc["features"][1];
  REQUIRE(p["geometry"]["type"] == "MultiPolygon");
  double area = 0.0;
  for (const auto& polygon : p["geometry"]["coordinates"]) area += ringArea(polygon[0]);
  CHECK(area == Approx(4.0));  // 2 x 2 degrees, split in two
}

TEST_CASE("rivers: planet.glb has Rivers and Lakes nodes with _DISCHARGE and _WIDTH",
          "[river_data]") {
  Config config = configAt("default.toml", 32);
  config.output.obj = false;
  config.output.maps = false;
  config.output.heightmaps = false;
  config.output.map_width = 512;
  config.output.mask_attributes = true;
  const PlanetState planet = eroded(config);
  const fs::path dir = fs::path(PLANETGEN_BINARY_DIR) / "river_data" / "f32";
  fs::create_directories(dir.parent_path());
  StageTimer timer;
  writePlanet(
      planet, config, dir, timer, [](const std::string&) {}, 1);
  REQUIRE(fs::exists(dir / "rivers.geojson"));
  tinygltf::TinyGLTF loader;
  tinygltf::Model model;
  std::string err, warn;
  REQUIRE(loader.LoadBinaryFromFile(&model, &err, &warn, (dir / "planet.glb").string()));
  std::map<std::string, int> nodes;
  for (size_t i = 0; i < model.nodes.size(); ++i) nodes[model.nodes[i].name] = int(i);
  REQUIRE(nodes.count("Rivers"));
  REQUIRE(nodes.count("Lakes"));
  const auto& root = model.nodes[0].children;
  CHECK(std::count(root.begin(), root.end(), nodes["Rivers"]) == 1);
  const tinygltf::Node& rivers = model.nodes[size_t(nodes["Rivers"])];
  REQUIRE(rivers.mesh >= 0);
  const tinygltf::Primitive& prim = model.meshes[size_t(rivers.mesh)].primitives.at(0);
  CHECK(prim.mode == TINYGLTF_MODE_LINE);
  const size_t count = model.accessors[size_t(prim.attributes.at("POSITION"))].count;
  CHECK(model.accessors[size_t(prim.attributes.at("_DISCHARGE"))].count == count);
  CHECK(model.accessors[size_t(prim.attributes.at("_WIDTH"))].count == count);
  // Indexed: each river a connected polyline (segment k ends where segment k + 1 starts,
  // except where the next river begins), every vertex used.
  REQUIRE(prim.indices >= 0);
  const tinygltf::Accessor& index_accessor = model.accessors[size_t(prim.indices)];
  REQUIRE(index_accessor.componentType == TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT);
  REQUIRE(index_accessor.count % 2 == 0);
  const tinygltf::BufferView& index_view = model.bufferViews[size_t(index_accessor.bufferView)];
  std::vector<uint32_t> ends(index_accessor.count);
  std::memcpy(ends.data(),
              model.buffers[size_t(index_view.buffer)].data.data() + index_view.byteOffset +
                  index_accessor.byteOffset,
              ends.size() * sizeof(uint32_t));
  const size_t glb_segments = ends.size() / 2;
  size_t glb_rivers = 1;
  std::vector<uint8_t> used(count, 0);
  for (size_t k = 0; k < glb_segments; ++k) {
    REQUIRE(ends[2 * k] < count);
    REQUIRE(ends[2 * k + 1] == ends[2 * k] + 1);
    used[ends[2 * k]] = used[ends[2 * k + 1]] = 1;
    if (k > 0 && ends[2 * k] != ends[2 * k - 1]) glb_rivers += 1;
  }
  CHECK(std::count(used.begin(), used.end(), 0) == 0);
  CHECK(count == glb_segments + glb_rivers);
  const nlohmann::json geo = nlohmann::json::parse(std::ifstream(dir / "rivers.geojson"));
  size_t segments = 0, geo_rivers = 0;
  for (const auto& feature : geo["features"]) {
    if (feature["properties"]["kind"] != "river") continue;
    geo_rivers += 1;
    const auto& g = feature["geometry"];
    if (g["type"] == "LineString")
      segments += g["coordinates"].size() - 1;
    else
      for (const auto& part : g["coordinates"]) segments += part.size();  // + 1 cut per part
  }
  CHECK(glb_rivers == geo_rivers);
  CHECK(glb_segments <= segments);
  CHECK(glb_segments >= segments / 2);
  const tinygltf::Node& land = model.nodes[size_t(nodes["Land"])];
  for (const auto& p : model.meshes[size_t(land.mesh)].primitives)
    for (const char* name : {"_FLOW", "_WATER", "_TEMPERATURE"}) CHECK(p.attributes.count(name));

  // Masks: every file of masks.json decodes at the stated size; the flow mask is brighter
  // along the rivers of rivers.geojson than almost everywhere else.
  const nlohmann::json masks = nlohmann::json::parse(std::ifstream(dir / "masks.json"));
  REQUIRE(masks["files"].size() >= 10);
  for (const auto& file : masks["files"]) {
    int w = 0, h = 0, c = 0;
    stbi_us* px = stbi_load_16((dir / file["file"].get<std::string>()).c_str(), &w, &h, &c, 1);
    REQUIRE(px != nullptr);
    CHECK(w == masks["width"].get<int>());
    CHECK(h == masks["height"].get<int>());
    CHECK(w == 512);
    CHECK(h == 256);
    stbi_image_free(px);
  }
  int w = 0, h = 0, c = 0;
  stbi_us* flow = stbi_load_16((dir / "mask_flow.png").c_str(), &w, &h, &c, 1);
  REQUIRE(flow != nullptr);
  std::vector<double> all(flow, flow + size_t(w) * size_t(h));
  double on_rivers = 0.0;
  size_t samples = 0;
  for (const auto& feature : geo["features"]) {
    if (feature["properties"]["kind"] != "river") continue;
    const auto& g = feature["geometry"];
    const auto parts =
        g["type"] == "LineString" ? nlohmann::json::array({g["coordinates"]}) : g["coordinates"];
    for (const auto& part : parts) {
      for (const auto& pt : part) {
        const int x = std::clamp(int((pt[0].get<double>() + 180.0) / 360.0 * w), 0, w - 1);
        const int y = std::clamp(int((90.0 - pt[1].get<double>()) / 180.0 * h), 0, h - 1);
        on_rivers += flow[size_t(y) * size_t(w) + size_t(x)];
        samples += 1;
      }
    }
  }
  stbi_image_free(flow);
  REQUIRE(samples > 0);
  on_rivers /= double(samples);
  std::sort(all.begin(), all.end());
  const double p90 = all[all.size() * 9 / 10];
  INFO("flow mask: mean on rivers " << on_rivers << ", 90th percentile " << p90);
  CHECK(on_rivers > p90);
}

TEST_CASE("rivers: the same rivers.geojson at 1, 2 and 4 threads", "[river_data]") {
  const Fixture& f = defaultPlanet();
  std::vector<std::string> texts;
  for (int threads : {1, 2, 4}) {
    tbb::task_arena arena(threads);
    arena.execute([&] { texts.push_back(riversGeoJson(riversOf(f.planet, f.config), f.planet)); });
  }
  CHECK(texts[0] == texts[1]);
  CHECK(texts[0] == texts[2]);
}
