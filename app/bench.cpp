#include "app/bench.h"

#include <malloc.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>

#include <tbb/task_arena.h>
#include <nlohmann/json.hpp>

#include "app/droplet_step_bench.h"
#include "app/erosion_bench.h"
#include "app/standard_output.h"
#include "erosion/fluvial.h"
#include "export/mesh_export.h"
#include "geodesy/latlon.h"
#include "geodesy/sphere_mesh.h"
#include "planet/config.h"
#include "planet/detail/stopwatch.h"
#include "planet/pipeline.h"
#include "planet/run_stats.h"
#include "planet/tile_bake.h"
#include "terrain/hardness.h"
#include "terrain/ocean.h"
#include "terrain/terrain.h"
#include "tiles/tile_generator.h"
#include "weather/uniform_rain.h"

namespace app {

// The command line is planet's caller: its types and calls, unqualified.
using namespace planet;
namespace {

using planet::secondsSince;

using Clock = std::chrono::steady_clock;

double processCpuSeconds() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return double(t.tv_sec) + 1e-6 * double(t.tv_usec); };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

void printFigure(const char* figure, int frequency, int threads, double value, const char* unit) {
  nlohmann::json j;
  j["figure"] = figure;
  j["frequency"] = frequency;
  j["vertices"] = 10ull * uint64_t(frequency) * uint64_t(frequency) + 2;
  j["threads"] = threads;
  j["value"] = value;
  j["unit"] = unit;
  // A figure that cannot be written ends the bench (an error, exit 1): its output is the point.
  printToStdout(j.dump() + "\n");
}

// The tile generator's parameters with the tiles' erosion, as bench's options set them.
tiles::TileParams erodingParams(const BenchOptions& options) {
  tiles::TileParams eroding;
  eroding.erosion.enabled = true;
  eroding.erosion.cache_bytes = size_t(options.tiles_cache_mib * 1048576.0);
  eroding.erosion.relief = options.tiles_relief;
  if (options.tiles_halo > 0) eroding.erosion.halo = options.tiles_halo;
  if (options.tiles_bump_fraction > 0.0)
    eroding.erosion.bump_fraction = options.tiles_bump_fraction;
  if (options.tiles_window_subdivision >= 0)
    eroding.erosion.window_subdivision = options.tiles_window_subdivision;
  return eroding;
}

void benchOne(int frequency, int threads, const BenchOptions& options) {
  const Config config;  // defaults: 8-octave terrain, Lague's erosion parameters
  resetPeakRss();
  const uint64_t rss_before = currentRssBytes();

  auto t0 = Clock::now();
  const geodesy::SphereMesh mesh = geodesy::buildIcosphere(frequency);
  const double icosphere_s = secondsSince(t0);
  const double vertices = double(mesh.vertexCount());
  printFigure("icosphere_s", frequency, threads, icosphere_s, "s");

  t0 = Clock::now();
  std::vector<float> elevation =
      terrain::generateElevation(mesh.positions, config.planet.seed, config.terrain);
  printFigure("terrain_s", frequency, threads, secondsSince(t0), "s");

  // A plain 8-octave fBm, without continents, ridges or warp: the noise's own cost.
  {
    terrain::TerrainParams plain;
    plain.octaves = 8;
    plain.continent_amplitude_m = 0.0;
    plain.ridged_amplitude_m = 0.0;
    plain.warp = 0.0;
    t0 = Clock::now();
    std::vector<float> fbm_only =
        terrain::generateElevation(mesh.positions, config.planet.seed, plain);
    printFigure("fbm8_s", frequency, threads, secondsSince(t0), "s");
  }

  const double sea =
      terrain::areaWeightedQuantile(elevation, mesh.vertex_areas, config.ocean.fraction);
  for (float& e : elevation) e = float(double(e) - sea);
  const uint64_t peak = peakRssBytes();
  printFigure("peak_rss_bytes", frequency, threads, double(peak), "bytes");
  printFigure("peak_rss_bytes_per_vertex", frequency, threads,
              double(peak - std::min(peak, rss_before)) / vertices, "bytes/vertex");

  if (options.tiles) {
    // One T = 256 tile at about 30 m spacing on the planet's highest ground (about 33 k
    // vertices), with the planet loaded: the generator is built once from the elevation
    // (tile_generator_s), then the tile is made five times (tile_s, the median).
    tiles::TilePlanet tile_planet;
    tile_planet.frequency = frequency;
    tile_planet.radius_m = config.planet.radius_m;
    tile_planet.elevation_m = elevation;
    tile_planet.spectrum = {terrain::detailNoiseSeed(config.planet.seed), config.terrain.frequency,
                            config.terrain.lacunarity, config.terrain.persistence};
    t0 = Clock::now();
    const tiles::TileGenerator generator(tile_planet, {});
    printFigure("tile_generator_s", frequency, threads, secondsSince(t0), "s");
    const size_t top =
        size_t(std::max_element(elevation.begin(), elevation.end()) - elevation.begin());
    const int level = generator.layout().levelForSpacing(30.0, config.planet.radius_m);
    const tiles::TileId id = generator.tileAt(glm::dvec3(mesh.positions[top]), level);
    std::vector<double> times;
    for (int run = 0; run < 5; ++run) {
      t0 = Clock::now();
      const tiles::TileMesh tile = generator.generate(id);
      times.push_back(secondsSince(t0));
    }
    std::sort(times.begin(), times.end());
    printFigure("tile_s", frequency, threads, times[times.size() / 2], "s");

    {
      // The same tile with the tiles' erosion (docs/tile_erosion.md): once with nothing cached
      // (every eroding level's windows made), then again with its windows cached. Its own
      // scope: the generator's window cache is gone before the bake below measures its memory.
      const tiles::TileGenerator eroded(tile_planet, erodingParams(options));
      // Each also as the process's CPU time (user + system, every thread): on a shared machine
      // the wall time follows the load, this much less.
      double cpu0 = processCpuSeconds();
      t0 = Clock::now();
      (void)eroded.generate(id);
      printFigure("tile_eroded_s", frequency, threads, secondsSince(t0), "s");
      printFigure("tile_eroded_cpu_s", frequency, threads, processCpuSeconds() - cpu0, "s");
      cpu0 = processCpuSeconds();
      t0 = Clock::now();
      (void)eroded.generate(id);
      printFigure("tile_eroded_cached_s", frequency, threads, secondsSince(t0), "s");
      printFigure("tile_eroded_cached_cpu_s", frequency, threads, processCpuSeconds() - cpu0, "s");
    }
    {
      // A step of the tiles' droplets against a step of a plain grid eroder, on the same 30 m
      // surface, each on one thread (app/droplet_step_bench.h).
      const DropletStepFigures steps = benchDropletSteps(192, 30.0, config.planet.seed);
      printFigure("tile_droplet_steps_per_s", frequency, 1, steps.tile_steps_per_s, "1/s");
      printFigure("tile_droplet_steps_r3_per_s", frequency, 1, steps.tile_r3_steps_per_s, "1/s");
      printFigure("grid_droplet_steps_per_s", frequency, 1, steps.grid_steps_per_s, "1/s");
    }

    // A region around the same ground baked as `planetgen tiles` bakes it: the tiles at 30 m
    // with every ancestor, as glbs with skirts, heightmaps and tileset.json in a temporary
    // folder (<prefix>_s), and the bake's memory above the planet's per vertex of the tiles in
    // flight (one per thread).
    const auto bakeRegion = [&](const tiles::TileGenerator& baker, const std::string& prefix) {
      const auto figure = [&](const char* name) { return prefix + name; };
      const auto dir = std::filesystem::temp_directory_path() /
                       ("planetgen-bench-tiles-" + std::to_string(::getpid()));
      const geodesy::LatLon at = geodesy::unitToLatLon(glm::dvec3(mesh.positions[top]));
      planet::TileBakeOptions bake;
      bake.region = {at.lat_rad * 180.0 / M_PI, at.lon_rad * 180.0 / M_PI,
                     options.tiles_region_km * 1000.0};
      bake.spacing_m = 30.0;
      bake.threads = threads;
      // The baseline is the memory in use: free heap pages the earlier figures left (the
      // eroded tile's windows) go back to the system first, or the bake would reuse them unseen.
      ::malloc_trim(0);
      resetPeakRss();
      const uint64_t rss_bake = currentRssBytes();
      const double cpu0 = processCpuSeconds();
      t0 = Clock::now();
      const planet::TileBakeResult baked = planet::bakeTiles(baker, bake, dir);
      printFigure(figure("_s").c_str(), frequency, threads, secondsSince(t0), "s");
      // The process's CPU time over the bake (user + system, every thread): on a shared
      // machine the wall time follows the load, this much less.
      printFigure(figure("_cpu_s").c_str(), frequency, threads, processCpuSeconds() - cpu0, "s");
      const uint64_t bake_peak = peakRssBytes();
      std::filesystem::remove_all(dir);
      printFigure(figure("_tiles").c_str(), frequency, threads, double(baked.plan_tiles), "tiles");
      printFigure(figure("_vertices").c_str(), frequency, threads, double(baked.vertices),
                  "vertices");
      const double in_flight = double(threads) * double(baker.layout().tileEdge() + 1) *
                               double(baker.layout().tileEdge() + 2) / 2.0;
      printFigure(figure("_peak_rss_bytes_per_tile_vertex").c_str(), frequency, threads,
                  double(bake_peak - std::min(bake_peak, rss_bake)) / in_flight, "bytes/vertex");
    };
    if (options.tiles_region_km > 0.0) {
      bakeRegion(generator, "tiles_region");
      if (options.tiles_region_erosion) {
        bakeRegion(tiles::TileGenerator(tile_planet, erodingParams(options)),
                   "tiles_region_eroded");
      }
    }
  }

  if (options.fluvial) {
    // The fluvial stage as the pipeline runs it with uniform rain: the erodibility field and
    // the stage itself, timed together.
    std::vector<float> h = elevation;
    const double cpu0 = processCpuSeconds();
    t0 = Clock::now();
    const std::vector<float> erodibility =
        terrain::erodibilityField(mesh.positions, config.planet.seed,
                                  config.hardness.min_erodibility, config.hardness.frequency);
    erosion::FluvialInput input;
    input.mesh = &mesh;
    input.radius_m = config.planet.radius_m;
    input.noise_m = elevation;
    input.erodibility = erodibility;
    input.seed = config.planet.seed;
    erosion::erodeFluvial(input, config.fluvial, h);
    const double fluvial_s = secondsSince(t0);
    printFigure("fluvial_s", frequency, threads, fluvial_s, "s");
    // User + system time of every thread: on a shared machine the wall time follows the load.
    printFigure("fluvial_cpu_s", frequency, threads, processCpuSeconds() - cpu0, "s");
    printFigure("fluvial_ns_per_vertex", frequency, threads, 1e9 * fluvial_s / vertices,
                "ns/vertex");
  }

  if (options.droplets > 0) {
    const auto spawns =
        weather::uniformRain(mesh, elevation, 0.0, options.droplets, config.planet.seed);
    erosion::ErosionParams params = config.erosion;
    params.max_lifetime = 30;
    params.radius = 3.0;
    resetPeakRss();
    // The workspace (per-vertex records, brush tables) is built once per planet, as the
    // pipeline does for all its erosion calls, and timed on its own.
    const ErosionBenchFigures f =
        runErosionBench(mesh, elevation, config.planet.radius_m, 0.0, spawns, threads, params,
                        erosion::BrushMode::kLattice, config.planet.seed);
    printFigure("erosion_setup_s", frequency, threads, f.setup_s, "s");
    printFigure("erosion_s", frequency, threads, f.erosion_s, "s");
    printFigure("droplets_per_s", frequency, threads, f.droplets_per_s, "1/s");
    printFigure("droplet_steps_per_s", frequency, threads, f.droplet_steps_per_s, "1/s");
    printFigure("brush_memory_bytes", frequency, threads, double(f.brush_memory_bytes), "bytes");
    printFigure("erosion_workspace_bytes", frequency, threads, double(f.workspace_memory_bytes),
                "bytes");
    printFigure("erosion_peak_rss_bytes", frequency, threads, double(peakRssBytes()), "bytes");
  }

  if (options.with_export) {
    const auto dir =
        std::filesystem::temp_directory_path() / ("planetgen-bench-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    planet_export::PlanetSurface surface;
    surface.mesh = &mesh;
    surface.elevation_m = elevation;
    surface.radius_m = config.planet.radius_m;
    t0 = Clock::now();
    planet_export::writeGlb(dir / "planet.glb", surface);
    printFigure("export_glb_s", frequency, threads, secondsSince(t0), "s");
    t0 = Clock::now();
    planet_export::writeObj(dir / "planet.obj", dir / "planet.mtl", "planet.mtl", surface);
    printFigure("export_obj_s", frequency, threads, secondsSince(t0), "s");
    std::filesystem::remove_all(dir);
  }
}

// The whole pipeline of the default config at this frequency, written to a temporary folder:
// every stage and every export output as its own figure, and the run's peak memory.
void benchPipeline(int frequency, int threads) {
  Config config;
  config.planet.frequency = frequency;
  const auto dir = std::filesystem::temp_directory_path() /
                   ("planetgen-bench-run-" + std::to_string(::getpid()));
  resetPeakRss();
  const uint64_t rss_before = currentRssBytes();
  StageTimer timer;
  timer.trackMemory();
  const auto quiet = [](const std::string&) {};
  {
    PlanetState planet = buildPlanet(config, timer, quiet);
    erodePlanet(planet, config, timer, quiet);
    writePlanet(planet, config, dir, timer, quiet, threads);
  }
  const uint64_t peak = timer.peakRss();
  std::filesystem::remove_all(dir);
  std::vector<std::pair<std::string, double>> stages;  // summed by name, in first-run order
  double total = 0.0;
  for (const auto& [name, seconds] : timer.stages()) {
    // A copy: clang 14 cannot capture a structured binding in a lambda.
    const std::string& stage = name;
    auto it = std::find_if(stages.begin(), stages.end(), [&](auto& s) { return s.first == stage; });
    if (it == stages.end())
      stages.emplace_back(name, seconds);
    else
      it->second += seconds;
    total += seconds;
  }
  for (const auto& [name, seconds] : stages)
    printFigure(("stage_" + name + "_s").c_str(), frequency, threads, seconds, "s");
  printFigure("stage_total_s", frequency, threads, total, "s");
  for (const auto& [name, seconds] : timer.parts())
    printFigure(("export_" + name + "_s").c_str(), frequency, threads, seconds, "s");
  const double vertices = 10.0 * double(frequency) * double(frequency) + 2.0;
  printFigure("pipeline_peak_rss_bytes", frequency, threads, double(peak), "bytes");
  printFigure("pipeline_peak_rss_bytes_per_vertex", frequency, threads,
              double(peak - std::min(peak, rss_before)) / vertices, "bytes/vertex");
  // Which stage holds the peak, and how each grows with the vertex count.
  for (const auto& [name, bytes] : timer.stagePeaks())
    printFigure(("pipeline_" + name + "_peak_rss_bytes_per_vertex").c_str(), frequency, threads,
                double(bytes - std::min(bytes, rss_before)) / vertices, "bytes/vertex");
}

}  // namespace

void runBench(const BenchOptions& options) {
  for (int frequency : options.frequencies) {
    for (int threads : options.threads) {
      tbb::task_arena arena(threads);
      arena.execute([&] {
        benchOne(frequency, threads, options);
        if (options.pipeline) benchPipeline(frequency, threads);
      });
    }
  }
}

}  // namespace app
