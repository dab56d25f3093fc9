// Tests of the engine-facing parts of planet.glb (docs/engines.md): texture coordinates and
// tangents, the ocean over the sea floor, quantized attributes and uint16 indices, compression,
// units, the default planet's files (the scene: export/engine_scene_test).

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <numbers>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include <unistd.h>

#include <tiny_gltf.h>
#include <catch2/catch.hpp>
#include <glm/geometric.hpp>
#include <nlohmann/json.hpp>

#include "export/biome_palette.h"
#include "export/mesh_export.h"
#include "geodesy/hash.h"
#include "geodesy/latlon.h"
#include "geodesy/sphere_mesh.h"
#include "support/engine_glb_reading.h"
#include "support/export_internals.h"
#include "support/support.h"
#include "weather/biomes.h"

namespace fs = std::filesystem;
using namespace planet_export;
using namespace engine_fixtures;

TEST_CASE("engine: texture coordinates follow longitude and latitude, no triangle wraps",
          "[export][engine]") {
  TempDir dir;
  TestPlanet planet(16, 0.0);
  for (const GlbOptions& options :
       {GlbOptions{}, GlbOptions{.quantize = true},
        GlbOptions{.chunks = 4, .skirt_depth_m = 1000.0, .quantize = true}}) {
    INFO("chunks " << options.chunks << " quantize " << options.quantize);
    const fs::path file = dir.path / "uv.glb";
    writeGlb(file, planet.surface, options);
    size_t checked = 0, wrapped_copies = 0;
    for (const SeenPrimitive& p : scenePrimitives(loadGlb(file))) {
      if (p.top != "Land") continue;
      REQUIRE(p.component_types.at("TEXCOORD_0") == TINYGLTF_COMPONENT_TYPE_FLOAT);
      const std::vector<float>& uv = p.attributes.at("TEXCOORD_0");
      for (size_t v = 0; v < p.world.size(); ++v) {
        const geodesy::LatLon ll = geodesy::unitToLatLon(glm::normalize(p.world[v]));
        const double u_expected = (ll.lon_rad + std::numbers::pi) / (2.0 * std::numbers::pi);
        const double v_expected = (0.5 * std::numbers::pi - ll.lat_rad) / std::numbers::pi;
        REQUIRE(std::abs(double(uv[2 * v + 1]) - v_expected) <= 1e-6);
        REQUIRE(uv[2 * v] >= 0.0f);
        REQUIRE(uv[2 * v] < 1.5f);
        wrapped_copies += uv[2 * v] >= 1.0f ? 1 : 0;
        if (std::cos(ll.lat_rad) > 1e-6) {  // at a pole any u will do
          REQUIRE(wrapDistance(uv[2 * v], u_expected) <= 1e-6);
        }
        ++checked;
      }
      for (size_t t = 0; t < p.indices.size(); t += 3) {
        float lo = 2.0f, hi = -1.0f;
        for (int k = 0; k < 3; ++k) {
          lo = std::min(lo, uv[2 * p.indices[t + size_t(k)]]);
          hi = std::max(hi, uv[2 * p.indices[t + size_t(k)]]);
        }
        REQUIRE(hi - lo <= 0.5f);
      }
    }
    CHECK(checked >= planet.mesh.vertexCount());
    CHECK(wrapped_copies > 0);
  }
}

