// Tests of export/: colour ramps, equirectangular sampling, the PNG maps and their colour
// limits.

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
#include <catch2/catch.hpp>
#include <glm/geometric.hpp>
#include <nlohmann/json.hpp>

#include "export/colour_ramps.h"
#include "export/equirect_sampler.h"
#include "export/globe.h"
#include "export/maps.h"
#include "export/mesh_export.h"
#include "export/png_io.h"
#include "geodesy/sphere_mesh.h"
#include "io/atomic_file.h"
#include "planetgen_version.h"
#include "support/export_internals.h"
#include "support/export_test_planet.h"
#include "support/support.h"

namespace fs = std::filesystem;
using namespace planet_export;
using namespace export_fixtures;

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
