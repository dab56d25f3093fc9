// Tests of the engine-facing parts of planet.glb (issue 20): texture coordinates and tangents,
// the ocean over the sea floor, quantized attributes and uint16 indices, compression, units,
// collision meshes, flat extras, one level in the scene. Files are written and read back with
// tinygltf (and the JSON chunk with nlohmann::json), walking the default scene as an importer
// that ignores MSFT_lod does.

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

#include "export/biomes.h"
#include "export/detail/meshopt_codec.h"
#include "export/mesh_export.h"
#include "geodesy/hash.h"
#include "geodesy/latlon.h"
#include "geodesy/sphere_mesh.h"
#include "support/support.h"

namespace fs = std::filesystem;
using namespace planet_export;

namespace {

constexpr double kRadius = 6371000.0;

using test_support::TempDir;

// A synthetic planet: smooth continents, or with `rough` metres of per-vertex noise on top
// (every vertex its own height: the worst case for an ocean surface between vertices).
struct TestPlanet {
  geodesy::SphereMesh mesh;
  std::vector<float> elevation;
  std::vector<float> erosion;
  std::vector<uint8_t> biome;
  PlanetSurface surface;

  TestPlanet(int frequency, double rough) : mesh(geodesy::buildIcosphere(frequency)) {
    for (size_t v = 0; v < mesh.vertexCount(); ++v) {
      const glm::vec3& p = mesh.positions[v];
      const double noise = geodesy::unitFromHash(geodesy::hash3(99, 0, v)) * 2.0 - 1.0;
      elevation.push_back(float(2500.0 * std::sin(3.0 * p.x + 1.0) * std::cos(2.0 * p.z) +
                                1500.0 * p.y - 400.0 + rough * noise));
      erosion.push_back(float(std::sin(5.0 * p.y)));
    }
    biome = classifyBiomes(mesh, elevation, 0.0, zonalMoistureProxy(mesh));
    surface.mesh = &mesh;
    surface.elevation_m = elevation;
    surface.radius_m = kRadius;
    surface.sea_level_m = 0.0;
    surface.attributes = {{"_EROSION", erosion}};
    surface.extras_json = R"({"seed": 5, "config": {"planet": {"frequency": 16}}})";
    surface.biome = biome;
    surface.land_colour = LandColour::kBiome;
  }
  TestPlanet(const TestPlanet&) = delete;
  TestPlanet& operator=(const TestPlanet&) = delete;
};

tinygltf::Model loadGlb(const fs::path& path) {
  tinygltf::TinyGLTF loader;
  tinygltf::Model model;
  std::string error, warning;
  const bool ok = loader.LoadBinaryFromFile(&model, &error, &warning, path.string());
  INFO("tinygltf error: " << error << " warning: " << warning);
  REQUIRE(ok);
  return model;
}

nlohmann::json glbJson(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  const std::string bytes = text.str();
  REQUIRE(bytes.size() >= 20);
  uint32_t length = 0;
  std::memcpy(&length, bytes.data() + 12, 4);
  return nlohmann::json::parse(bytes.substr(20, length));
}

// Any accessor as floats, normalized integers mapped as glTF 2.0 spec 3.11 says.
std::vector<float> floatsOf(const tinygltf::Model& model, int index) {
  const tinygltf::Accessor& a = model.accessors[size_t(index)];
  const tinygltf::BufferView& view = model.bufferViews[size_t(a.bufferView)];
  const size_t components = size_t(tinygltf::GetNumComponentsInType(uint32_t(a.type)));
  const size_t size = size_t(tinygltf::GetComponentSizeInBytes(uint32_t(a.componentType)));
  const size_t stride = view.byteStride > 0 ? view.byteStride : components * size;
  const unsigned char* base =
      model.buffers[size_t(view.buffer)].data.data() + view.byteOffset + a.byteOffset;
  std::vector<float> out;
  for (size_t i = 0; i < a.count; ++i) {
    for (size_t c = 0; c < components; ++c) {
      const unsigned char* p = base + i * stride + c * size;
      float value = 0.0f;
      switch (a.componentType) {
        case TINYGLTF_COMPONENT_TYPE_FLOAT:
          std::memcpy(&value, p, 4);
          break;
        case TINYGLTF_COMPONENT_TYPE_BYTE:
          value = std::max(float(int8_t(*p)) / 127.0f, -1.0f);
          break;
        case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE:
          value = float(*p) / 255.0f;
          break;
        default:
          FAIL("unexpected component type " << a.componentType);
      }
      REQUIRE((a.normalized || a.componentType == TINYGLTF_COMPONENT_TYPE_FLOAT));
      out.push_back(value);
    }
  }
  return out;
}

std::vector<uint32_t> indicesOf(const tinygltf::Model& model, int index) {
  const tinygltf::Accessor& a = model.accessors[size_t(index)];
  const tinygltf::BufferView& view = model.bufferViews[size_t(a.bufferView)];
  const unsigned char* base =
      model.buffers[size_t(view.buffer)].data.data() + view.byteOffset + a.byteOffset;
  std::vector<uint32_t> out(a.count);
  for (size_t i = 0; i < a.count; ++i) {
    if (a.componentType == TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT) {
      uint16_t v;
      std::memcpy(&v, base + 2 * i, 2);
      out[i] = v;
    } else {
      REQUIRE(a.componentType == TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT);
      std::memcpy(&out[i], base + 4 * i, 4);
    }
  }
  return out;
}

// One primitive as an importer sees it: world positions (node translations and scales
// applied, in double), and its other attributes by name.
struct SeenPrimitive {
  std::string top;   // "Land" or "Ocean": the child of Planet it hangs under
  std::string node;  // the node holding the mesh
  std::vector<glm::dvec3> world;
  std::map<std::string, std::vector<float>> attributes;
  std::map<std::string, int> component_types;
  std::vector<uint32_t> indices;
  int index_type = 0;
  int material = -1;
};

void walk(const tinygltf::Model& model, int index, glm::dvec3 offset, double scale,
          const std::string& top, std::vector<SeenPrimitive>& out) {
  const tinygltf::Node& node = model.nodes[size_t(index)];
  REQUIRE(node.rotation.empty());
  REQUIRE(node.matrix.empty());
  if (!node.translation.empty()) {
    offset += scale * glm::dvec3(node.translation[0], node.translation[1], node.translation[2]);
  }
  if (!node.scale.empty()) {
    REQUIRE(node.scale[0] == node.scale[1]);
    REQUIRE(node.scale[0] == node.scale[2]);
    scale *= node.scale[0];
  }
  const std::string here = top.empty() && node.name != "Planet" ? node.name : top;
  if (node.mesh >= 0) {
    for (const tinygltf::Primitive& p : model.meshes[size_t(node.mesh)].primitives) {
      SeenPrimitive seen;
      seen.top = here;
      seen.node = node.name;
      const std::vector<float> pos = floatsOf(model, p.attributes.at("POSITION"));
      for (size_t v = 0; 3 * v < pos.size(); ++v) {
        seen.world.push_back(offset +
                             scale * glm::dvec3(pos[3 * v], pos[3 * v + 1], pos[3 * v + 2]));
      }
      for (const auto& [name, accessor] : p.attributes) {
        seen.attributes[name] = floatsOf(model, accessor);
        seen.component_types[name] = model.accessors[size_t(accessor)].componentType;
      }
      if (p.indices >= 0) {
        seen.indices = indicesOf(model, p.indices);
        seen.index_type = model.accessors[size_t(p.indices)].componentType;
      } else {  // non-indexed (the Rivers lines): vertices in order
        seen.indices.resize(seen.world.size());
        for (size_t v = 0; v < seen.indices.size(); ++v) seen.indices[v] = uint32_t(v);
        seen.index_type = -1;
      }
      seen.material = p.material;
      out.push_back(std::move(seen));
    }
  }
  for (int child : node.children) walk(model, child, offset, scale, here, out);
}

// Everything the default scene draws.
std::vector<SeenPrimitive> scenePrimitives(const tinygltf::Model& model) {
  std::vector<SeenPrimitive> out;
  REQUIRE(model.scenes.size() == 1);
  for (int root : model.scenes[size_t(model.defaultScene)].nodes) {
    walk(model, root, glm::dvec3(0.0), 1.0, "", out);
  }
  return out;
}

size_t triangles(const std::vector<SeenPrimitive>& prims, const std::string& top) {
  size_t n = 0;
  for (const SeenPrimitive& p : prims) n += p.top == top ? p.indices.size() / 3 : 0;
  return n;
}

// Distance in longitude turns between u and the expected u, modulo 1.
double wrapDistance(double u, double expected) {
  const double d = std::abs(u - expected);
  return std::min(d - std::floor(d), 1.0 - (d - std::floor(d)));
}

// For every land vertex below sea level (by its _ELEVATION), the ocean vertex on its ray must
// lie further out. Returns how many land vertices were under water.
size_t checkOceanCovers(const std::vector<SeenPrimitive>& prims, double sea_level_m) {
  // Ocean vertices by direction, in cells of 1e-5 (neighbouring cells searched as well).
  std::unordered_map<uint64_t, std::vector<glm::dvec3>> ocean;
  struct Cell {
    int64_t x, y, z;
    uint64_t key() const {
      return uint64_t(x + (1 << 20)) << 42 | uint64_t(y + (1 << 20)) << 21 |
             uint64_t(z + (1 << 20));
    }
  };
  const auto cell = [](const glm::dvec3& d) {
    return Cell{int64_t(std::floor(d.x * 1e5)), int64_t(std::floor(d.y * 1e5)),
                int64_t(std::floor(d.z * 1e5))};
  };
  size_t ocean_vertices = 0, land_vertices = 0;
  for (const SeenPrimitive& p : prims) {
    if (p.top == "Ocean") {
      for (const glm::dvec3& w : p.world) ocean[cell(glm::normalize(w)).key()].push_back(w);
      ocean_vertices += p.world.size();
    }
    if (p.top == "Land") land_vertices += p.world.size();
  }
  CHECK(ocean_vertices > 0);
  CHECK(ocean_vertices <= land_vertices);
  size_t wet = 0;
  for (const SeenPrimitive& p : prims) {
    if (p.top != "Land" || !p.attributes.count("_ELEVATION")) continue;
    const std::vector<float>& e = p.attributes.at("_ELEVATION");
    for (size_t v = 0; v < p.world.size(); ++v) {
      if (double(e[v]) >= sea_level_m) continue;
      ++wet;
      const glm::dvec3 d = glm::normalize(p.world[v]);
      const auto c = cell(d);
      const glm::dvec3* above = nullptr;
      for (int64_t dx = -1; dx <= 1 && !above; ++dx) {
        for (int64_t dy = -1; dy <= 1 && !above; ++dy) {
          for (int64_t dz = -1; dz <= 1 && !above; ++dz) {
            const auto it = ocean.find(Cell{c.x + dx, c.y + dy, c.z + dz}.key());
            if (it == ocean.end()) continue;
            for (const glm::dvec3& o : it->second) {
              if (glm::dot(glm::normalize(o), d) > 1.0 - 1e-12) above = &o;
            }
          }
        }
      }
      INFO("land vertex " << v << " at " << e[v] << " m in " << p.node);
      REQUIRE(above != nullptr);
      REQUIRE(glm::length(*above) > glm::length(p.world[v]));
    }
  }
  return wet;
}

}  // namespace

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

