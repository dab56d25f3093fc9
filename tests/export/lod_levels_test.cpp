// Tests of level-of-detail engine export: nested levels copy the full surface exactly, and
// MSFT_lod levels, each chunked.

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <tiny_gltf.h>
#include <catch2/catch.hpp>
#include <glm/geometric.hpp>
#include <nlohmann/json.hpp>

#include "export/biome_palette.h"
#include "export/lod_levels.h"
#include "export/mesh_export.h"
#include "geodesy/sphere_mesh.h"
#include "support/chunk_glb_reading.h"
#include "support/export_internals.h"
#include "support/support.h"
#include "weather/biomes.h"

namespace fs = std::filesystem;
using namespace planet_export;
using namespace chunk_fixtures;

TEST_CASE("lods: nested levels copy the full surface exactly", "[export][lods]") {
  TestPlanet planet(16);
  const std::vector<LodLevel> levels = buildLodLevels(planet.surface, 3);
  REQUIRE(levels.size() == 3);
  for (const LodLevel& level : levels) {
    INFO("level " << level.level);
    REQUIRE(level.mesh.frequency == 16 >> level.level);
    CHECK(level.exact_vertices == level.mesh.vertexCount());
    for (size_t v = 0; v < level.mesh.vertexCount(); ++v) {
      const geodesy::SurfacePoint sp = planet.mesh.locate(level.mesh.positions[v]);
      bool found = false;
      for (int k = 0; k < 3; ++k) {
        const uint32_t u = planet.mesh.indices[3 * sp.face + uint32_t(k)];
        if (planet.mesh.positions[u] == level.mesh.positions[v]) {
          found = true;
          REQUIRE(level.elevation_m[v] == planet.elevation[u]);
          REQUIRE(level.attributes[0][v] == planet.erosion[u]);
          REQUIRE(level.biome[v] == planet.biome[u]);
        }
      }
      REQUIRE(found);
    }
  }
  CHECK_THROWS_WITH(buildLodLevels(planet.surface, 5), Catch::Contains("divisible by 2^5"));
  CHECK(lodProblem(12, 2).empty());
  CHECK_FALSE(lodProblem(12, 3).empty());
}

TEST_CASE("lods: MSFT_lod levels, each chunked", "[export][lods]") {
  TempDir dir;
  TestPlanet planet(16);
  const fs::path file = dir.path / "lods.glb";
  GlbOptions options;
  options.lods = 2;
  options.chunks = 2;
  writeGlb(file, planet.surface, options);
  const tinygltf::Model model = loadGlb(file);
  const nlohmann::json json = test_support::glbJson(file);
  CHECK(json["extensionsUsed"] == nlohmann::json::array({"MSFT_lod"}));
  CHECK_FALSE(json.contains("extensionsRequired"));
  const tinygltf::Node& land = nodeNamed(model, "Land");
  REQUIRE(land.children.size() == 1);
  const tinygltf::Node& lod0 = model.nodes[size_t(land.children[0])];
  CHECK(lod0.name == "Land_LOD0");
  REQUIRE(lod0.extensions.count("MSFT_lod") == 1);
  const tinygltf::Value& ids = lod0.extensions.at("MSFT_lod").Get("ids");
  REQUIRE(ids.ArrayLen() == 2);
  // Levels 1 and 2 are not in the scene graph (so importers without MSFT_lod show LOD0 only).
  std::set<int> in_scene;
  std::vector<int> stack = model.scenes[0].nodes;
  while (!stack.empty()) {
    const int n = stack.back();
    stack.pop_back();
    in_scene.insert(n);
    for (int child : model.nodes[size_t(n)].children) stack.push_back(child);
  }
  for (int i = 0; i < 2; ++i) {
    const int id = ids.Get(i).GetNumberAsInt();
    const tinygltf::Node& level = model.nodes[size_t(id)];
    CHECK(level.name == "Land_LOD" + std::to_string(i + 1) + "-noimp");  // Godot drops it
    CHECK(in_scene.count(id) == 0);
    REQUIRE(level.children.size() == 80);
    const std::vector<ChunkView> chunks = readChunks(model, level.children);
    const int m = (16 >> (i + 1)) / 2;
    for (const ChunkView& chunk : chunks) CHECK(chunk.indices.size() == size_t(3 * m * m));
  }
  CHECK(lod0.children.size() == 80);

  SECTION("option errors name the problem before a file is written") {
    GlbOptions bad;
    bad.lods = 3;
    bad.chunks = 3;  // 16 / 8 = 2 is not divisible by 3
    CHECK_THROWS_WITH(writeGlb(dir.path / "bad.glb", planet.surface, bad),
                      Catch::Contains("chunks = 3"));
    bad.chunks = 2;
    bad.lods = 4;  // level 4 has frequency 1
    CHECK_THROWS_WITH(writeGlb(dir.path / "bad.glb", planet.surface, bad),
                      Catch::Contains("level of detail 4"));
    CHECK(glbOptionsProblem(16, {.chunks = 4, .skirt_depth_m = 100.0, .lods = 2}).empty());
    CHECK_FALSE(fs::exists(dir.path / "bad.glb"));
  }
}
