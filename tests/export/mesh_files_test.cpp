// Tests of export/: the engine files read back by independent readers (tinygltf,
// tinyobjloader, assimp, the Khronos glTF-Validator), surfaces rejected, normals, maps and
// engine files independent of the thread count (the TSan stage of .ci/sanitizers runs it here).

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <sys/resource.h>
#include <unistd.h>

#include <stb_image.h>
#include <tbb/global_control.h>
#include <tbb/task_arena.h>
#include <tiny_gltf.h>
#include <tiny_obj_loader.h>
#include <catch2/catch.hpp>
#include <glm/geometric.hpp>
#include <nlohmann/json.hpp>

#include "export/colour_ramps.h"
#include "export/equirect_sampler.h"
#include "export/globe.h"
#include "export/maps.h"
#include "export/mesh_export.h"
#include "export/png_io.h"
#include "export/shared_normals.h"
#include "export/surface_maps.h"
#include "geodesy/sphere_mesh.h"
#include "io/atomic_file.h"
#include "planetgen_version.h"
#include "support/export_internals.h"
#include "support/export_test_planet.h"
#include "support/glb_read.h"
#include "support/support.h"

namespace fs = std::filesystem;
using namespace planet_export;
using namespace export_fixtures;

namespace {

size_t icosphereVertices(int f) {
  return size_t(10 * f * f + 2);
}
size_t icosphereFaces(int f) {
  return size_t(20 * f * f);
}

// The ocean both writers build: the mesh's triangles with a corner below sea level.
struct WetCounts {
  size_t vertices = 0;
  size_t faces = 0;
};
WetCounts wetCounts(const TestPlanet& planet) {
  std::set<uint32_t> vertices;
  WetCounts counts;
  for (size_t f = 0; f < planet.mesh.faceCount(); ++f) {
    const uint32_t* corner = &planet.mesh.indices[3 * f];
    if (planet.elevation[corner[0]] < kSeaLevel || planet.elevation[corner[1]] < kSeaLevel ||
        planet.elevation[corner[2]] < kSeaLevel) {
      ++counts.faces;
      vertices.insert(corner, corner + 3);
    }
  }
  counts.vertices = vertices.size();
  return counts;
}

using test_support::loadGlb;

using test_support::accessorFloats;
using test_support::glbJson;
using test_support::indicesOf;

}  // namespace

