// Tests of chunked engine export: the chunk partition, exact chunk frames, watertight chunk
// borders in the written .glb, skirts, biome colours, and the files read back by tinygltf,
// assimp and the Khronos glTF-Validator (levels of detail: export/lod_levels_test).

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

TEST_CASE("chunks: 20 k^2 chunks of m^2 faces along the lattice", "[export][chunks]") {
  const geodesy::SphereMesh mesh = geodesy::buildIcosphere(12);
  for (int k : {1, 2, 3, 4, 6, 12}) {
    INFO("k = " << k);
    const ChunkPartition partition = partitionChunks(mesh, k);
    const uint32_t m = uint32_t(12 / k);
    REQUIRE(partition.chunkCount() == size_t(20 * k * k));
    std::vector<int> seen(mesh.faceCount(), 0);
    for (size_t c = 0; c < partition.chunkCount(); ++c) {
      REQUIRE(partition.face_offsets[c + 1] - partition.face_offsets[c] == m * m);
      REQUIRE(partition.vertex_offsets[c + 1] - partition.vertex_offsets[c] ==
              (m + 1) * (m + 2) / 2);
      // A triangle of side m has 3 m border edges, all on the chunk's outline.
      REQUIRE(partition.border_offsets[c + 1] - partition.border_offsets[c] == 3 * m);
      std::vector<uint32_t> corners;
      for (uint32_t n = partition.face_offsets[c]; n < partition.face_offsets[c + 1]; ++n) {
        ++seen[partition.faces[n]];
        REQUIRE(chunkOfFace(12, k, partition.faces[n]) == c);
        for (int i = 0; i < 3; ++i) corners.push_back(mesh.indices[3 * partition.faces[n] + i]);
      }
      // The vertex list is exactly the faces' corners, ascending, each once.
      std::sort(corners.begin(), corners.end());
      corners.erase(std::unique(corners.begin(), corners.end()), corners.end());
      REQUIRE(std::equal(corners.begin(), corners.end(),
                         partition.vertices.begin() + partition.vertex_offsets[c],
                         partition.vertices.begin() + partition.vertex_offsets[c + 1]));
    }
    CHECK(std::all_of(seen.begin(), seen.end(), [](int s) { return s == 1; }));
  }
  // The chunks of a coarser level are the same regions: a face of frequency 12 lies in the
  // chunk of the frequency-6 face that contains its centre.
  const geodesy::SphereMesh coarse = geodesy::buildIcosphere(6);
  for (uint32_t face = 0; face < mesh.faceCount(); ++face) {
    glm::vec3 centre(0.0f);
    for (int k = 0; k < 3; ++k) centre += mesh.positions[mesh.indices[3 * face + uint32_t(k)]];
    const geodesy::SurfacePoint sp = coarse.locate(centre);
    REQUIRE(chunkOfFace(12, 3, face) == chunkOfFace(6, 3, sp.face));
  }
  CHECK_THROWS_WITH(partitionChunks(mesh, 5),
                    Catch::Contains("does not divide") && Catch::Contains("frequency 12"));
  CHECK_THROWS_AS(partitionChunks(mesh, 0), std::invalid_argument);
}

TEST_CASE("chunks: per-piece vertex tables reused across pieces", "[export][chunks]") {
  // One DistinctIds and one LocalIds serve piece after piece, as each thread's do: ids of an
  // earlier piece must neither be dropped from nor leak into a later one.
  DistinctIds distinct;
  LocalIds local;
  const std::vector<std::vector<uint32_t>> pieces = {
      {7, 3, 7, 9, 3, 0}, {9, 9, 2, 3}, {}, {5}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 8, 7}};
  for (const std::vector<uint32_t>& corners : pieces) {
    distinct.start(10);
    for (uint32_t id : corners) distinct.add(id);
    const std::vector<uint32_t> ids = distinct.take();
    std::vector<uint32_t> expected = corners;
    std::sort(expected.begin(), expected.end());
    expected.erase(std::unique(expected.begin(), expected.end()), expected.end());
    REQUIRE(ids == expected);
    local.assign(ids, 10);
    for (uint32_t i = 0; i < ids.size(); ++i) REQUIRE(local(ids[i]) == i);
  }
  // A long run of pieces: each keeps its one id, which earlier pieces have marked too.
  for (uint32_t n = 0; n < 1000; ++n) {
    distinct.start(10);
    distinct.add(n % 10);
    distinct.add(n % 10);
    REQUIRE(distinct.take() == std::vector<uint32_t>{n % 10});
  }
}