TEST_CASE("engine: tangents point east in the surface, with the bitangent north",
          "[export][engine]") {
  TempDir dir;
  TestPlanet planet(16, 0.0);
  const fs::path file = dir.path / "tangents.glb";
  writeGlb(file, planet.surface, GlbOptions{.quantize = true, .tangents = true});
  size_t checked = 0;
  for (const SeenPrimitive& p : scenePrimitives(loadGlb(file))) {
    if (p.top != "Land") continue;
    REQUIRE(p.component_types.at("TANGENT") == TINYGLTF_COMPONENT_TYPE_BYTE);
    const std::vector<float>& t = p.attributes.at("TANGENT");
    const std::vector<float>& n = p.attributes.at("NORMAL");
    for (size_t v = 0; v < p.world.size(); ++v) {
      const glm::dvec3 tangent(t[4 * v], t[4 * v + 1], t[4 * v + 2]);
      const glm::dvec3 normal(n[3 * v], n[3 * v + 1], n[3 * v + 2]);
      REQUIRE(std::abs(glm::length(tangent) - 1.0) <= 0.02);
      REQUIRE(std::abs(glm::dot(tangent, normal)) <= 0.03);
      REQUIRE(std::abs(t[4 * v + 3]) == 1.0f);
      const glm::dvec3 d = glm::normalize(p.world[v]);
      if (std::hypot(d.x, d.z) < 1e-6) continue;  // pole: east is a convention there
      REQUIRE(glm::dot(tangent, geodesy::eastAt(d)) > 0.7);
      const glm::dvec3 bitangent = glm::cross(normal, tangent) * double(t[4 * v + 3]);
      REQUIRE(glm::dot(bitangent, geodesy::northAt(d)) > 0.7);
      ++checked;
    }
  }
  CHECK(checked > planet.mesh.vertexCount() / 2);
}

// normals.png is a tangent-space map relative to the smooth sphere (east, north, radial), not to
// this mesh's own normals, which already carry the same relief: the file must not declare it
// as the land's normalTexture, so engines never need TANGENT for it (README, docs/engines.md).
TEST_CASE("engine: no material declares a normal texture, TANGENT only when asked",
          "[export][engine]") {
  TempDir dir;
  TestPlanet planet(16, 0.0);
  for (const bool tangents : {false, true}) {
    const fs::path file = dir.path / "material.glb";
    writeGlb(file, planet.surface,
             GlbOptions{.chunks = 2, .lods = 1, .quantize = true, .tangents = tangents});
    const nlohmann::json json = glbJson(file);
    for (const nlohmann::json& material : json["materials"]) {
      CHECK_FALSE(material.contains("normalTexture"));
      CHECK_FALSE(material.contains("occlusionTexture"));
    }
    size_t with_tangent = 0;
    for (const nlohmann::json& mesh : json["meshes"])
      for (const nlohmann::json& p : mesh["primitives"])
        with_tangent += p["attributes"].contains("TANGENT");
    INFO("tangents = " << tangents);
    CHECK((with_tangent > 0) == tangents);
  }
}

TEST_CASE("engine: no land vertex below sea level shows above the ocean", "[export][engine]") {
  TempDir dir;
  for (const double rough : {0.0, 3000.0}) {
    TestPlanet planet(16, rough);
    for (const int chunks : {0, 2}) {
      INFO("rough " << rough << " chunks " << chunks);
      const fs::path file = dir.path / "ocean.glb";
      writeGlb(file, planet.surface, GlbOptions{.chunks = chunks, .quantize = true});
      const size_t wet = checkOceanCovers(scenePrimitives(loadGlb(file)), 0.0);
      CHECK(wet > planet.mesh.vertexCount() / 5);
    }
  }
}

