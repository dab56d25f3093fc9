#pragma once
// The engine tests' planet and glb reader (export/engine_files_test, export/engine_scene_test): a
// synthetic planet written with the real writer, read back with tinygltf (and the JSON chunk
// with nlohmann::json), walking the default scene as an importer that ignores MSFT_lod does.

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
#include "support/export_internals.h"
#include "support/glb_read.h"
#include "support/support.h"
#include "weather/biomes.h"

namespace engine_fixtures {

namespace fs = std::filesystem;
using namespace planet_export;

inline constexpr double kRadius = 6371000.0;

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
    biome = weather::classifyBiomes(mesh, elevation, 0.0, weather::zonalMoistureProxy(mesh));
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

using test_support::loadGlb;

using test_support::floatsOf;
using test_support::glbJson;
using test_support::indicesOf;

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

inline void walk(const tinygltf::Model& model, int index, glm::dvec3 offset, double scale,
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
inline std::vector<SeenPrimitive> scenePrimitives(const tinygltf::Model& model) {
  std::vector<SeenPrimitive> out;
  REQUIRE(model.scenes.size() == 1);
  for (int root : model.scenes[size_t(model.defaultScene)].nodes) {
    walk(model, root, glm::dvec3(0.0), 1.0, "", out);
  }
  return out;
}

inline size_t triangles(const std::vector<SeenPrimitive>& prims, const std::string& top) {
  size_t n = 0;
  for (const SeenPrimitive& p : prims) n += p.top == top ? p.indices.size() / 3 : 0;
  return n;
}

// Distance in longitude turns between u and the expected u, modulo 1.
inline double wrapDistance(double u, double expected) {
  const double d = std::abs(u - expected);
  return std::min(d - std::floor(d), 1.0 - (d - std::floor(d)));
}

// For every land vertex below sea level (by its _ELEVATION), the ocean vertex on its ray must
// lie further out. Returns how many land vertices were under water.
inline size_t checkOceanCovers(const std::vector<SeenPrimitive>& prims, double sea_level_m) {
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

}  // namespace engine_fixtures