TEST_CASE("chunks: frames make translation + local exact in float32 and float64",
          "[export][chunks]") {
  // Boxes of an Earth-sized planet, including ones straddling the coordinate planes.
  std::vector<Box> boxes = {
      {{-200e3, 6300e3, -150e3}, {180e3, 6390e3, 210e3}},
      {{4000e3, -100e3, 4900e3}, {4400e3, 300e3, 5100e3}},
      {{-6390e3, -5.0, -3.0}, {-6000e3, 400e3, 350e3}},
  };
  const ChunkFrames frames = chooseChunkFrames(boxes);
  CHECK(frames.grid_m <= 0.125);  // finer than float32 world positions (0.5 m at 6371 km)
  uint64_t state = 12345;
  const auto uniform = [&state] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return double(state >> 11) * 0x1.0p-53;
  };
  for (size_t c = 0; c < boxes.size(); ++c) {
    const glm::dvec3& t = frames.translations[c];
    for (int i = 0; i < 3; ++i) REQUIRE(double(float(t[i])) == t[i]);
    for (int sample = 0; sample < 20000; ++sample) {
      glm::dvec3 w;
      for (int i = 0; i < 3; ++i)
        w[i] = boxes[c].lo[i] + uniform() * (boxes[c].hi[i] - boxes[c].lo[i]);
      const glm::vec3 local = localPosition(w, t, frames.grid_m);
      const glm::dvec3 snapped = snapToGrid(w, frames.grid_m);
      REQUIRE(t + glm::dvec3(local) == snapped);
      REQUIRE(glm::vec3(t) + local == glm::vec3(snapped));  // float32 sum rounds the exact W
      REQUIRE(glm::length(snapped - w) <= frames.grid_m);
    }
  }
}

