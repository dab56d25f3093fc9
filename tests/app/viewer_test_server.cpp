// Test driver for the browser test of the web viewer (tests/viewer/viewer_test.mjs): writes a
// small synthetic planet.glb (relief, rainfall, erosion, biomes, rivers and lakes; chunks with
// skirts; two MSFT_lod levels) into OUT_DIR, then serves it with the viewer through serveViewer and
// prints "serving URL" on stdout. Stops when stdin reaches end of file (its parent went away).
// Like a run with the default [export] settings, the glb has no mask attributes (_FLOW,
// _TEMPERATURE) and the masks go beside it (mask_flow.png, climate_*.png, masks.json, through
// planet::writeMasks). Two probe vertices are printed for the readout checks, one line each:
// "probe NAME lat_deg lon_deg elevation_m rainfall temperature_c discharge_m3_s biome_name":
// `wet`, the land vertex of largest discharge, and `dry`, a land vertex whose discharge and its
// neighbours' are at most 2 m^3/s (sources of 1 m^3/s runoff). planet_whole.glb is the same
// relief unchunked at f = 96 (20 surface primitives), the layout of a default run's Land.
//
// usage: viewer_test_server OUT_DIR [VIEWER_DIR]

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <thread>
#include <vector>

#include "app/viewer_server.h"
#include "export/biome_palette.h"
#include "export/mesh_export.h"
#include "export/water_geometry.h"
#include "geodesy/latlon.h"
#include "geodesy/sphere_mesh.h"
#include "hydrology/rivers.h"
#include "io/atomic_file.h"
#include "planet/masks_output.h"
#include "planet/rivers_output.h"
#include "support/export_internals.h"
#include "weather/biomes.h"

