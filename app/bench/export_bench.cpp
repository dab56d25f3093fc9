// Timing figures for docs/performance.md (not a test): writes planet.glb, planet.obj and the maps
// of a synthetic planet and prints sizes, times and throughput.
//   export_bench [frequency=512] [out folder=/tmp/planetgen_export_bench] [map width=2048]

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "export/globe.h"
#include "export/maps.h"
#include "export/mesh_export.h"
#include "export/png_io.h"
#include "geodesy/sphere_mesh.h"
#include "planet/detail/stopwatch.h"

namespace {

using planet::secondsSince;

void report(const char* what, const std::filesystem::path& file, double seconds) {
  const double megabytes = double(std::filesystem::file_size(file)) / 1e6;
  std::printf("%-12s %8.1f MB %6.2f s %6.0f MB/s\n", what, megabytes, seconds, megabytes / seconds);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace planet_export;
  const int frequency = argc > 1 ? std::stoi(argv[1]) : 512;
  const std::filesystem::path out = argc > 2 ? argv[2] : "/tmp/planetgen_export_bench";
  const int map_width = argc > 3 ? std::stoi(argv[3]) : 2048;
  std::filesystem::create_directories(out);

  const geodesy::SphereMesh mesh = geodesy::buildIcosphere(frequency);
  std::vector<float> elevation, change;
  for (const glm::vec3& p : mesh.positions) {
    elevation.push_back(float(2500.0 * std::sin(3.0 * p.x + 1.0) * std::cos(2.0 * p.z) +
                              1500.0 * p.y + 300.0 +
                              400.0 * std::sin(40 * p.x) * std::sin(37 * p.y)));
    change.push_back(float(2.0 * std::sin(5.0 * p.y) * std::cos(4.0 * p.x)));
  }
  PlanetSurface surface;
  surface.mesh = &mesh;
  surface.elevation_m = elevation;
  surface.attributes = {{"_EROSION", change}};
  surface.extras_json = R"({"seed": 1, "frequency": )" + std::to_string(frequency) + "}";
  std::printf("frequency %d: %zu vertices, %zu faces\n", frequency, mesh.vertexCount(),
              mesh.faceCount());

  auto start = std::chrono::steady_clock::now();
  writeGlb(out / "planet.glb", surface);
  report("planet.glb", out / "planet.glb", secondsSince(start));
  start = std::chrono::steady_clock::now();
  writeObj(out / "planet.obj", out / "planet.mtl", "planet.mtl", surface);
  report("planet.obj", out / "planet.obj", secondsSince(start));

  start = std::chrono::steady_clock::now();
  ReliefOptions relief;
  relief.width = map_width;
  writePngRgb8(out / "relief.png", renderShadedRelief(surface, relief));
  std::printf("%-12s %6.2f s\n", "relief.png", secondsSince(start));
  start = std::chrono::steady_clock::now();
  FieldMapOptions field;
  field.width = map_width;
  field.title = "elevation change";
  field.units = "m";
  writePngRgb8(out / "erosion.png", renderDivergingMap(surface, change, field));
  std::printf("%-12s %6.2f s\n", "erosion.png", secondsSince(start));
  start = std::chrono::steady_clock::now();
  GlobeOptions globe;
  globe.size_px = map_width / 2;
  writePngRgb8(out / "globe.png", renderGlobe(surface, globe));
  std::printf("%-12s %6.2f s\n", "globe.png", secondsSince(start));
  return 0;
}
