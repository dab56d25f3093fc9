// The map side of export/: the biome map, raw and cube-map heightmaps, the sidecar JSON, the
// normal map, the shared sampling grid (biome classes: weather/biomes_test; import:
// terrain/heightmap_import_test).

#include <algorithm>
#include <array>
#include <cmath>
#include <csetjmp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <png.h>
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <glm/geometric.hpp>
#include <nlohmann/json.hpp>

#include "export/biome_palette.h"
#include "export/cube_map.h"
#include "export/equirect_sampler.h"
#include "export/heightmap_files.h"
#include "export/maps.h"
#include "export/png_io.h"
#include "export/surface_maps.h"
#include "geodesy/latlon.h"
#include "geodesy/sphere_mesh.h"
#include "support/export_maps_planet.h"
#include "support/support.h"
#include "terrain/heightmap_import.h"
#include "weather/biomes.h"

namespace fs = std::filesystem;
using namespace planet_export;

using namespace export_maps_fixtures;

TEST_CASE("maps: biome map and normal map", "[export][maps]") {
  TestPlanet planet(64);
  const fs::path out = fs::path(PLANETGEN_BINARY_DIR) / "export_maps";
  fs::create_directories(out);

  BiomeMapOptions biome_options;
  biome_options.width = 1024;
  const RgbImage biome = renderBiomeMap(planet.surface, biome_options);
  REQUIRE((biome.width == 1024 && biome.height == 512));
  writePngRgb8(out / "biome_map.png", biome);  // kept for people to look at
  // Pixels away from the key show the class of the nearest vertex.
  const EquirectLocations where = locateEquirect(planet.mesh, 1024, 512);
  size_t matching = 0, checked = 0;
  for (int y = 0; y < 300; y += 7) {
    for (int x = 0; x < 1024; x += 7) {
      const geodesy::SurfacePoint& p = where.points[size_t(y) * 1024 + size_t(x)];
      int k = 0;
      for (int j = 1; j < 3; ++j) {
        if (p.bary[j] > p.bary[k]) k = j;
      }
      const Rgb expected = biomeColour(planet.biome[planet.mesh.indices[3 * p.face + uint32_t(k)]]);
      const Rgb got = biome.get(x, y);
      matching += std::abs(got.r - expected.r) < 0.003f && std::abs(got.g - expected.g) < 0.003f;
      ++checked;
    }
  }
  CHECK(matching == checked);

  PlanetSurface no_biome = planet.surface;
  no_biome.biome = {};
  CHECK_THROWS_AS(renderBiomeMap(no_biome), std::invalid_argument);

  NormalMapOptions normal_options;
  normal_options.width = 512;
  normal_options.vertical_exaggeration = 20.0;
  writePngRgb8(out / "normal_map.png", renderNormalMap(planet.surface, normal_options));

  // A flat planet is (128, 128, 255) everywhere; a planet rising toward the north tilts its
  // normals south (green < 128).
  std::vector<float> flat(planet.mesh.vertexCount(), 0.0f), north(flat.size());
  for (size_t v = 0; v < north.size(); ++v) north[v] = float(2.0e6 * planet.mesh.positions[v].y);
  PlanetSurface s = planet.surface;
  s.biome = {};
  s.elevation_m = flat;
  const RgbImage flat_map = renderNormalMap(s, {.width = 64, .vertical_exaggeration = 1.0});
  for (size_t i = 0; i < flat_map.pixels.size(); i += 3) {
    REQUIRE(std::abs(int(flat_map.pixels[i]) - 128) <= 1);
    REQUIRE(std::abs(int(flat_map.pixels[i + 1]) - 128) <= 1);
    REQUIRE(flat_map.pixels[i + 2] >= 254);
  }
  s.elevation_m = north;
  const RgbImage tilted = renderNormalMap(s, {.width = 64, .vertical_exaggeration = 1.0});
  for (int x = 0; x < 64; ++x) {
    const Rgb c = tilted.get(x, 16);  // the equator
    REQUIRE(c.g < 0.45f);
    REQUIRE(std::abs(c.r - 0.5f) < 0.02f);
  }
}

