#pragma once
// The small synthetic planet of export/mesh_files_test, io/output_folder_test and
// export_raster_test.

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "export/mesh_export.h"
#include "geodesy/sphere_mesh.h"
#include "support/support.h"

namespace export_fixtures {

using planet_export::PlanetSurface;

inline constexpr uint64_t kSeed = 18446744073709551557ull;  // needs all 64 bits
inline constexpr double kRadius = 6371000.0;
inline constexpr double kSeaLevel = 120.0;

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

}  // namespace export_fixtures