TEST_CASE("chunks: borders are watertight in the written glb", "[export][chunks]") {
  TempDir dir;
  TestPlanet planet(16);
  const fs::path file = dir.path / "chunks.glb";
  GlbOptions options;
  options.chunks = 4;
  options.skirt_depth_m = 2000.0;
  writeGlb(file, planet.surface, options);
  const tinygltf::Model model = loadGlb(file);
  const tinygltf::Node& land = nodeNamed(model, "Land");
  REQUIRE(land.mesh == -1);
  REQUIRE(land.children.size() == 20 * 4 * 4);
  const std::vector<ChunkView> chunks = readChunks(model, land.children);

  // Every directed border edge of a chunk meets the reverse edge of exactly one other chunk,
  // with bit-identical world positions (float64 and float32 reconstruction), normals, colours
  // and elevations at both ends.
  std::map<std::pair<Bits, Bits>, std::vector<std::pair<size_t, std::pair<uint32_t, uint32_t>>>>
      edges;
  size_t border_edges = 0;
  for (size_t c = 0; c < chunks.size(); ++c) {
    for (const auto& [a, b] : openEdges(chunks[c].indices)) {
      edges[{bits(chunks[c].vertices[a].world_double), bits(chunks[c].vertices[b].world_double)}]
          .push_back({c, {a, b}});
      ++border_edges;
    }
  }
  size_t matched = 0, seam_edges = 0;
  for (const auto& [key, uses] : edges) {
    REQUIRE(uses.size() == 1);
    const auto reverse = edges.find({key.second, key.first});
    REQUIRE(reverse != edges.end());
    const auto& [c1, e1] = uses[0];
    const auto& [c2, e2] = reverse->second[0];
    // Within one chunk only along the texture seam, where vertices are copied (engine_pieces.h).
    if (c1 == c2) ++seam_edges;
    REQUIRE(sameVertex(chunks[c1].vertices[e1.first], chunks[c2].vertices[e2.second]));
    REQUIRE(sameVertex(chunks[c1].vertices[e1.second], chunks[c2].vertices[e2.first]));
    ++matched;
  }
  CHECK(matched == border_edges);
  CHECK(seam_edges > 0);
  CHECK(border_edges - seam_edges == 20 * 16 * 3 * 4);  // 3 m edges per chunk, m = 4

  // All chunks together hold each mesh vertex once per chunk that touches it, at its true
  // position within the grid, with the full mesh's normal.
  std::set<Bits> distinct;
  const double grid = land.extras.Get("position_grid_m").GetNumberAsDouble();
  REQUIRE(grid > 0.0);
  CHECK(grid <= 0.125);
  for (const ChunkView& chunk : chunks) {
    for (const WorldVertex& v : chunk.vertices) {
      distinct.insert(bits(v.world_double));
      const geodesy::SurfacePoint sp = planet.mesh.locate(glm::vec3(v.world_double));
      uint32_t nearest = planet.mesh.indices[3 * sp.face];
      for (int k = 1; k < 3; ++k) {
        const uint32_t u = planet.mesh.indices[3 * sp.face + uint32_t(k)];
        if (glm::length(glm::dvec3(planet.mesh.positions[u]) - glm::normalize(v.world_double)) <
            glm::length(glm::dvec3(planet.mesh.positions[nearest]) -
                        glm::normalize(v.world_double))) {
          nearest = u;
        }
      }
      const glm::dvec3 expected = (kRadius + double(planet.elevation[nearest])) *
                                  glm::normalize(glm::dvec3(planet.mesh.positions[nearest]));
      REQUIRE(glm::length(v.world_double - expected) <= grid);
      REQUIRE(v.elevation == planet.elevation[nearest]);
    }
  }
  CHECK(distinct.size() == planet.mesh.vertexCount());

  SECTION("skirts hang below every border edge and face away from their chunk") {
    for (const ChunkView& chunk : chunks) {
      REQUIRE(chunk.skirt_indices.size() == 6 * 3 * 4);
      glm::dvec3 centre(0.0);
      for (const WorldVertex& v : chunk.vertices) centre += v.world_double;
      centre /= double(chunk.vertices.size());
      for (size_t i = 0; i < chunk.skirt_vertices.size(); ++i) {
        const WorldVertex& v = chunk.skirt_vertices[i];
        if (i < chunk.vertices.size()) {
          REQUIRE(sameVertex(v, chunk.vertices[i]));  // the skirt reuses the surface vertices
        } else {
          const double r = glm::length(v.world_double);
          REQUIRE(r == Approx(kRadius + v.elevation - 2000.0).margin(2.0 * grid));
        }
      }
      for (size_t t = 0; t < chunk.skirt_indices.size(); t += 3) {
        const glm::dvec3 a = chunk.skirt_vertices[chunk.skirt_indices[t]].world_double;
        const glm::dvec3 b = chunk.skirt_vertices[chunk.skirt_indices[t + 1]].world_double;
        const glm::dvec3 c = chunk.skirt_vertices[chunk.skirt_indices[t + 2]].world_double;
        const glm::dvec3 normal = glm::cross(b - a, c - a);
        REQUIRE(glm::length(normal) > 0.0);
        REQUIRE(glm::dot(normal, (a + b + c) / 3.0 - centre) > 0.0);
      }
    }
  }
}

TEST_CASE("biomes: COLOR_0 shows the biome palette and _BIOME holds the class",
          "[export][biomes]") {
  TempDir dir;
  TestPlanet planet(8);
  planet.surface.land_colour = LandColour::kBiome;
  writeGlb(dir.path / "biome.glb", planet.surface);
  const tinygltf::Model model = loadGlb(dir.path / "biome.glb");
  const tinygltf::Primitive& land = model.meshes[0].primitives[0];
  const std::vector<float> ids = accessorFloats(model, land.attributes.at("_BIOME"));
  const std::vector<float> colours = accessorFloats(model, land.attributes.at("COLOR_0"));
  REQUIRE(ids.size() >= planet.mesh.vertexCount());  // then the seam copies
  for (size_t v = 0; v < planet.mesh.vertexCount(); ++v) {
    REQUIRE(ids[v] == float(planet.biome[v]));
    const Rgb expected = biomeColour(planet.biome[v]);
    REQUIRE(colours[3 * v] == srgbToLinear(expected.r));
    REQUIRE(colours[3 * v + 1] == srgbToLinear(expected.g));
  }
  // JSON text rather than an array (assimp 5.2 aborts on nested extras).
  const std::string legend = model.nodes[1].extras.Get("biome_legend").Get<std::string>();
  CHECK(nlohmann::json::parse(legend).size() == size_t(weather::kBiomeCount));

  PlanetSurface no_biome = planet.surface;
  no_biome.biome = {};
  CHECK_THROWS_WITH(writeGlb(dir.path / "x.glb", no_biome), Catch::Contains("kBiome"));
}

