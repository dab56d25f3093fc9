// Tests of export/: the engine files read back by independent readers (tinygltf,
// tinyobjloader, assimp, the Khronos glTF-Validator), atomic output, and the PNG maps.

#include <algorithm>
#include <array>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
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

#include "export/atomic_file.h"
#include "export/colour_ramps.h"
#include "export/detail/surface_buffers.h"
#include "export/detail/surface_normals.h"
#include "export/equirect_sampler.h"
#include "export/globe.h"
#include "export/maps.h"
#include "export/mesh_export.h"
#include "export/png_io.h"
#include "geodesy/sphere_mesh.h"
#include "planetgen_version.h"
#include "support/support.h"

namespace fs = std::filesystem;
using namespace planet_export;

namespace {

constexpr uint64_t kSeed = 18446744073709551557ull;  // needs all 64 bits
constexpr double kRadius = 6371000.0;
constexpr double kSeaLevel = 120.0;

using test_support::CommandResult;
using test_support::quoted;
using test_support::readFile;
using test_support::run;
using test_support::TempDir;

// A small synthetic planet: smooth continents from -4 to +4 km, and a second field.
struct TestPlanet {
  geodesy::SphereMesh mesh;
  std::vector<float> elevation;
  std::vector<float> erosion;
  PlanetSurface surface;

