#pragma once
// The chunk tests' planet and chunked-glb reader (export/chunks_test, export/lod_levels_test): a
// synthetic planet with relief and biomes, chunks read back with tinygltf in world coordinates.

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
#include "support/export_internals.h"
#include "support/glb_read.h"
#include "support/support.h"
#include "weather/biomes.h"

namespace chunk_fixtures {

namespace fs = std::filesystem;
using namespace planet_export;

inline constexpr double kRadius = 6371000.0;

using test_support::CommandResult;
using test_support::quoted;
using test_support::readFile;
using test_support::run;
using test_support::TempDir;

// A synthetic planet with relief, a second field and biomes.
struct TestPlanet {
  geodesy::SphereMesh mesh;
  std::vector<float> elevation;
  std::vector<float> erosion;
  std::vector<float> moisture;
  std::vector<uint8_t> biome;
  PlanetSurface surface;

  explicit TestPlanet(int frequency) : mesh(geodesy::buildIcosphere(frequency)) {
    for (const glm::vec3& p : mesh.positions) {
      elevation.push_back(
          float(3000.0 * std::sin(4.0 * p.x + 1.0) * std::cos(3.0 * p.z) + 800.0 * p.y));
      erosion.push_back(float(std::sin(6.0 * p.y) * std::cos(5.0 * p.x)));
    }
    moisture = weather::zonalMoistureProxy(mesh);
    biome = weather::classifyBiomes(mesh, elevation, 0.0, moisture);
    surface.mesh = &mesh;
    surface.elevation_m = elevation;
    surface.radius_m = kRadius;
    surface.sea_level_m = 0.0;
    surface.attributes = {{"_EROSION", erosion}};
    surface.extras_json = R"({"seed": 7})";
    surface.biome = biome;
  }
  TestPlanet(const TestPlanet&) = delete;
  TestPlanet& operator=(const TestPlanet&) = delete;
};

using test_support::accessorFloats;
using test_support::indicesOf;
using test_support::loadGlb;

// One chunk vertex as an engine sees it.
struct WorldVertex {
  glm::dvec3 world_double;  // translation + local in float64
  glm::vec3 world_float;    // float(translation) + local in float32
  glm::vec3 normal;
  float elevation;
  std::array<float, 3> colour;
};

using Bits = std::array<uint64_t, 3>;
inline Bits bits(const glm::dvec3& p) {
  return {std::bit_cast<uint64_t>(p.x), std::bit_cast<uint64_t>(p.y), std::bit_cast<uint64_t>(p.z)};
}

struct ChunkView {
  std::string name;
  glm::dvec3 translation;
  std::vector<WorldVertex> vertices;        // surface primitive
  std::vector<uint32_t> indices;            // surface primitive
  std::vector<WorldVertex> skirt_vertices;  // skirt primitive (empty without skirts)
  std::vector<uint32_t> skirt_indices;
};

inline std::vector<WorldVertex> worldVertices(const tinygltf::Model& model,
                                              const tinygltf::Primitive& primitive,
                                              const glm::dvec3& t) {
  const std::vector<float> p = accessorFloats(model, primitive.attributes.at("POSITION"));
  const std::vector<float> n = accessorFloats(model, primitive.attributes.at("NORMAL"));
  const std::vector<float> c = accessorFloats(model, primitive.attributes.at("COLOR_0"));
  const std::vector<float> e = accessorFloats(model, primitive.attributes.at("_ELEVATION"));
  std::vector<WorldVertex> out(e.size());
  const glm::vec3 tf(t);
  for (size_t v = 0; v < out.size(); ++v) {
    const glm::vec3 local(p[3 * v], p[3 * v + 1], p[3 * v + 2]);
    out[v].world_double = t + glm::dvec3(local);
    out[v].world_float = tf + local;  // float32 arithmetic, as a float engine does it
    out[v].normal = {n[3 * v], n[3 * v + 1], n[3 * v + 2]};
    out[v].elevation = e[v];
    out[v].colour = {c[3 * v], c[3 * v + 1], c[3 * v + 2]};
  }
  return out;
}

inline std::vector<ChunkView> readChunks(const tinygltf::Model& model,
                                         const std::vector<int>& nodes) {
  std::vector<ChunkView> chunks;
  for (int index : nodes) {
    const tinygltf::Node& node = model.nodes[size_t(index)];
    REQUIRE(node.translation.size() == 3);
    ChunkView chunk;
    chunk.name = node.name;
    chunk.translation = {node.translation[0], node.translation[1], node.translation[2]};
    // The translation must be a float32 value, or float engines would round it.
    for (int c = 0; c < 3; ++c)
      REQUIRE(double(float(chunk.translation[c])) == chunk.translation[c]);
    const tinygltf::Mesh& mesh = model.meshes[size_t(node.mesh)];
    chunk.vertices = worldVertices(model, mesh.primitives.at(0), chunk.translation);
    chunk.indices = indicesOf(model, mesh.primitives[0].indices);
    if (mesh.primitives.size() > 1) {
      chunk.skirt_vertices = worldVertices(model, mesh.primitives[1], chunk.translation);
      chunk.skirt_indices = indicesOf(model, mesh.primitives[1].indices);
    }
    chunks.push_back(std::move(chunk));
  }
  return chunks;
}

// Directed edges of a triangle list used by exactly one triangle: the open border.
inline std::vector<std::pair<uint32_t, uint32_t>> openEdges(const std::vector<uint32_t>& indices) {
  std::map<std::pair<uint32_t, uint32_t>, int> count;
  for (size_t t = 0; t < indices.size(); t += 3) {
    for (int k = 0; k < 3; ++k) {
      const uint32_t a = indices[t + size_t(k)], b = indices[t + size_t(k + 1) % 3];
      ++count[{std::min(a, b), std::max(a, b)}];
    }
  }
  std::vector<std::pair<uint32_t, uint32_t>> open;
  for (size_t t = 0; t < indices.size(); t += 3) {
    for (int k = 0; k < 3; ++k) {
      const uint32_t a = indices[t + size_t(k)], b = indices[t + size_t(k + 1) % 3];
      if (count[{std::min(a, b), std::max(a, b)}] == 1) open.emplace_back(a, b);
    }
  }
  return open;
}

inline bool sameVertex(const WorldVertex& a, const WorldVertex& b) {
  return bits(a.world_double) == bits(b.world_double) &&
         std::memcmp(&a.world_float, &b.world_float, sizeof(glm::vec3)) == 0 &&
         std::memcmp(&a.normal, &b.normal, sizeof(glm::vec3)) == 0 &&
         std::memcmp(&a.colour, &b.colour, sizeof(a.colour)) == 0 &&
         std::bit_cast<uint32_t>(a.elevation) == std::bit_cast<uint32_t>(b.elevation);
}

inline const tinygltf::Node& nodeNamed(const tinygltf::Model& model, const std::string& name) {
  for (const tinygltf::Node& node : model.nodes) {
    if (node.name == name) return node;
  }
  FAIL("no node named " << name);
  return model.nodes.front();
}

}  // namespace chunk_fixtures
