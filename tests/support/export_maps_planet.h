#pragma once
// The synthetic planet of the map tests (export/maps_test, terrain/heightmap_import_test), and a
// file written from a string.

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "export/biome_palette.h"
#include "export/maps.h"
#include "export/planet_surface.h"
#include "geodesy/sphere_mesh.h"
#include "support/support.h"
#include "weather/biomes.h"

namespace export_maps_fixtures {

namespace fs = std::filesystem;
using namespace planet_export;

inline constexpr double kRadius = 6371000.0;
inline constexpr double kPi = 3.14159265358979323846;

using test_support::readFile;
using test_support::TempDir;

inline void writeFile(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// A planet with continents, mountains and a moisture field, for pictures and round trips.
struct TestPlanet {
  geodesy::SphereMesh mesh;
  std::vector<float> elevation;
  std::vector<float> moisture;
  std::vector<uint8_t> biome;
  PlanetSurface surface;

  explicit TestPlanet(int frequency) : mesh(geodesy::buildIcosphere(frequency)) {
    for (const glm::vec3& p : mesh.positions) {
      const double continents = std::sin(2.1 * p.x + 0.4) * std::cos(1.7 * p.z - 0.3) +
                                0.6 * std::sin(3.3 * p.y + 1.1 * p.x);
      const double ridges = std::abs(std::sin(9.0 * p.x + 5.0 * p.y) * std::cos(7.0 * p.z));
      elevation.push_back(
          float(3500.0 * continents + 2500.0 * ridges * std::max(0.0, continents) - 1200.0));
    }
    moisture = weather::zonalMoistureProxy(mesh);
    for (size_t v = 0; v < moisture.size(); ++v) {
      const glm::vec3& p = mesh.positions[v];
      moisture[v] = std::clamp(moisture[v] + 0.25f * std::sin(6.0f * p.x + 4.0f * p.z), 0.0f, 1.0f);
    }
    biome = weather::classifyBiomes(mesh, elevation, 0.0, moisture);
    surface.mesh = &mesh;
    surface.elevation_m = elevation;
    surface.radius_m = kRadius;
    surface.sea_level_m = 0.0;
    surface.biome = biome;
  }
  TestPlanet(const TestPlanet&) = delete;
  TestPlanet& operator=(const TestPlanet&) = delete;
};

}  // namespace export_maps_fixtures