TEST_CASE("engine: collision meshes per chunk, named for Godot and Unreal", "[export][engine]") {
  TempDir dir;
  TestPlanet planet(16, 0.0);
  struct Case {
    GlbOptions options;
    std::string first_name;
    size_t nodes;
  };
  for (const Case& c :
       {Case{{.chunks = 2, .collision = CollisionNames::kGodot}, "Land_C0000-colonly", 80},
        Case{{.chunks = 2, .collision = CollisionNames::kUnreal}, "UCX_Land_C0000_00", 80},
        Case{{.collision = CollisionNames::kGodot}, "Land-colonly", 1}}) {
    INFO(c.first_name);
    const fs::path file = dir.path / "collision.glb";
    writeGlb(file, planet.surface, c.options);
    const std::vector<SeenPrimitive> prims = scenePrimitives(loadGlb(file));
    std::vector<std::string> names;
    size_t collision_triangles = 0;
    for (const SeenPrimitive& p : prims) {
      const bool collision =
          p.node.find("colonly") != std::string::npos || p.node.rfind("UCX_", 0) == 0;
      if (!collision) continue;
      names.push_back(p.node);
      CHECK(p.attributes.size() == 1);  // POSITION only
      CHECK(p.material == -1);
      collision_triangles += p.indices.size() / 3;
      // Level 2 of the land: on the surface within the grid, at the true heights.
      for (const glm::dvec3& w : p.world) {
        const geodesy::SurfacePoint sp = planet.mesh.locate(glm::vec3(glm::normalize(w)));
        float best = -1e9f;
        for (int k = 0; k < 3; ++k) {
          const uint32_t v = planet.mesh.indices[3 * sp.face + uint32_t(k)];
          if (sp.bary[k] > 0.999f) best = planet.elevation[v];
        }
        if (best > -1e9f) REQUIRE(glm::length(w) == Approx(kRadius + best).margin(1.0));
      }
    }
    CHECK(names.size() == c.nodes);
    CHECK(std::find(names.begin(), names.end(), c.first_name) != names.end());
    CHECK(collision_triangles == 20 * 4 * 4);  // f / 4 = 4
    CHECK(triangles(prims, "Land") == 20 * 16 * 16 + collision_triangles);
  }
}