int main(int argc, char** argv) {
  using namespace planet_export;
  if (argc < 2) {
    std::cerr << "usage: viewer_test_server OUT_DIR [VIEWER_DIR]\n";
    return 2;
  }
  const std::filesystem::path out = argv[1];
  const std::filesystem::path viewer = argc > 2 ? argv[2] : app::defaultViewerDir();
  std::filesystem::create_directories(out);

  // The relief (viewer_test.mjs repeats the formula) and the ridge term.
  const auto ridgesAt = [](const glm::vec3& p) {
    return std::abs(std::sin(9.0 * p.x + 5.0 * p.y) * std::cos(7.0 * p.z));
  };
  const auto reliefAt = [&](const glm::vec3& p) {
    const double continents = std::sin(2.1 * p.x + 0.4) * std::cos(1.7 * p.z - 0.3) +
                              0.6 * std::sin(3.3 * p.y + 1.1 * p.x);
    return float(3500.0 * continents + 2500.0 * ridgesAt(p) * std::max(0.0, continents) - 1200.0);
  };
  const geodesy::SphereMesh mesh = geodesy::buildIcosphere(48);
  std::vector<float> elevation, rainfall, erosion;
  for (const glm::vec3& p : mesh.positions) {
    elevation.push_back(reliefAt(p));
    erosion.push_back(float(3.0 * std::sin(11.0 * p.x) * std::cos(9.0 * p.z) * ridgesAt(p)));
  }
  std::vector<float> moisture = weather::zonalMoistureProxy(mesh);
  for (size_t v = 0; v < moisture.size(); ++v) {
    const glm::vec3& p = mesh.positions[v];
    moisture[v] = std::clamp(moisture[v] + 0.25f * std::sin(6.0f * p.x + 4.0f * p.z), 0.0f, 1.0f);
    rainfall.push_back(2.0f * moisture[v]);
  }
  const std::vector<uint8_t> biome = weather::classifyBiomes(mesh, elevation, 0.0, moisture);

  PlanetSurface surface;
  surface.mesh = &mesh;
  surface.elevation_m = elevation;
  surface.radius_m = 6371000.0;
  surface.sea_level_m = 0.0;
  surface.attributes = {{"_RAINFALL", rainfall}, {"_EROSION", erosion}};
  surface.extras_json =
      R"({"seed": 1, "frequency": 48, "radius_m": 6371000.0, "sea_level_m": 0.0})";
  surface.biome = biome;
  // Rivers and lakes from uniform runoff on this relief.
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
  // The masks the viewer reads: flow and precipitation (what the readout takes from them) and
  // temperature, in one transaction with the glb (the commit replaces OUT_DIR's files).
  std::vector<float> flow(mesh.vertexCount()), temperature(mesh.vertexCount());
  for (size_t v = 0; v < flow.size(); ++v) {
    flow[v] = float(std::log10(1.0 + network.discharge_m3_s[v]));
    const geodesy::LatLon ll = geodesy::unitToLatLon(glm::dvec3(mesh.positions[v]));
    temperature[v] = float(weather::temperatureC(ll.lat_rad, std::max(0.0f, elevation[v])));
  }
  std::vector<planet::MaskLayer> masks;
  masks.push_back({"mask_flow.png",
                   "",
                   "log10(1 + discharge in m^3/s)",
                   "",
                   flow,
                   0.0,
                   *std::max_element(flow.begin(), flow.end()),
                   {}});
  masks.push_back({"climate_temperature.png", "", "degC", "", temperature, -40.0, 40.0, {}});
  masks.push_back({"climate_precipitation.png", "", "relative", "", rainfall, 0.0, 2.0, {}});
  io::OutputTransaction files(out);
  planet::writeMasks(masks, surface, 2048, files);
  for (const char* name : {"wet", "dry"}) {
    uint32_t best = UINT32_MAX;
    for (uint32_t v = 0; v < mesh.vertexCount(); ++v) {
      const geodesy::LatLon ll = geodesy::unitToLatLon(glm::dvec3(mesh.positions[v]));
      const double q = network.discharge_m3_s[v];
      if (elevation[v] < 0.0f || network.lake_of[v] != hydrology::kNoLake ||
          std::abs(ll.lat_rad) > 1.0)
        continue;
      bool dry = q <= 2.0;
      for (uint32_t k = mesh.neighbour_offsets[v]; k < mesh.neighbour_offsets[v + 1]; ++k)
        dry = dry && network.discharge_m3_s[mesh.neighbours[k]] <= 2.0;
      if (name[0] == 'w' ? (best == UINT32_MAX || q > network.discharge_m3_s[best])
                         : (dry && best == UINT32_MAX))
        best = v;
    }
    const geodesy::LatLon ll = geodesy::unitToLatLon(glm::dvec3(mesh.positions[best]));
    std::printf("probe %s %.6f %.6f %.3f %.6f %.4f %.4f %s\n", name, ll.lat_rad * 180.0 / M_PI,
                ll.lon_rad * 180.0 / M_PI, elevation[best], rainfall[best], temperature[best],
                network.discharge_m3_s[best], std::string(biomeName(biome[best])).c_str());
  }
  // Quantized as [export] writes it by default, and compressed when meshoptimizer is there, so
  // the viewer's three.js decodes both.
  writeGlb(files.temporaryFor("planet.glb"), surface,
           GlbOptions{.chunks = 2,
                      .skirt_depth_m = 3000.0,
                      .lods = 2,
                      .quantize = true,
                      .meshopt = meshoptAvailable()});
  // planet_whole.glb: the same relief unchunked at f = 96 (92,162 vertices), as a default run
  // writes its Land: one mesh whose surface is split into primitives of at most 65,535 vertices.
  const geodesy::SphereMesh fine = geodesy::buildIcosphere(96);
  std::vector<float> fine_elevation;
  for (const glm::vec3& p : fine.positions) fine_elevation.push_back(reliefAt(p));
  PlanetSurface whole;
  whole.mesh = &fine;
  whole.elevation_m = fine_elevation;
  whole.radius_m = surface.radius_m;
  whole.extras_json = surface.extras_json;
  writeGlb(files.temporaryFor("planet_whole.glb"), whole, GlbOptions{.quantize = true});
  files.commit();

  std::atomic<bool> stop{false};
  std::thread watcher([&stop] {
    while (std::cin.get() != EOF) {
    }
    stop = true;
  });
  const int code = app::serveViewer(
      out, viewer, 0,
      [](const std::string& url) {
        std::printf("serving %s\n", url.c_str());
        std::fflush(stdout);
      },
      &stop);
  watcher.join();
  return code;
}
