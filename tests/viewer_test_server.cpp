// Test driver for the browser test of the web viewer (tests/viewer/viewer_test.mjs): writes a
// small synthetic planet.glb (relief, rainfall, erosion, biomes, rivers and lakes; chunks with
// skirts; two MSFT_lod levels) into OUT_DIR, then serves it with the viewer through serveViewer and
// prints "serving URL" on stdout. Stops when stdin reaches end of file (its parent went away).
//
// usage: viewer_test_server OUT_DIR [VIEWER_DIR]

#include <atomic>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <thread>
#include <vector>

#include "export/biomes.h"
#include "export/detail/meshopt_codec.h"
#include "export/mesh_export.h"
#include "export/viewer_server.h"
#include "export/water_geometry.h"
#include "geodesy/sphere_mesh.h"
#include "hydrology/rivers.h"
#include "planet/rivers_output.h"

int main(int argc, char** argv) {
  using namespace planet_export;
  if (argc < 2) {
    std::cerr << "usage: viewer_test_server OUT_DIR [VIEWER_DIR]\n";
    return 2;
  }
  const std::filesystem::path out = argv[1];
  const std::filesystem::path viewer = argc > 2 ? argv[2] : defaultViewerDir();
  std::filesystem::create_directories(out);

  const geodesy::SphereMesh mesh = geodesy::buildIcosphere(48);
  std::vector<float> elevation, rainfall, erosion;
  for (const glm::vec3& p : mesh.positions) {
    const double continents = std::sin(2.1 * p.x + 0.4) * std::cos(1.7 * p.z - 0.3) +
                              0.6 * std::sin(3.3 * p.y + 1.1 * p.x);
    const double ridges = std::abs(std::sin(9.0 * p.x + 5.0 * p.y) * std::cos(7.0 * p.z));
    elevation.push_back(
        float(3500.0 * continents + 2500.0 * ridges * std::max(0.0, continents) - 1200.0));
    erosion.push_back(float(3.0 * std::sin(11.0 * p.x) * std::cos(9.0 * p.z) * ridges));
  }
  std::vector<float> moisture = zonalMoistureProxy(mesh);
  for (size_t v = 0; v < moisture.size(); ++v) {
    const glm::vec3& p = mesh.positions[v];
    moisture[v] = std::clamp(moisture[v] + 0.25f * std::sin(6.0f * p.x + 4.0f * p.z), 0.0f, 1.0f);
    rainfall.push_back(2.0f * moisture[v]);
  }
  const std::vector<uint8_t> biome = classifyBiomes(mesh, elevation, 0.0, moisture);

  PlanetSurface surface;
  surface.mesh = &mesh;
  surface.elevation_m = elevation;
  surface.radius_m = 6371000.0;
  surface.sea_level_m = 0.0;
  surface.attributes = {{"_RAINFALL", rainfall}, {"_EROSION", erosion}};
  surface.extras_json =
      R"({"seed": 1, "frequency": 48, "radius_m": 6371000.0, "sea_level_m": 0.0})";
  surface.biome = biome;
  // Rivers and lakes (issue 19) from uniform runoff on this relief.
  const hydrology::FlowRouting routing = hydrology::routeFlow(mesh, elevation, 0.0);
  std::vector<double> runoff(mesh.vertexCount(), 0.0);
  for (uint32_t v : routing.order) runoff[v] = 1.0;
  hydrology::RiverInput river_input;
  river_input.mesh = &mesh;
  river_input.radius_m = surface.radius_m;
  river_input.elevation_m = elevation;
  river_input.routing = &routing;
  river_input.runoff_m3_s = runoff;
  hydrology::RiverParams river_params;
  river_params.min_discharge_m3_s = 8.0;
  const hydrology::RiverNetwork network = hydrology::extractRivers(river_input, river_params);
  const WaterGeometry water = planet::waterGeometryOf(network);
  surface.water = &water;
  std::printf("rivers %zu lakes %zu\n", water.rivers.size(), water.lakes.size());
  // Quantized as [export] writes it by default, and compressed when meshoptimizer is there, so
  // the viewer's three.js decodes both.
  writeGlb(out / "planet.glb", surface,
           GlbOptions{.chunks = 2,
                      .skirt_depth_m = 3000.0,
                      .lods = 2,
                      .quantize = true,
                      .meshopt = meshoptAvailable()});

  std::atomic<bool> stop{false};
  std::thread watcher([&stop] {
    while (std::cin.get() != EOF) {
    }
    stop = true;
  });
  const int code = serveViewer(
      out, viewer, 0,
      [](const std::string& url) {
        std::printf("serving %s\n", url.c_str());
        std::fflush(stdout);
      },
      &stop);
  watcher.join();
  return code;
}