TEST_CASE("export: glb reads back with tinygltf", "[export]") {
  TempDir dir;
  TestPlanet planet;
  const fs::path file = dir.path / "planet.glb";
  writeGlb(file, planet.surface);
  const tinygltf::Model model = loadGlb(file);
  const size_t land_vertices = icosphereVertices(8);

  CHECK(model.asset.version == "2.0");
  CHECK(model.asset.generator == std::string("planetgen ") + planetgen::kVersion);

  SECTION("scene: Planet with children Land and Ocean") {
    REQUIRE(model.scenes.size() == 1);
    REQUIRE(model.scenes[0].nodes.size() == 1);
    const tinygltf::Node& root = model.nodes[size_t(model.scenes[0].nodes[0])];
    CHECK(root.name == "Planet");
    CHECK(root.mesh == -1);
    REQUIRE(root.children.size() == 2);
    CHECK(model.nodes[size_t(root.children[0])].name == "Land");
    CHECK(model.nodes[size_t(root.children[1])].name == "Ocean");
    CHECK(model.nodes.size() == 3);
  }

  const tinygltf::Primitive& land = model.meshes[0].primitives.at(0);
  const tinygltf::Primitive& ocean = model.meshes[1].primitives.at(0);
  REQUIRE(model.meshes[0].primitives.size() == 1);  // 642 vertices fit uint16 indices
  REQUIRE(model.nodes[1].mesh == 0);
  REQUIRE(model.nodes[2].mesh == 1);
  // The mesh's vertices in order, then copies along the seam and at the poles (engine_pieces.h).
  const size_t written = model.accessors[size_t(land.attributes.at("POSITION"))].count;
  CHECK(written > land_vertices);
  CHECK(written <= land_vertices + 4 * 8 + 32);

  SECTION("land: attributes, counts and types") {
    CHECK(land.mode == TINYGLTF_MODE_TRIANGLES);
    for (const char* name :
         {"POSITION", "NORMAL", "COLOR_0", "TEXCOORD_0", "_ELEVATION", "_EROSION"}) {
      INFO(name);
      REQUIRE(land.attributes.count(name) == 1);
      const tinygltf::Accessor& accessor = model.accessors[size_t(land.attributes.at(name))];
      CHECK(accessor.count == written);
      CHECK(accessor.componentType == TINYGLTF_COMPONENT_TYPE_FLOAT);
      const bool scalar = name[0] == '_';
      const int type = name[0] == 'T' ? TINYGLTF_TYPE_VEC2 : TINYGLTF_TYPE_VEC3;
      CHECK(accessor.type == (scalar ? TINYGLTF_TYPE_SCALAR : type));
    }
    CHECK(land.attributes.count("TANGENT") == 0);  // only on request
    const tinygltf::Accessor& indices = model.accessors[size_t(land.indices)];
    CHECK(indices.componentType == TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT);
    CHECK(indices.count == 3 * icosphereFaces(8));
    // Every corner is the mesh's corner, or a copy of it at the same place.
    const std::vector<uint32_t> written_indices = indicesOf(model, land.indices);
    const std::vector<float> positions = accessorFloats(model, land.attributes.at("POSITION"));
    for (size_t i = 0; i < written_indices.size(); ++i) {
      const uint32_t w = written_indices[i];
      const glm::dvec3 p(positions[3 * w], positions[3 * w + 1], positions[3 * w + 2]);
      REQUIRE(glm::dot(glm::normalize(p),
                       glm::dvec3(planet.mesh.positions[planet.mesh.indices[i]])) > 0.999999);
    }
  }

  SECTION("land: POSITION in metres with exact min/max") {
    const std::vector<float> positions = accessorFloats(model, land.attributes.at("POSITION"));
    const tinygltf::Accessor& accessor = model.accessors[size_t(land.attributes.at("POSITION"))];
    REQUIRE(accessor.minValues.size() == 3);
    REQUIRE(accessor.maxValues.size() == 3);
    for (size_t c = 0; c < 3; ++c) {
      float lo = positions[c], hi = positions[c];
      for (size_t v = 0; v < land_vertices; ++v) {
        lo = std::min(lo, positions[3 * v + c]);
        hi = std::max(hi, positions[3 * v + c]);
      }
      CHECK(accessor.minValues[c] == double(lo));
      CHECK(accessor.maxValues[c] == double(hi));
    }
    for (size_t v = 0; v < land_vertices; ++v) {
      const glm::dvec3 p(positions[3 * v], positions[3 * v + 1], positions[3 * v + 2]);
      const double expected = kRadius + planet.elevation[v];
      REQUIRE(glm::length(p) == Approx(expected).epsilon(1e-6));
      REQUIRE(glm::dot(glm::normalize(p), glm::dvec3(planet.mesh.positions[v])) > 0.999999);
    }
  }

  SECTION("land: NORMAL unit length and outward") {
    const std::vector<float> normals = accessorFloats(model, land.attributes.at("NORMAL"));
    for (size_t v = 0; v < land_vertices; ++v) {
      const glm::dvec3 n(normals[3 * v], normals[3 * v + 1], normals[3 * v + 2]);
      REQUIRE(std::abs(glm::length(n) - 1.0) <= 1e-5);
      REQUIRE(glm::dot(n, glm::dvec3(planet.mesh.positions[v])) > 0.9);
    }
  }

  SECTION("land: _ELEVATION and custom attributes equal the input exactly") {
    const auto first = [&](const char* name) {
      std::vector<float> values = accessorFloats(model, land.attributes.at(name));
      values.resize(land_vertices);
      return values;
    };
    CHECK(first("_ELEVATION") == planet.elevation);
    CHECK(first("_EROSION") == planet.erosion);
  }

  SECTION("land: COLOR_0 is the linear terrain tint") {
    const std::vector<float> colours = accessorFloats(model, land.attributes.at("COLOR_0"));
    for (size_t v = 0; v < land_vertices; ++v) {
      const Rgb expected = terrainColour(planet.elevation[v], kSeaLevel);
      REQUIRE(colours[3 * v] == Approx(srgbToLinear(expected.r)));
      REQUIRE(colours[3 * v + 2] == Approx(srgbToLinear(expected.b)));
    }
  }

  SECTION("ocean: the land mesh's wet triangles at sea level, a blended material") {
    const std::vector<float> positions = accessorFloats(model, ocean.attributes.at("POSITION"));
    size_t wet_faces = 0;
    for (size_t f = 0; f < planet.mesh.faceCount(); ++f) {
      bool wet = false;
      for (int k = 0; k < 3; ++k)
        wet = wet || planet.elevation[planet.mesh.indices[3 * f + size_t(k)]] < kSeaLevel;
      wet_faces += wet ? 1 : 0;
    }
    REQUIRE(wet_faces > 0);
    CHECK(model.accessors[size_t(ocean.indices)].count == 3 * wet_faces);
    CHECK(positions.size() / 3 <= land_vertices);
    for (size_t v = 0; 3 * v < positions.size(); ++v) {
      const glm::dvec3 p(positions[3 * v], positions[3 * v + 1], positions[3 * v + 2]);
      REQUIRE(glm::length(p) == Approx(kRadius + kSeaLevel).epsilon(1e-6));
    }
    CHECK(ocean.attributes.count("NORMAL") == 1);
    const tinygltf::Material& water = model.materials[size_t(ocean.material)];
    CHECK(water.alphaMode == "BLEND");
    CHECK(water.pbrMetallicRoughness.baseColorFactor[3] < 1.0);
    CHECK(water.pbrMetallicRoughness.baseColorFactor[2] >
          water.pbrMetallicRoughness.baseColorFactor[0]);
    const tinygltf::Material& ground = model.materials[size_t(land.material)];
    CHECK(ground.alphaMode == "OPAQUE");
    CHECK(ground.pbrMetallicRoughness.baseColorFactor == std::vector<double>{1, 1, 1, 1});
    CHECK(ground.pbrMetallicRoughness.roughnessFactor == Approx(0.9));
    CHECK(ground.pbrMetallicRoughness.metallicFactor == 0.0);
  }

  SECTION("extras: the seed and configuration, 64-bit exact") {
    CHECK(model.nodes[0].extras.Has("seed"));
    CHECK(model.nodes[0].extras.Has("config"));
    const nlohmann::json json = glbJson(file);
    const nlohmann::json& extras = json["nodes"][0]["extras"];
    CHECK(extras["seed"].get<uint64_t>() == kSeed);
    CHECK(extras["frequency"].get<int>() == 8);
    // Nested values are stored as JSON text (assimp 5.2 aborts on nested extras).
    REQUIRE(extras["config"].is_string());
    CHECK(nlohmann::json::parse(extras["config"].get<std::string>())["terrain"]["octaves"] == 8);
  }
}