TEST_CASE("maps: raw .r16/.r32 and the sidecar describe the heightmap", "[export][maps]") {
  TestPlanet planet(12);
  HeightmapOptions options;
  options.width = 64;
  const Gray16Image heights = renderHeightmap(planet.surface, options);
  const HeightmapRange range = heightmapRange(planet.surface, options);
  CHECK(range.min_m == *std::min_element(planet.elevation.begin(), planet.elevation.end()));
  CHECK(range.max_m == *std::max_element(planet.elevation.begin(), planet.elevation.end()));

  const std::string r16 = encodeRawU16(heights);
  REQUIRE(r16.size() == 64u * 32u * 2u);
  for (size_t i = 0; i < heights.pixels.size(); ++i) {
    const uint16_t value = uint16_t(uint8_t(r16[2 * i]) | uint8_t(r16[2 * i + 1]) << 8);
    REQUIRE(value == heights.pixels[i]);
  }
  const FloatImage metres = renderElevationMap(planet.surface, 64);
  const std::string r32 = encodeRawF32(metres);
  REQUIRE(r32.size() == 64u * 32u * 4u);
  for (size_t i = 0; i < metres.pixels.size(); ++i) {
    const uint32_t bits = uint32_t(uint8_t(r32[4 * i])) | uint32_t(uint8_t(r32[4 * i + 1])) << 8 |
                          uint32_t(uint8_t(r32[4 * i + 2])) << 16 |
                          uint32_t(uint8_t(r32[4 * i + 3])) << 24;
    float value = 0.0f;
    std::memcpy(&value, &bits, 4);
    REQUIRE(value == metres.pixels[i]);
    // The 16-bit sample is the same elevation, quantised.
    const double decoded = range.min_m + heights.pixels[i] / 65535.0 * (range.max_m - range.min_m);
    REQUIRE(std::abs(decoded - value) <= 0.5 * (range.max_m - range.min_m) / 65535.0 + 1e-3);
  }

  TempDir dir;
  HeightmapSidecar png{"heightmap.png", "png-gray16", "equirectangular", 64, 32, range,
                       kRadius,         0.0};
  HeightmapSidecar raw = png;
  raw.file = "heightmap.r16";
  raw.encoding = "raw-uint16-le";
  writeFile(dir.path / "heightmap.json", heightmapSidecarJson({png, raw}));
  const nlohmann::json doc = nlohmann::json::parse(readFile(dir.path / "heightmap.json"));
  CHECK(doc["units"] == "metres");
  CHECK(doc["files"][0]["encoding"] == "png-gray16");
  CHECK(doc["files"][1]["file"] == "heightmap.r16");
  CHECK(doc["files"][0]["min_m"].get<double>() == range.min_m);
  CHECK(doc["files"][0]["radius_m"].get<double>() == kRadius);
  const std::optional<terrain::HeightmapRange> back =
      terrain::readHeightmapSidecar(dir.path / "heightmap.json");
  REQUIRE(back.has_value());
  CHECK((back->min_m == range.min_m && back->max_m == range.max_m));
  CHECK_FALSE(terrain::readHeightmapSidecar(dir.path / "missing.json").has_value());
  writeFile(dir.path / "bad.json", "{\"files\": [{}]}");
  CHECK_THROWS_WITH(terrain::readHeightmapSidecar(dir.path / "bad.json"),
                    Catch::Contains("bad.json"));
}

