// Tests of the engine-facing scene of planet.glb (docs/engines.md): collision meshes per chunk,
// flat extras, one level in the default scene, coarser levels only through MSFT_lod.

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

// A file with levels shows one level in an importer that ignores MSFT_lod. What each
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