TEST_CASE("export: obj reads back with tinyobjloader", "[export]") {
  TempDir dir;
  TestPlanet planet;
  writeObj(dir.path / "planet.obj", dir.path / "planet.mtl", "planet.mtl", planet.surface);
  const std::string text = readFile(dir.path / "planet.obj");
  CHECK(text.find("mtllib planet.mtl\n") != std::string::npos);
  CHECK(text.find("o Land\nusemtl Land\n") != std::string::npos);
  CHECK(text.find("o Ocean\nusemtl Ocean\n") != std::string::npos);

  tinyobj::attrib_t attrib;
  std::vector<tinyobj::shape_t> shapes;
  std::vector<tinyobj::material_t> materials;
  std::string warning, error;
  const std::string obj_path = (dir.path / "planet.obj").string();
  const std::string base = dir.path.string() + "/";
  const bool ok = tinyobj::LoadObj(&attrib, &shapes, &materials, &warning, &error, obj_path.c_str(),
                                   base.c_str(), true, false);
  INFO("tinyobjloader error: " << error << " warning: " << warning);
  REQUIRE(ok);
  const size_t land_vertices = icosphereVertices(8);
  const size_t ocean_vertices = wetCounts(planet).vertices;
  const size_t total = land_vertices + ocean_vertices;

  CHECK(attrib.vertices.size() == 3 * total);
  CHECK(attrib.normals.size() == 3 * total);
  REQUIRE(attrib.colors.size() == 3 * total);
  REQUIRE(shapes.size() == 2);
  CHECK(shapes[0].name == "Land");
  CHECK(shapes[1].name == "Ocean");
  CHECK(shapes[0].mesh.num_face_vertices.size() == icosphereFaces(8));
  CHECK(shapes[1].mesh.num_face_vertices.size() == wetCounts(planet).faces);

  REQUIRE(materials.size() == 2);
  CHECK(materials[0].name == "Land");
  CHECK(materials[1].name == "Ocean");
  CHECK(materials[1].dissolve == Approx(0.6));
  CHECK(materials[1].diffuse[2] > materials[1].diffuse[0]);
  CHECK(shapes[0].mesh.material_ids.front() == 0);
  CHECK(shapes[1].mesh.material_ids.front() == 1);

  // Faces reference normals, the normal index equals the vertex index, ocean indices offset.
  for (size_t s = 0; s < 2; ++s) {
    for (const tinyobj::index_t& index : shapes[s].mesh.indices) {
      REQUIRE(index.normal_index == index.vertex_index);
      REQUIRE((s == 0 ? index.vertex_index < int(land_vertices)
                      : index.vertex_index >= int(land_vertices)));
    }
  }
  for (size_t i = 0; i < shapes[0].mesh.indices.size(); ++i) {
    REQUIRE(uint32_t(shapes[0].mesh.indices[i].vertex_index) == planet.mesh.indices[i]);
  }
  for (size_t v = 0; v < total; ++v) {
    const glm::dvec3 n(attrib.normals[3 * v], attrib.normals[3 * v + 1], attrib.normals[3 * v + 2]);
    REQUIRE(std::abs(glm::length(n) - 1.0) <= 1e-5);
  }
  // Colours are the sRGB terrain tint (4 decimals).
  for (size_t v = 0; v < land_vertices; ++v) {
    const Rgb expected = terrainColour(planet.elevation[v], kSeaLevel);
    REQUIRE(attrib.colors[3 * v] == Approx(expected.r).margin(1e-4));
    REQUIRE(attrib.colors[3 * v + 1] == Approx(expected.g).margin(1e-4));
  }
  // The OBJ carries the same float positions as the GLB, bit for bit.
  writeGlb(dir.path / "planet.glb", planet.surface);
  const tinygltf::Model model = loadGlb(dir.path / "planet.glb");
  std::vector<float> glb_positions =
      accessorFloats(model, model.meshes[0].primitives[0].attributes.at("POSITION"));
  glb_positions.resize(3 * land_vertices);  // without the seam copies
  const std::vector<float> obj_positions(attrib.vertices.begin(),
                                         attrib.vertices.begin() + ptrdiff_t(3 * land_vertices));
  CHECK(obj_positions == glb_positions);
}