TEST_CASE("chunks: default options write the same bytes as before", "[export][chunks]") {
  TempDir dir;
  TestPlanet planet(6);
  planet.surface.biome = {};
  writeGlb(dir.path / "a.glb", planet.surface);
  writeGlb(dir.path / "b.glb", planet.surface, GlbOptions{});
  CHECK(readFile(dir.path / "a.glb") == readFile(dir.path / "b.glb"));
}

// Hidden from the default run: needs `npm ci` in tests/tools (CTest fixture npm_tools, see
// tests/CMakeLists.txt, test export_chunks_gltf_validator).
TEST_CASE("chunks: chunked, skirted and LOD glb pass the Khronos glTF-Validator",
          "[export][.validator]") {
  TempDir dir;
  TestPlanet planet(16);
  planet.surface.land_colour = LandColour::kBiome;
  const fs::path script = fs::path(PLANETGEN_SOURCE_DIR) / "tests/tools/validate.mjs";
  REQUIRE(fs::exists(fs::path(PLANETGEN_SOURCE_DIR) / "tests/tools/node_modules/gltf-validator"));
  const std::vector<std::pair<std::string, GlbOptions>> cases = {
      {"chunks.glb", {.chunks = 4, .skirt_depth_m = 0.0, .lods = 0}},
      {"skirts.glb", {.chunks = 2, .skirt_depth_m = 5000.0, .lods = 0}},
      {"lods.glb", {.chunks = 0, .skirt_depth_m = 0.0, .lods = 3}},
      {"lods_chunks.glb", {.chunks = 2, .skirt_depth_m = 1000.0, .lods = 2}},
  };
  for (const auto& [name, options] : cases) {
    INFO(name);
    const fs::path file = dir.path / name;
    writeGlb(file, planet.surface, options);
    const CommandResult result = run("node " + quoted(script) + " " + quoted(file));
    INFO(result.output);
    REQUIRE(result.exit_code != 2);
    const nlohmann::json report = nlohmann::json::parse(result.output);
    const nlohmann::json& issues = report["issues"];
    WARN("glTF-Validator " << report["validatorVersion"].get<std::string>() << " on " << name
                           << ": " << issues["numErrors"] << " errors, " << issues["numWarnings"]
                           << " warnings, " << issues["numInfos"] << " infos, "
                           << issues["numHints"] << " hints");
    CHECK(issues["numErrors"].get<int>() == 0);
    CHECK(issues["numWarnings"].get<int>() == 0);
    CHECK(result.exit_code == 0);
  }
}

TEST_CASE("chunks: assimp loads chunked and LOD files", "[export][chunks]") {
  if (run("command -v assimp").exit_code != 0) {
    WARN("assimp binary not found: skipped");
    return;
  }
  TempDir dir;
  TestPlanet planet(8);
  writeGlb(dir.path / "chunks.glb", planet.surface, {.chunks = 2, .skirt_depth_m = 500.0});
  writeGlb(dir.path / "lods.glb", planet.surface, {.chunks = 2, .skirt_depth_m = 0.0, .lods = 2});
  for (const char* name : {"chunks.glb", "lods.glb"}) {
    INFO(name);
    const CommandResult result = run("assimp info " + quoted(dir.path / name));
    INFO(result.output);
    REQUIRE(result.exit_code == 0);
    CHECK(result.output.find("Land_") != std::string::npos);
  }
}