TEST_CASE("engine: extras are flat and the scene holds one level", "[export][engine]") {
  TempDir dir;
  TestPlanet planet(16, 0.0);
  const fs::path file = dir.path / "lods.glb";
  writeGlb(file, planet.surface, GlbOptions{.chunks = 2, .lods = 2, .quantize = true});
  const nlohmann::json json = glbJson(file);
  for (const nlohmann::json& node : json["nodes"]) {
    if (!node.contains("extras")) continue;
    for (const auto& [key, value] : node["extras"].items()) {
      INFO(node["name"] << "." << key);
      // MSFT_screencoverage stays an array: Babylon.js reads it there.
      if (key != "MSFT_screencoverage") CHECK_FALSE(value.is_structured());
    }
  }
  CHECK(nlohmann::json::parse(
            json["nodes"][0]["extras"]["config"].get<std::string>())["planet"]["frequency"] == 16);
  // Walking the scene (an importer without MSFT_lod) finds level 0 and the ocean only.
  const std::vector<SeenPrimitive> prims = scenePrimitives(loadGlb(file));
  CHECK(triangles(prims, "Land") == 20 * 16 * 16);
  for (const nlohmann::json& node : json["nodes"]) {
    const std::string name = node["name"];
    if (name.rfind("Land_LOD", 0) == 0 && name != "Land_LOD0" &&
        name.find("_C") == std::string::npos) {
      CHECK(name.size() > 7);
      CHECK(name.substr(name.size() - 6) == "-noimp");  // Godot drops it on import
    }
  }
}