// Hidden from the default run: needs `npm ci` in tests/tools, which the CTest fixture
// npm_ci_tools performs before the export_gltf_validator test (tests/CMakeLists.txt).
TEST_CASE("export: glb passes the Khronos glTF-Validator with no warnings",
          "[export][.validator]") {
  TempDir dir;
  TestPlanet planet;
  const fs::path file = dir.path / "planet.glb";
  writeGlb(file, planet.surface);
  const fs::path script = fs::path(PLANETGEN_SOURCE_DIR) / "tests/tools/validate.mjs";
  REQUIRE(fs::exists(fs::path(PLANETGEN_SOURCE_DIR) / "tests/tools/node_modules/gltf-validator"));
  const CommandResult result = run("node " + quoted(script) + " " + quoted(file));
  INFO(result.output);
  REQUIRE(result.exit_code != 2);
  const nlohmann::json report = nlohmann::json::parse(result.output);
  const nlohmann::json& issues = report["issues"];
  WARN("glTF-Validator " << report["validatorVersion"].get<std::string>() << ": "
                         << issues["numErrors"] << " errors, " << issues["numWarnings"]
                         << " warnings, " << issues["numInfos"] << " infos, " << issues["numHints"]
                         << " hints");
  CHECK(issues["numErrors"].get<int>() == 0);
  CHECK(issues["numWarnings"].get<int>() == 0);
  CHECK(result.exit_code == 0);
}