TEST_CASE("engine: quantized attributes, uint16 indices, custom attributes kept",
          "[export][engine]") {
  TempDir dir;
  TestPlanet planet(16, 0.0);
  writeGlb(dir.path / "float.glb", planet.surface);
  writeGlb(dir.path / "quantized.glb", planet.surface, GlbOptions{.quantize = true});
  const nlohmann::json json = glbJson(dir.path / "quantized.glb");
  CHECK(json["extensionsRequired"] == nlohmann::json::array({"KHR_mesh_quantization"}));
  CHECK_FALSE(glbJson(dir.path / "float.glb").contains("extensionsRequired"));
  const std::vector<SeenPrimitive> q = scenePrimitives(loadGlb(dir.path / "quantized.glb"));
  const std::vector<SeenPrimitive> f = scenePrimitives(loadGlb(dir.path / "float.glb"));
  REQUIRE(q.size() == f.size());
  for (size_t i = 0; i < q.size(); ++i) {
    INFO(q[i].node);
    CHECK(q[i].index_type == TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT);
    CHECK(q[i].indices == f[i].indices);
    CHECK(q[i].world == f[i].world);  // positions stay float32
    CHECK(q[i].component_types.at("NORMAL") == TINYGLTF_COMPONENT_TYPE_BYTE);
    const std::vector<float>& nq = q[i].attributes.at("NORMAL");
    const std::vector<float>& nf = f[i].attributes.at("NORMAL");
    for (size_t k = 0; k < nq.size(); ++k)
      REQUIRE(std::abs(nq[k] - nf[k]) <= 0.5f / 127.0f + 1e-6f);
    if (q[i].top != "Land") continue;
    CHECK(q[i].component_types.at("COLOR_0") == TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE);
    const std::vector<float>& cq = q[i].attributes.at("COLOR_0");
    const std::vector<float>& cf = f[i].attributes.at("COLOR_0");
    for (size_t k = 0; k < cq.size(); ++k)
      REQUIRE(std::abs(cq[k] - cf[k]) <= 0.5f / 255.0f + 1e-6f);
    for (const char* name : {"_ELEVATION", "_BIOME", "_EROSION", "TEXCOORD_0"}) {
      CHECK(q[i].component_types.at(name) == TINYGLTF_COMPONENT_TYPE_FLOAT);
      CHECK(q[i].attributes.at(name) == f[i].attributes.at(name));
    }
  }
  CHECK(fs::file_size(dir.path / "quantized.glb") < fs::file_size(dir.path / "float.glb"));
}

TEST_CASE("engine: meshopt compression is declared required, with a fallback buffer",
          "[export][engine]") {
  if (!meshoptAvailable()) {
    WARN("built without meshoptimizer: skipped");
    return;
  }
  TempDir dir;
  TestPlanet planet(16, 0.0);
  writeGlb(dir.path / "q.glb", planet.surface, GlbOptions{.quantize = true});
  writeGlb(dir.path / "m.glb", planet.surface, GlbOptions{.quantize = true, .meshopt = true});
  const nlohmann::json json = glbJson(dir.path / "m.glb");
  CHECK(json["extensionsRequired"] ==
        nlohmann::json::array({"KHR_mesh_quantization", "EXT_meshopt_compression"}));
  REQUIRE(json["buffers"].size() == 2);
  CHECK(json["buffers"][1]["extensions"]["EXT_meshopt_compression"]["fallback"] == true);
  CHECK_FALSE(json["buffers"][1].contains("uri"));
  for (const nlohmann::json& view : json["bufferViews"]) {
    CHECK(view["buffer"] == 1);
    const nlohmann::json& ext = view["extensions"]["EXT_meshopt_compression"];
    CHECK(ext["buffer"] == 0);
    CHECK(ext["byteLength"].get<size_t>() < view["byteLength"].get<size_t>());
  }
  // The binary chunk shrinks (the default planet's figures are checked in the
  // [default_planet] case).
  const size_t compressed = json["buffers"][0]["byteLength"];
  const size_t plain = glbJson(dir.path / "q.glb")["buffers"][0]["byteLength"];
  CHECK(compressed * 3 < plain * 2);
  CHECK(json["buffers"][1]["byteLength"].get<size_t>() >= plain);
}

TEST_CASE("engine: units scale the Planet node, not the data", "[export][engine]") {
  TempDir dir;
  TestPlanet planet(8, 0.0);
  writeGlb(dir.path / "m.glb", planet.surface, GlbOptions{});
  writeGlb(dir.path / "km.glb", planet.surface, GlbOptions{.metres_per_unit = 1000.0});
  const tinygltf::Model km = loadGlb(dir.path / "km.glb");
  CHECK(km.nodes[0].scale == std::vector<double>{0.001, 0.001, 0.001});
  const std::vector<SeenPrimitive> a = scenePrimitives(loadGlb(dir.path / "m.glb"));
  const std::vector<SeenPrimitive> b = scenePrimitives(km);
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].attributes == b[i].attributes);
    for (size_t v = 0; v < a[i].world.size(); ++v) {
      REQUIRE(b[i].world[v] == a[i].world[v] * 0.001);
    }
  }
  CHECK_THAT(glbOptionsProblem(8, GlbOptions{.metres_per_unit = 0.0}),
             Catch::Contains("metres per unit"));
}