  explicit TestPlanet(int frequency = 8) : mesh(geodesy::buildIcosphere(frequency)) {
    for (const glm::vec3& p : mesh.positions) {
      elevation.push_back(
          float(2500.0 * std::sin(3.0 * p.x + 1.0) * std::cos(2.0 * p.z) + 1500.0 * p.y + 300.0));
      erosion.push_back(float(2.0 * std::sin(5.0 * p.y) * std::cos(4.0 * p.x)));
    }
    surface.mesh = &mesh;
    surface.elevation_m = elevation;
    surface.radius_m = kRadius;
    surface.sea_level_m = kSeaLevel;
    surface.attributes = {{"_EROSION", erosion}};
    surface.extras_json = R"({"seed": 18446744073709551557, "frequency": )" +
                          std::to_string(frequency) + R"(, "config": {"terrain": {"octaves": 8}}})";
  }
  TestPlanet(const TestPlanet&) = delete;
  TestPlanet& operator=(const TestPlanet&) = delete;
};

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

tinygltf::Model loadGlb(const fs::path& path) {
  tinygltf::TinyGLTF loader;
  tinygltf::Model model;
  std::string error, warning;
  const bool ok = loader.LoadBinaryFromFile(&model, &error, &warning, path.string());
  INFO("tinygltf error: " << error << " warning: " << warning);
  REQUIRE(ok);
  return model;
}

// Typed copy of a tightly packed float accessor.
std::vector<float> accessorFloats(const tinygltf::Model& model, int accessor_index) {
  const tinygltf::Accessor& accessor = model.accessors[size_t(accessor_index)];
  REQUIRE(accessor.componentType == TINYGLTF_COMPONENT_TYPE_FLOAT);
  const tinygltf::BufferView& view = model.bufferViews[size_t(accessor.bufferView)];
  const size_t components = size_t(tinygltf::GetNumComponentsInType(uint32_t(accessor.type)));
  REQUIRE(view.byteLength >= accessor.count * components * sizeof(float));
  std::vector<float> values(accessor.count * components);
  std::memcpy(
      values.data(),
      model.buffers[size_t(view.buffer)].data.data() + view.byteOffset + accessor.byteOffset,
      values.size() * sizeof(float));
  return values;
}

// uint16 or uint32 indices, widened.
std::vector<uint32_t> accessorIndices(const tinygltf::Model& model, int accessor_index) {
  const tinygltf::Accessor& accessor = model.accessors[size_t(accessor_index)];
  const bool small = accessor.componentType == TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT;
  REQUIRE((small || accessor.componentType == TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT));
  const tinygltf::BufferView& view = model.bufferViews[size_t(accessor.bufferView)];
  const unsigned char* data =
      model.buffers[size_t(view.buffer)].data.data() + view.byteOffset + accessor.byteOffset;
  std::vector<uint32_t> values(accessor.count);
  for (size_t i = 0; i < values.size(); ++i) {
    if (small) {
      uint16_t v;
      std::memcpy(&v, data + 2 * i, 2);
      values[i] = v;
    } else {
      std::memcpy(&values[i], data + 4 * i, 4);
    }
  }
  return values;
}

// The GLB's JSON chunk, parsed independently of tinygltf.
nlohmann::json glbJson(const fs::path& path) {
  const std::string bytes = readFile(path);
  REQUIRE(bytes.size() >= 20);
  uint32_t json_length = 0;
  std::memcpy(&json_length, bytes.data() + 12, 4);
  return nlohmann::json::parse(bytes.substr(20, json_length));
}

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
    const std::vector<uint32_t> written_indices = accessorIndices(model, land.indices);
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

TEST_CASE("export: writeFileAtomic replaces the file and leaves no temporaries", "[export]") {
  TempDir dir;
  const fs::path target = dir.path / "data.bin";
  writeFileAtomic(target, "first");
  writeFileAtomic(target, "second");
  CHECK(readFile(target) == "second");
  CHECK(dir.names() == std::vector<std::string>{"data.bin"});
  CHECK(liveTemporaryCount() == 0);
}

TEST_CASE("export: a failing atomic write keeps the previous file and names the path", "[export]") {
  TempDir dir;
  const fs::path target = dir.path / "planet.glb";
  writeFileAtomic(target, "previous");

  SECTION("file size limit: a short write is detected") {
    // Works as root too (a read-only folder does not stop root). SIGXFSZ would kill us.
    const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
    rlimit old_limit{};
    REQUIRE(::getrlimit(RLIMIT_FSIZE, &old_limit) == 0);
    rlimit limit = old_limit;
    limit.rlim_cur = 1000;
    REQUIRE(::setrlimit(RLIMIT_FSIZE, &limit) == 0);
    std::string message;
    try {
      writeFileAtomic(target, std::string(100000, 'x'));
    } catch (const std::runtime_error& e) {
      message = e.what();
    }
    ::setrlimit(RLIMIT_FSIZE, &old_limit);
    std::signal(SIGXFSZ, old_handler);
    INFO(message);
    CHECK(message.find(target.string()) != std::string::npos);
    CHECK(message.find(std::strerror(EFBIG)) != std::string::npos);
  }
  SECTION("read-only folder") {
    if (::geteuid() == 0) return;  // root writes anyway; covered by the size limit above
    fs::permissions(dir.path, fs::perms::owner_write, fs::perm_options::remove);
    CHECK_THROWS_WITH(writeFileAtomic(target, "new"), Catch::Contains(target.string()));
    fs::permissions(dir.path, fs::perms::owner_write, fs::perm_options::add);
  }
  SECTION("missing parent folder") {
    const fs::path missing = dir.path / "no" / "such" / "planet.glb";
    CHECK_THROWS_WITH(writeFileAtomic(missing, "new"),
                      Catch::Contains(missing.string()) && Catch::Contains(std::strerror(ENOENT)));
  }
  SECTION("a transaction whose staging fails") {
    const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
    rlimit old_limit{};
    REQUIRE(::getrlimit(RLIMIT_FSIZE, &old_limit) == 0);
    rlimit limit = old_limit;
    limit.rlim_cur = 1000;
    REQUIRE(::setrlimit(RLIMIT_FSIZE, &limit) == 0);
    bool threw = false;
    {
      OutputTransaction transaction(dir.path);
      transaction.stage("small.txt", "fits");
      try {
        transaction.stage("planet.glb", std::string(100000, 'x'));
      } catch (const std::runtime_error& e) {
        threw = std::string(e.what()).find(target.string()) != std::string::npos;
      }
    }
    ::setrlimit(RLIMIT_FSIZE, &old_limit);
    std::signal(SIGXFSZ, old_handler);
    CHECK(threw);
  }
  CHECK(readFile(target) == "previous");
  CHECK(dir.names() == std::vector<std::string>{"planet.glb"});
  CHECK(liveTemporaryCount() == 0);
}

TEST_CASE("export: OutputTransaction commits all or nothing", "[export]") {
  TempDir dir;
  TestPlanet planet(4);
  const auto siblings = [&] {  // entries beside the folder that belong to it (staging folders)
    int n = 0;
    for (const auto& e : fs::directory_iterator(dir.path.parent_path()))
      n += e.path().filename().string().rfind("." + dir.path.filename().string() + ".", 0) == 0;
    return n;
  };

  SECTION("uncommitted: no files") {
    {
      OutputTransaction transaction(dir.path);
      transaction.stage("summary.json", "{}");
      writeGlb(transaction.temporaryFor("planet.glb"), planet.surface);
      CHECK(dir.names().empty());
      CHECK(siblings() == 1);
      CHECK(liveTemporaryCount() == 3);  // two files and the staging folder
    }
    CHECK(dir.names().empty());
    CHECK(siblings() == 0);
    CHECK(liveTemporaryCount() == 0);
  }
  SECTION("an exception before commit: no files") {
    try {
      OutputTransaction transaction(dir.path);
      transaction.stage("summary.json", "{}");
      TestPlanet bad(4);
      bad.surface.extras_json = "[1, 2]";  // not an object
      writeGlb(transaction.temporaryFor("planet.glb"), bad.surface);
      transaction.commit();
    } catch (const std::invalid_argument&) {
    }
    CHECK(dir.names().empty());
    CHECK(siblings() == 0);
  }
  SECTION("committed: exactly the final names and the manifest") {
    {
      OutputTransaction transaction(dir.path);
      transaction.stage("summary.json", "{}");
      writeGlb(transaction.temporaryFor("planet.glb"), planet.surface);
      writeObj(transaction.temporaryFor("planet.obj"), transaction.temporaryFor("planet.mtl"),
               "planet.mtl", planet.surface);
      transaction.commit();
    }
    CHECK(dir.names() == std::vector<std::string>{".planetgen-files", "planet.glb", "planet.mtl",
                                                  "planet.obj", "summary.json"});
    CHECK(readFile(dir.path / "summary.json") == "{}");
    CHECK(readFile(dir.path / ".planetgen-files") ==
          "planet.glb\nplanet.mtl\nplanet.obj\nsummary.json\n");
    CHECK(readFile(dir.path / "planet.obj").find("mtllib planet.mtl\n") != std::string::npos);
    CHECK(liveTemporaryCount() == 0);
    CHECK(siblings() == 0);
  }
  SECTION("files are staged in a hidden sibling folder") {
    OutputTransaction transaction(dir.path);
    const fs::path a = transaction.temporaryFor("planet.glb");
    const fs::path b = transaction.temporaryFor("planet.obj");
    CHECK(a.parent_path().parent_path() == dir.path.parent_path());
    CHECK(a.parent_path().filename().string().rfind(
              "." + dir.path.filename().string() + ".planetgen." + std::to_string(::getpid()) + ".",
              0) == 0);
    CHECK(a.filename() == "planet.glb");
    CHECK(a != b);
    CHECK_THROWS_AS(transaction.temporaryFor(".hidden"), std::invalid_argument);
  }
}

// Issue 21: a run without obj or LOD files left the previous run's planet.obj,
// planet_lod*.glb and cube_*.png beside its new files; the user's own files must stay.
TEST_CASE("export: OutputTransaction drops the previous run's other files, keeps the user's",
          "[export]") {
  TempDir dir;
  const auto commit = [&](std::vector<std::string> names, const std::string& text) {
    OutputTransaction transaction(dir.path);
    for (const std::string& name : names) transaction.stage(name, text);
    transaction.commit();
  };
  SECTION("a folder written with a manifest") {
    commit({"planet.glb", "planet.obj", "planet_lod1.glb", "cube_px.png", "summary.json"}, "1");
    std::ofstream(dir.path / "notes.txt") << "mine";
    fs::create_directories(dir.path / "mine");
    std::ofstream(dir.path / "mine/keep.txt") << "mine too";
    commit({"planet.glb", "summary.json"}, "2");
    CHECK(dir.names() == std::vector<std::string>{".planetgen-files", "mine", "notes.txt",
                                                  "planet.glb", "summary.json"});
    CHECK(readFile(dir.path / "planet.glb") == "2");
    CHECK(readFile(dir.path / "notes.txt") == "mine");
    CHECK(readFile(dir.path / "mine/keep.txt") == "mine too");
  }
  SECTION("a folder written before manifests: the known output names are the tool's") {
    for (const char* name : {"planet.glb", "planet.obj", "planet.mtl", "planet_lod2.glb",
                             "cube_nz.png", "summary.json", "notes.txt"})
      std::ofstream(dir.path / name) << "old";
    commit({"planet.glb", "summary.json"}, "new");
    CHECK(dir.names() ==
          std::vector<std::string>{".planetgen-files", "notes.txt", "planet.glb", "summary.json"});
    CHECK(readFile(dir.path / "notes.txt") == "old");
  }
  SECTION("a new folder and its missing parents appear only with the commit") {
    const fs::path deep = dir.path / "a" / "b" / "out";
    {
      OutputTransaction transaction(deep);
      transaction.stage("summary.json", "{}");
    }
    CHECK(dir.names().empty());  // a failed run into a new folder leaves nothing
    {
      OutputTransaction transaction(deep);
      transaction.stage("summary.json", "{}");
      transaction.commit();
    }
    CHECK(readFile(deep / "summary.json") == "{}");
  }
  SECTION("what is not a folder is refused up front") {
    std::ofstream(dir.path / "file") << "x";
    fs::create_symlink(dir.path / "nowhere", dir.path / "dangling");
    CHECK_THROWS_WITH(OutputTransaction(dir.path / "file"), Catch::Contains("not a folder"));
    CHECK_THROWS_WITH(OutputTransaction(dir.path / "dangling"), Catch::Contains("dangling"));
    CHECK(outputFolderProblem("/") != "");
    CHECK(outputFolderProblem(dir.path / "new" / "out") == "");
    CHECK(outputFolderProblem(dir.path / "file" / "out") != "");
  }
}

// Issue 21: killed runs left hidden temporaries that no later run removed.
TEST_CASE("export: OutputTransaction recovers what killed runs left", "[export]") {
  TempDir dir;
  const fs::path out = dir.path / "out";
  fs::create_directories(out);
  std::ofstream(out / "planet.glb") << "old";
  // A staging folder killed before its commit (no manifest): only the tool's files.
  const fs::path staged = dir.path / ".out.planetgen.999999999.0";
  fs::create_directories(staged);
  std::ofstream(staged / "planet.glb") << "partial";
  // A previous folder swapped out by a run killed before it moved the user's entries back.
  const fs::path swapped = dir.path / ".out.planetgen.999999999.1";
  fs::create_directories(swapped / "user_folder");
  std::ofstream(swapped / "planet.glb") << "older";
  std::ofstream(swapped / ".planetgen-files") << "planet.glb\n";
  std::ofstream(swapped / "user.txt") << "mine";
  // An old-style temporary of a dead process inside the folder.
  std::ofstream(out / ".planet.glb.tmp.999999999.3") << "junk";
  {
    OutputTransaction transaction(out);
    transaction.stage("planet.glb", "new");
    transaction.commit();
  }
  CHECK_FALSE(fs::exists(staged));
  CHECK_FALSE(fs::exists(swapped));
  CHECK(readFile(out / "planet.glb") == "new");
  CHECK(readFile(out / "user.txt") == "mine");
  CHECK(fs::is_directory(out / "user_folder"));
  CHECK_FALSE(fs::exists(out / ".planet.glb.tmp.999999999.3"));
}

TEST_CASE("export: removeLiveTemporaries deletes what a transaction staged", "[export]") {
  TempDir dir;
  OutputTransaction transaction(dir.path);
  const fs::path staging = transaction.temporaryFor("a.txt").parent_path();
  transaction.stage("a.txt", "a");
  transaction.stage("b.txt", "b");
  CHECK(fs::exists(staging / "b.txt"));
  removeLiveTemporaries();
  CHECK_FALSE(fs::exists(staging));
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

TEST_CASE("export: colour ramps have the documented bands", "[export]") {
  const TerrainPalette palette;
  const Rgb sand = hypsometricTint(5.0, palette);
  const Rgb lowland = hypsometricTint(300.0, palette);
  const Rgb snow = hypsometricTint(6000.0, palette);
  const Rgb shallow = bathymetricTint(10.0, palette);
  const Rgb deep = bathymetricTint(5000.0, palette);
  CHECK(sand.r > sand.b);        // sand is warm
  CHECK(lowland.g > lowland.r);  // lowlands are green
  CHECK(snow.r > 0.9f);          // snow is white
  CHECK(snow.b > 0.9f);
  CHECK(shallow.b > shallow.r);  // water is blue
  CHECK(deep.b < shallow.b);     // and darker with depth
  CHECK(terrainColour(-50.0, 0.0).b == bathymetricTint(50.0).b);
  CHECK(divergingColour(0.0).r > 0.9f);  // white at zero
  CHECK(divergingColour(-1.0).b > divergingColour(-1.0).r);
  CHECK(divergingColour(1.0).r > divergingColour(1.0).b);
  CHECK(sequentialColour(0.0).r > sequentialColour(1.0).r);
  CHECK(srgbToLinear(1.0f) == Approx(1.0f));
  CHECK(srgbToLinear(0.5f) == Approx(0.21404f).epsilon(1e-3));
}

TEST_CASE("export: equirectangular sampling interpolates vertex fields", "[export]") {
  const geodesy::SphereMesh mesh = geodesy::buildIcosphere(16);
  std::vector<float> height(mesh.vertexCount());  // y = sin(latitude)
  for (size_t v = 0; v < height.size(); ++v) height[v] = mesh.positions[v].y;
  const EquirectLocations where = locateEquirect(mesh, 64, 32);
  const std::vector<float> samples = sampleVertexField(mesh, where, height);
  REQUIRE(samples.size() == 64u * 32u);
  for (int y = 0; y < 32; ++y) {
    for (int x = 0; x < 64; ++x) {
      const glm::dvec3 p = equirectDirection(x, y, 64, 32);
      REQUIRE(samples[size_t(y) * 64 + size_t(x)] == Approx(p.y).margin(0.01));
    }
  }
  CHECK(equirectDirection(0, 0, 64, 32).y > 0.99);     // north at the top
  CHECK(equirectDirection(32, 16, 64, 32).x > 0.99);   // lon 0 (+X) in the middle
  CHECK(equirectDirection(48, 16, 64, 32).z < -0.99);  // east (-Z) to the right
}

TEST_CASE("export: PNG maps decode with the stated size", "[export]") {
  TempDir dir;
  TestPlanet planet(12);
  const auto decode = [](const std::string& bytes, int* w, int* h) {
    int channels = 0;
    unsigned char* pixels =
        stbi_load_from_memory(reinterpret_cast<const unsigned char*>(bytes.data()),
                              int(bytes.size()), w, h, &channels, 0);
    REQUIRE(pixels != nullptr);
    CHECK(channels == 3);
    stbi_image_free(pixels);
  };
  int w = 0, h = 0;

  ReliefOptions relief;
  relief.width = 128;
  const RgbImage relief_image = renderShadedRelief(planet.surface, relief);
  writePngRgb8(dir.path / "relief.png", relief_image);
  decode(readFile(dir.path / "relief.png"), &w, &h);
  CHECK((w == 128 && h == 64));

  FieldMapOptions field;
  field.width = 160;
  field.title = "erosion change";
  field.units = "m";
  decode(encodePngRgb8(renderDivergingMap(planet.surface, planet.erosion, field)), &w, &h);
  CHECK((w == 160 && h == 80));
  std::vector<float> rain(planet.erosion.size());
  for (size_t v = 0; v < rain.size(); ++v) rain[v] = std::abs(planet.erosion[v]);
  decode(encodePngRgb8(renderSequentialMap(planet.surface, rain, field)), &w, &h);
  CHECK((w == 160 && h == 80));

  GlobeOptions globe;
  globe.size_px = 96;
  globe.view_lat_deg = 90.0;  // a pole: the camera frame must stay finite
  const RgbImage globe_image = renderGlobe(planet.surface, globe);
  decode(encodePngRgb8(globe_image), &w, &h);
  CHECK((w == 96 && h == 96));
  const Rgb centre = globe_image.get(48, 48);
  const Rgb corner = globe_image.get(0, 0);
  CHECK(centre.r + centre.g + centre.b > corner.r + corner.g + corner.b);

  HeightmapOptions heights;
  heights.width = 64;
  const Gray16Image heightmap = renderHeightmap(planet.surface, heights);
  writePngGray16(dir.path / "height.png", heightmap);
  const std::string bytes = readFile(dir.path / "height.png");
  int channels = 0;
  stbi_us* samples = stbi_load_16_from_memory(reinterpret_cast<const unsigned char*>(bytes.data()),
                                              int(bytes.size()), &w, &h, &channels, 1);
  REQUIRE(samples != nullptr);
  CHECK((w == 64 && h == 32 && channels == 1));
  CHECK(std::equal(heightmap.pixels.begin(), heightmap.pixels.end(), samples));
  stbi_image_free(samples);
  CHECK(dir.names() == std::vector<std::string>{"height.png", "relief.png"});
}

TEST_CASE("export: diverging limits come from a robust percentile", "[export]") {
  std::vector<float> values(1000, 0.0f);
  for (int i = 0; i < 100; ++i) values[size_t(i)] = float(i + 1) * (i % 2 ? 1.0f : -1.0f);
  CHECK(magnitudeQuantile(values, 0.5) == Approx(50.0));
  CHECK(magnitudeQuantile(values, 1.0) == Approx(100.0));
  CHECK(magnitudeQuantile(std::vector<float>(10, 0.0f), 0.98) == 0.0);
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