TEST_CASE("export: assimp loads the glb and the obj", "[export]") {
  if (run("command -v assimp").exit_code != 0) {
    WARN("assimp binary not found: skipped");
    return;
  }
  TempDir dir;
  TestPlanet planet;
  writeGlb(dir.path / "planet.glb", planet.surface);
  writeObj(dir.path / "planet.obj", dir.path / "planet.mtl", "planet.mtl", planet.surface);
  const tinygltf::Model model = loadGlb(dir.path / "planet.glb");
  const auto count = [&](int mesh, const char* what) {
    const tinygltf::Primitive& p = model.meshes[size_t(mesh)].primitives.at(0);
    return what[0] == 'v' ? model.accessors[size_t(p.attributes.at("POSITION"))].count
                          : model.accessors[size_t(p.indices)].count / 3;
  };
  struct Expected {
    const char* file;
    size_t land_vertices, land_faces, ocean_vertices, ocean_faces;
  };
  for (const Expected& e :
       {Expected{"planet.glb", count(0, "v"), count(0, "f"), count(1, "v"), count(1, "f")},
        Expected{"planet.obj", icosphereVertices(8), icosphereFaces(8), wetCounts(planet).vertices,
                 wetCounts(planet).faces}}) {
    INFO(e.file);
    // glb with -r: no post-processing, which would weld seam copies that happen to coincide.
    const bool glb = e.file[std::strlen(e.file) - 1] == 'b';
    const CommandResult result =
        run("assimp info " + quoted(dir.path / e.file) + (glb ? " -r" : ""));
    INFO(result.output);
    REQUIRE(result.exit_code == 0);
    CHECK(result.output.find("Meshes:             2") != std::string::npos);
    CHECK(result.output.find("Faces:              " +
                             std::to_string(e.land_faces + e.ocean_faces)) != std::string::npos);
    CHECK(result.output.find("(Land): [" + std::to_string(e.land_vertices) + " / 0 / " +
                             std::to_string(e.land_faces)) != std::string::npos);
    CHECK(result.output.find("(Ocean): [" + std::to_string(e.ocean_vertices) + " / 0 / " +
                             std::to_string(e.ocean_faces)) != std::string::npos);
  }
}

TEST_CASE("export: invalid surfaces are rejected before any file is written", "[export]") {
  TempDir dir;
  TestPlanet planet(2);
  const fs::path file = dir.path / "planet.glb";
  SECTION("elevation size") {
    planet.surface.elevation_m = std::span(planet.elevation).first(3);
    CHECK_THROWS_AS(writeGlb(file, planet.surface), std::invalid_argument);
  }
  SECTION("attribute name without underscore") {
    planet.surface.attributes = {{"EROSION", planet.erosion}};
    CHECK_THROWS_AS(writeGlb(file, planet.surface), std::invalid_argument);
  }
  SECTION("duplicate _ELEVATION") {
    planet.surface.attributes = {{"_ELEVATION", planet.erosion}};
    CHECK_THROWS_AS(writeGlb(file, planet.surface), std::invalid_argument);
  }
  SECTION("non-finite elevation") {
    planet.elevation[5] = std::nanf("");
    CHECK_THROWS_WITH(writeObj(file, dir.path / "x.mtl", "x.mtl", planet.surface),
                      Catch::Contains("elevation_m[5]"));
  }
  SECTION("elevation below the centre: the first such vertex is named") {
    planet.elevation[7] = float(-2.0 * planet.surface.radius_m);
    planet.elevation[9] = float(-2.0 * planet.surface.radius_m);
    CHECK_THROWS_WITH(writeGlb(file, planet.surface),
                      Catch::Contains("elevation_m[7] puts the vertex at or below the centre"));
  }
  SECTION("elevation exactly at the centre, and an infinite one: the first is named") {
    planet.elevation[8] = -std::numeric_limits<float>::infinity();
    planet.elevation[3] = float(-planet.surface.radius_m);  // radius + e == 0 exactly
    CHECK_THROWS_WITH(writeGlb(file, planet.surface),
                      Catch::Contains("elevation_m[3] puts the vertex at or below the centre"));
  }
  SECTION("an index out of range: the first one is named") {
    planet.mesh.indices[10] = uint32_t(planet.mesh.vertexCount());
    planet.mesh.indices[20] = UINT32_MAX;
    CHECK_THROWS_WITH(writeGlb(file, planet.surface), Catch::Contains("index 10 is out of range"));
  }
  SECTION("a biome class out of range: the first one is named") {
    std::vector<uint8_t> biome(planet.elevation.size(), 0);
    biome[11] = 12;
    biome[13] = 200;
    planet.surface.biome = biome;
    CHECK_THROWS_WITH(writeGlb(file, planet.surface), Catch::Contains("biome[11] = 12"));
  }
  SECTION("an attribute value not finite: the first one is named") {
    std::vector<float> values(planet.elevation.size(), 1.0f);
    values[4] = std::numeric_limits<float>::infinity();
    values[6] = std::nanf("");
    planet.surface.attributes = {{"_WEAR", values}};
    CHECK_THROWS_WITH(writeGlb(file, planet.surface), Catch::Contains("_WEAR[4] is not finite"));
  }
  SECTION("extras not an object") {
    planet.surface.extras_json = "42";
    CHECK_THROWS_AS(writeGlb(file, planet.surface), std::invalid_argument);
  }
  CHECK(dir.names().empty());
}