namespace {

// Vertices in a file: the sum of the counts of its distinct POSITION accessors.
size_t fileVertices(const nlohmann::json& json) {
  std::vector<int> seen;
  size_t n = 0;
  for (const nlohmann::json& mesh : json["meshes"]) {
    for (const nlohmann::json& p : mesh["primitives"]) {
      const int a = p["attributes"]["POSITION"];
      if (std::find(seen.begin(), seen.end(), a) != seen.end()) continue;
      seen.push_back(a);
      n += json["accessors"][size_t(a)]["count"].get<size_t>();
    }
  }
  return n;
}

}  // namespace

// Hidden from the default run: reads the files the CTest fixtures write with
// configs/default.toml (out/default, and out/default_meshopt with [export] meshopt = true).
TEST_CASE("engine: the default planet's glb, plain and compressed", "[.default_planet]") {
  const fs::path out = fs::path(PLANETGEN_BINARY_DIR) / "out";
  const fs::path plain = out / "default/planet.glb";
  const nlohmann::json json = glbJson(plain);
  const double sea_level = json["nodes"][0]["extras"]["sea_level_m"];
  const size_t vertices = fileVertices(json);
  const double per_vertex = double(fs::file_size(plain)) / double(vertices);
  WARN("default planet.glb: " << fs::file_size(plain) << " bytes, " << vertices
                              << " vertices (land and ocean): " << per_vertex
                              << " bytes per vertex");
  CHECK(per_vertex <= 45.0);
  CHECK(json["extensionsRequired"] == nlohmann::json::array({"KHR_mesh_quantization"}));
  const std::vector<SeenPrimitive> prims = scenePrimitives(loadGlb(plain));
  for (const SeenPrimitive& p : prims) {
    if (p.top != "Land") continue;
    for (const char* name : {"_ELEVATION", "_BIOME", "_EROSION", "TEXCOORD_0", "COLOR_0"}) {
      CHECK(p.attributes.count(name) == 1);
    }
  }
  const size_t wet = checkOceanCovers(prims, sea_level);
  WARN("default planet: " << wet << " land vertices below sea level, all under the ocean");
  CHECK(wet > 10000);

  if (!meshoptAvailable()) return;
  const fs::path compressed = out / "default_meshopt/planet.glb";
  const nlohmann::json cjson = glbJson(compressed);
  const size_t cvertices = fileVertices(cjson);
  CHECK(cvertices == vertices);
  const double cper_vertex = double(fs::file_size(compressed)) / double(cvertices);
  WARN("default planet.glb with meshopt: " << fs::file_size(compressed) << " bytes: " << cper_vertex
                                           << " bytes per vertex");
  CHECK(cper_vertex <= 20.0);
}

TEST_CASE("engine: a planet without water has an empty Ocean node", "[export][engine]") {
  TempDir dir;
  TestPlanet planet(8, 0.0);
  planet.surface.sea_level_m = -1e5;  // below every vertex
  const fs::path file = dir.path / "dry.glb";
  writeGlb(file, planet.surface, GlbOptions{.quantize = true});
  const tinygltf::Model model = loadGlb(file);
  REQUIRE(model.nodes.size() >= 3);
  CHECK(model.nodes[2].name == "Ocean");
  CHECK(model.nodes[2].mesh == -1);
  for (const tinygltf::Mesh& mesh : model.meshes) CHECK_FALSE(mesh.primitives.empty());
  CHECK(triangles(scenePrimitives(model), "Land") == 20 * 8 * 8);
}