// Issue 20: a file with levels shows one level in an importer that ignores MSFT_lod. What each
// importer walks (checked headless): three.js, assimp and tinygltf the scene from `scene`;
// Godot 3.2 every node without a parent, minus those named "*-noimp" with their subtrees;
// Blender 3.4 every node (docs/engines.md). So: the coarser levels are parentless, in no
// scene, optional to the file (MSFT_lod used, not required), and named "-noimp".
TEST_CASE("engine: coarser levels are reachable only through MSFT_lod", "[export][engine]") {
  TempDir dir;
  TestPlanet planet(16, 0.0);
  for (const int chunks : {0, 2}) {
    INFO("chunks = " << chunks);
    const fs::path file = dir.path / "levels.glb";
    writeGlb(file, planet.surface, GlbOptions{.chunks = chunks, .lods = 2, .quantize = true});
    const nlohmann::json json = glbJson(file);
    const nlohmann::json& nodes = json["nodes"];
    std::vector<int> parent(nodes.size(), -1);
    for (size_t n = 0; n < nodes.size(); ++n)
      for (const int child : nodes[n].value("children", std::vector<int>{}))
        parent[size_t(child)] = int(n);
    std::vector<int> lod_ids;
    for (const nlohmann::json& node : nodes)
      if (node.contains("extensions") && node["extensions"].contains("MSFT_lod"))
        for (const int id : node["extensions"]["MSFT_lod"]["ids"]) lod_ids.push_back(id);
    REQUIRE(lod_ids.size() == 2);
    const auto used = json["extensionsUsed"].get<std::vector<std::string>>();
    CHECK(std::count(used.begin(), used.end(), "MSFT_lod") == 1);
    const auto required = json.value("extensionsRequired", std::vector<std::string>{});
    CHECK(std::count(required.begin(), required.end(), "MSFT_lod") == 0);
    for (const int id : lod_ids) {
      const std::string name = nodes[size_t(id)]["name"];
      INFO(name);
      CHECK(parent[size_t(id)] == -1);
      for (const nlohmann::json& scene : json["scenes"])
        for (const int root : scene["nodes"]) CHECK(root != id);
      CHECK(name.size() > 6);
      CHECK(name.substr(name.size() - 6) == "-noimp");
    }
    // Every mesh node is either reached from the scene, or lies under a coarser level's node.
    std::vector<bool> in_scene(nodes.size(), false);
    std::vector<int> stack =
        json["scenes"][json.value("scene", 0)]["nodes"].get<std::vector<int>>();
    while (!stack.empty()) {
      const int n = stack.back();
      stack.pop_back();
      in_scene[size_t(n)] = true;
      for (const int child : nodes[size_t(n)].value("children", std::vector<int>{}))
        stack.push_back(child);
    }
    size_t hidden_meshes = 0;
    for (size_t n = 0; n < nodes.size(); ++n) {
      if (!nodes[n].contains("mesh") || in_scene[n]) continue;
      int top = int(n);
      while (parent[size_t(top)] >= 0) top = parent[size_t(top)];
      CHECK(std::count(lod_ids.begin(), lod_ids.end(), top) == 1);
      ++hidden_meshes;
    }
    CHECK(hidden_meshes == (chunks == 0 ? 2u : 2u * 20u * 2u * 2u));
  }
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