TEST_CASE("export: normals of an undisplaced sphere are radial and unit", "[export]") {
  const geodesy::SphereMesh mesh = geodesy::buildIcosphere(6);
  const std::vector<float> flat(mesh.vertexCount(), 0.0f);
  const std::vector<glm::vec3> normals = displacedVertexNormals(mesh, flat, kRadius);
  for (size_t v = 0; v < mesh.vertexCount(); ++v) {
    const glm::dvec3 n(normals[v]);
    REQUIRE(std::abs(glm::length(n) - 1.0) <= 1e-6);
    REQUIRE(glm::dot(n, glm::normalize(glm::dvec3(mesh.positions[v]))) > 0.999);
  }
  const glm::vec3 skewed = toUnitFloat(glm::dvec3(3.0, 1e-9, -7.0));
  CHECK(std::abs(glm::length(glm::dvec3(skewed)) - 1.0) <= 1e-6);
}

TEST_CASE("export: the OBJ's colour digits equal std::to_chars fixed 4", "[export]") {
  // Every 97th float of [0, 1] (the bit patterns are ordered as the values), the exact ties
  // m / 64 (value * 10^4 ends in .5: to_chars rounds them to even), and values outside [0, 1].
  std::vector<float> values;
  for (uint32_t bits = 0; bits <= std::bit_cast<uint32_t>(1.0f); bits += 97)
    values.push_back(std::bit_cast<float>(bits));
  for (int m = 0; m <= 64; ++m) values.push_back(float(m) / 64.0f);
  for (float v : {1.0f, -0.0f, -0.3f, 1.00001f, 7.5f}) values.push_back(v);
  size_t different = 0;
  for (float v : values) {
    char expected[32], got[32];
    char* e = std::to_chars(expected, expected + 32, std::clamp(v, 0.0f, 1.0f),
                            std::chars_format::fixed, 4)
                  .ptr;
    char* g = putUnitFixed4(got, v);
    different += std::string_view(expected, e) != std::string_view(got, g);
  }
  CHECK(values.size() > 10000000);
  CHECK(different == 0);
}

TEST_CASE("export: roundHalfAway and toByte round as std::lround", "[export]") {
  // Every 1001st float up to 2^24 in magnitude, the halves k + 0.5 (lround takes them away from
  // zero) and the floats next to them, both signs; toByte also for NaN and out-of-range values.
  std::vector<float> values;
  for (uint32_t bits = 0; bits <= std::bit_cast<uint32_t>(16777216.0f); bits += 1001)
    values.push_back(std::bit_cast<float>(bits));
  for (int k = 0; k < 300; ++k) {
    const float half = float(k) + 0.5f;
    values.insert(values.end(), {half, std::nextafter(half, 0.0f), std::nextafter(half, 1e9f)});
  }
  size_t different = 0;
  for (const float magnitude : values)
    for (const float x : {magnitude, -magnitude}) different += roundHalfAway(x) != std::lround(x);
  CHECK(values.size() > 1000000);
  CHECK(different == 0);
  for (const float c : {0.0f, -0.0f, 0.5f / 255.0f, 1.5f / 255.0f, 0.5f, 1.0f, 1.5f, -2.0f})
    CHECK(toByte(c) == uint8_t(std::lround(std::clamp(c, 0.0f, 1.0f) * 255.0f)));
  CHECK(toByte(std::numeric_limits<float>::quiet_NaN()) == 0);
}