TEST_CASE("maps: cube-map faces follow the OpenGL orientation", "[export][maps]") {
  TestPlanet planet(16);
  const int n = 32;
  const HeightmapRange range = heightmapRange(planet.surface, HeightmapOptions{});
  const std::array<Gray16Image, 6> faces = renderCubeHeightmap(planet.surface, n, range);
  const double quantum = (range.max_m - range.min_m) / 65535.0;
  for (int f = 0; f < 6; ++f) {
    INFO("face " << kCubeFaceNames[size_t(f)]);
    REQUIRE((faces[size_t(f)].width == n && faces[size_t(f)].height == n));
    for (int y = 0; y < n; y += 3) {
      for (int x = 0; x < n; x += 3) {
        const glm::dvec3 d = cubeFaceDirection(CubeFace(f), x, y, n);
        // The major axis is the face's axis.
        const int axis = f / 2;
        REQUIRE(std::abs(d[axis]) == 1.0);
        REQUIRE((d[axis] > 0) == (f % 2 == 0));
        const double e = interpolate(planet.mesh, planet.mesh.locate(glm::vec3(d)),
                                     std::span<const float>(planet.elevation));
        const double decoded = range.min_m + faces[size_t(f)].pixels[size_t(y * n + x)] * quantum;
        REQUIRE(std::abs(decoded - e) <= quantum);
      }
    }
  }
  // Hand-checked corners: the top-left of +X looks toward +Y and +Z; the top of +Y borders +Z
  // ... its row 0 is toward -Z; the top-left of -Z looks toward +X and +Y.
  const glm::dvec3 px = cubeFaceDirection(CubeFace::kPosX, 0, 0, n);
  CHECK((px.y > 0.9 && px.z > 0.9));
  const glm::dvec3 py = cubeFaceDirection(CubeFace::kPosY, 0, 0, n);
  CHECK((py.x < -0.9 && py.z < -0.9));
  const glm::dvec3 nz = cubeFaceDirection(CubeFace::kNegZ, 0, 0, n);
  CHECK((nz.x > 0.9 && nz.y > 0.9));
  // Neighbouring faces meet: the right edge of +X is the left edge of -Z.
  for (int y = 0; y < n; ++y) {
    const glm::dvec3 a = glm::normalize(cubeFaceDirection(CubeFace::kPosX, n - 1, y, n));
    const glm::dvec3 b = glm::normalize(cubeFaceDirection(CubeFace::kNegZ, 0, y, n));
    REQUIRE(glm::length(a - b) < 2.5 / n);
  }
}

TEST_CASE("maps: a shared sampling grid gives the same pixels, and only its own size uses it",
          "[export][maps]") {
  TestPlanet planet(24);
  const int width = 128;
  const EquirectLocations grid = locateEquirect(planet.mesh, width, width / 2);
  PlanetSurface shared = planet.surface;
  shared.equirect = &grid;
  // A grid of the right size whose every point is the first corner of face 0: a renderer that
  // reads it paints one value everywhere.
  EquirectLocations wrong = grid;
  for (geodesy::SurfacePoint& p : wrong.points) p = {0, {1.0f, 0.0f, 0.0f}};
  PlanetSurface misled = planet.surface;
  misled.equirect = &wrong;

  ReliefOptions relief;
  relief.width = width;
  CHECK(renderShadedRelief(shared, relief).pixels ==
        renderShadedRelief(planet.surface, relief).pixels);
  CHECK(renderShadedRelief(misled, relief).pixels !=
        renderShadedRelief(planet.surface, relief).pixels);
  HeightmapOptions height;
  height.width = width;
  CHECK(renderHeightmap(shared, height).pixels == renderHeightmap(planet.surface, height).pixels);
  CHECK(renderHeightmap(misled, height).pixels != renderHeightmap(planet.surface, height).pixels);
  CHECK(renderElevationMap(shared, width).pixels ==
        renderElevationMap(planet.surface, width).pixels);
  NormalMapOptions normals;
  normals.width = width;
  CHECK(renderNormalMap(shared, normals).pixels == renderNormalMap(planet.surface, normals).pixels);
  BiomeMapOptions biome;
  biome.width = width;
  biome.legend = false;
  CHECK(renderBiomeMap(shared, biome).pixels == renderBiomeMap(planet.surface, biome).pixels);
  FieldMapOptions field;
  field.width = width;
  CHECK(renderSequentialMap(shared, planet.elevation, field).pixels ==
        renderSequentialMap(planet.surface, planet.elevation, field).pixels);
  // Another size locates its own points: the misleading grid is ignored.
  relief.width = 2 * width;
  CHECK(renderShadedRelief(misled, relief).pixels ==
        renderShadedRelief(planet.surface, relief).pixels);
}