TEST_CASE("export: the OBJ's shortest floats equal std::to_chars", "[export]") {
  // Both signs: every 7th float of [2^20, 2^24) (the fast path's range), every float within 64
  // of its ends and of the whole numbers ending in 000 there (to_chars may write those in
  // scientific form), and values the fast path leaves to to_chars.
  std::vector<float> values;
  const uint32_t low = std::bit_cast<uint32_t>(1048576.0f),
                 high = std::bit_cast<uint32_t>(16777216.0f);
  for (uint32_t bits = low; bits < high; bits += 7) values.push_back(std::bit_cast<float>(bits));
  auto around = [&](float centre) {
    const uint32_t c = std::bit_cast<uint32_t>(centre);
    for (uint32_t bits = c - 64; bits <= c + 64; ++bits)
      values.push_back(std::bit_cast<float>(bits));
  };
  around(1048576.0f);
  around(16777216.0f);
  for (uint32_t whole = 1049000; whole < 16777216; whole += 1000) around(float(whole));
  for (float v : {0.0f, -0.0f, 0.5f, -3.672023e-05f, 0.850464f, 1234.5f, 2e9f, 1e-30f})
    values.push_back(v);
  size_t different = 0;
  for (const float magnitude : values) {
    for (const float v : {magnitude, -magnitude}) {
      char expected[32], got[32];
      char* e = std::to_chars(expected, expected + 32, v).ptr;
      char* g = putShortestFloat(got, v);
      different += std::string_view(expected, e) != std::string_view(got, g);
    }
  }
  CHECK(values.size() > 2000000);
  CHECK(different == 0);
}

TEST_CASE("export: displaced normals equal a face-order sum bit for bit", "[export]") {
  // The reference: every face's cross product added to its corners in face order, in double,
  // then normalised as displacedVertexNormals documents.
  for (const int f : {1, 2, 3, 5, 8}) {
    const geodesy::SphereMesh mesh = geodesy::buildIcosphere(f);
    std::vector<float> elevation;
    for (const glm::vec3& p : mesh.positions)
      elevation.push_back(float(4000.0 * std::sin(7.0 * p.x) * std::cos(5.0 * p.y + p.z)));
    const double exaggeration = 30.0;
    const auto displaced = [&](uint32_t v) {
      return (kRadius + exaggeration * double(elevation[v])) *
             glm::normalize(glm::dvec3(mesh.positions[v]));
    };
    std::vector<glm::dvec3> sums(mesh.vertexCount(), glm::dvec3(0.0));
    for (size_t t = 0; t < mesh.faceCount(); ++t) {
      const uint32_t* c = &mesh.indices[3 * t];
      const glm::dvec3 weighted =
          glm::cross(displaced(c[1]) - displaced(c[0]), displaced(c[2]) - displaced(c[0]));
      for (int i = 0; i < 3; ++i) sums[c[i]] += weighted;
    }
    const std::vector<glm::vec3> normals =
        displacedVertexNormals(mesh, elevation, kRadius, exaggeration);
    size_t different = 0;
    for (uint32_t v = 0; v < mesh.vertexCount(); ++v) {
      const double length = glm::length(sums[v]);
      const glm::vec3 expected =
          toUnitFloat(length > 0.0 && std::isfinite(length) ? sums[v] : displaced(v));
      different += normals[v] != expected;
    }
    INFO("frequency " << f);
    CHECK(different == 0);
  }
}

TEST_CASE("export: shared normals equal displacedVertexNormals at each exaggeration", "[export]") {
  TestPlanet planet(12);
  const PlanetSurface& plain = planet.surface;
  SharedNormals shared(plain);
  shared.plan(1.0);
  shared.plan(1.0);
  shared.plan(30.0);
  PlanetSurface surface = plain;
  surface.normals = &shared;
  const auto same = [](std::span<const glm::vec3> a, const std::vector<glm::vec3>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  };
  for (const double exaggeration : {1.0, 30.0}) {
    INFO("exaggeration " << exaggeration);
    const std::vector<glm::vec3> expected =
        displacedVertexNormals(planet.mesh, plain.elevation_m, plain.radius_m, exaggeration);
    REQUIRE(expected.size() == planet.mesh.vertexCount());
    VertexNormals first = vertexNormals(surface, exaggeration);
    CHECK(shared.holds(exaggeration));
    CHECK(same(first.values(), expected));
    if (exaggeration == 1.0) {
      // The second planned user gets the same array; a third, unplanned, its own.
      VertexNormals second = vertexNormals(surface, exaggeration);
      CHECK(second.values().data() == first.values().data());
      const VertexNormals extra = vertexNormals(surface, exaggeration);
      CHECK(extra.values().data() != first.values().data());
      CHECK(same(extra.values(), expected));
      first.reset();
      CHECK(shared.holds(1.0));  // the second user still reads it
      VertexNormals moved = std::move(second);
      CHECK(same(moved.values(), expected));
    }
  }
  // Every planned user has released its array: both are freed.
  CHECK(shared.unreleased(1.0) == 0);
  CHECK(shared.unreleased(30.0) == 0);
  CHECK(!shared.holds(1.0));
  CHECK(!shared.holds(30.0));
  // Another surface (other elevations) never takes them, even with users planned.
  SharedNormals other(plain);
  other.plan(1.0);
  std::vector<float> lower(planet.elevation);
  for (float& e : lower) e -= 500.0f;
  PlanetSurface before = plain;
  before.elevation_m = lower;
  before.normals = &other;
  CHECK(same(vertexNormals(before, 1.0).values(),
             displacedVertexNormals(planet.mesh, lower, plain.radius_m, 1.0)));
  CHECK(other.unreleased(1.0) == 1);
}

TEST_CASE("export: outputs made with shared normals equal those made without", "[export]") {
  TempDir dir;
  TestPlanet planet(12);
  SharedNormals shared(planet.surface);
  PlanetSurface surface = planet.surface;
  surface.normals = &shared;
  ReliefOptions relief;
  relief.width = 96;
  GlobeOptions globe;
  globe.size_px = 64;
  NormalMapOptions normal_map;
  normal_map.width = 96;
  normal_map.vertical_exaggeration = 4.0;
  GlbOptions chunked;
  chunked.chunks = 2;
  chunked.tangents = true;
  shared.plan(relief.vertical_exaggeration);
  shared.plan(globe.vertical_exaggeration);
  shared.plan(normal_map.vertical_exaggeration);
  for (int engine_files = 0; engine_files < 3; ++engine_files) shared.plan(kEngineExaggeration);
  const auto outputs = [&](const PlanetSurface& s, const std::string& tag) {
    std::vector<std::string> bytes;
    bytes.push_back(encodePngRgb8(renderShadedRelief(s, relief)));
    bytes.push_back(encodePngRgb8(renderGlobe(s, globe)));
    bytes.push_back(encodePngRgb8(renderNormalMap(s, normal_map)));
    writeObj(dir.path / (tag + ".obj"), dir.path / (tag + ".mtl"), "planet.mtl", s);
    bytes.push_back(readFile(dir.path / (tag + ".obj")));
    writeGlb(dir.path / (tag + ".glb"), s);
    bytes.push_back(readFile(dir.path / (tag + ".glb")));
    writeGlb(dir.path / (tag + "_chunked.glb"), s, chunked);
    bytes.push_back(readFile(dir.path / (tag + "_chunked.glb")));
    return bytes;
  };
  const std::vector<std::string> with = outputs(surface, "shared");
  // Each planned user took its share and released it, so the arrays are freed.
  for (const double exaggeration : {1.0, 4.0, 30.0}) {
    INFO("exaggeration " << exaggeration);
    CHECK(shared.unreleased(exaggeration) == 0);
    CHECK(!shared.holds(exaggeration));
  }
  const std::vector<std::string> without = outputs(planet.surface, "own");
  REQUIRE(with.size() == without.size());
  for (size_t i = 0; i < with.size(); ++i) {
    INFO("output " << i);
    CHECK(!with[i].empty());
    CHECK(with[i] == without[i]);
  }
}

TEST_CASE("export: maps and engine files do not depend on the thread count", "[export]") {
  TempDir dir;
  TestPlanet planet(10);
  // Allow 4 threads even on a 2-core machine.
  const tbb::global_control allow(tbb::global_control::max_allowed_parallelism, 4);
  const auto render = [&](int threads) {
    tbb::task_arena arena(threads);
    std::string bytes;
    arena.execute([&] {
      ReliefOptions relief;
      relief.width = 96;
      bytes += encodePngRgb8(renderShadedRelief(planet.surface, relief));
      GlobeOptions globe;
      globe.size_px = 64;
      bytes += encodePngRgb8(renderGlobe(planet.surface, globe));
      FieldMapOptions field;
      field.width = 96;
      bytes += encodePngRgb8(renderDivergingMap(planet.surface, planet.erosion, field));
      const fs::path obj = dir.path / ("t" + std::to_string(threads) + ".obj");
      writeObj(obj, dir.path / "t.mtl", "t.mtl", planet.surface);
      bytes += readFile(obj);
    });
    return bytes;
  };
  const std::string one = render(1);
  CHECK(render(2) == one);
  CHECK(render(4) == one);
}
