#include "planet/pipeline.h"

#include <algorithm>
#include <cmath>

#include <tbb/parallel_reduce.h>
#include <nlohmann/json.hpp>

#include "export/atomic_file.h"
#include "export/globe.h"
#include "export/maps.h"
#include "export/mesh_export.h"
#include "export/png_io.h"
#include "planet/hardness.h"
#include "planet/ocean.h"
#include "planet/signals.h"
#include "planet/terrain.h"
#include "weather/uniform_rain.h"

namespace planet {

using Json = nlohmann::json;

PlanetState buildPlanet(const Config& config, StageTimer& timer, const StageCallback& on_stage) {
  PlanetState planet;
  on_stage("icosphere");
  timer.start("icosphere");
  planet.mesh = geodesy::buildIcosphere(config.planet.frequency);

  on_stage("terrain");
  timer.start("terrain");
  planet.elevation_m = generateElevation(planet.mesh.positions, config.planet.seed, config.terrain);

  timer.start("ocean");
  const double level = oceanLevel(planet.elevation_m, planet.mesh.vertex_areas, config.ocean);
  if (config.ocean.mode == "fraction") {
    // Elevations are reported above sea level: shift so the quantile is exactly 0 m.
    for (float& e : planet.elevation_m) e = float(double(e) - level);
    planet.sea_level_m = 0.0;
  } else {
    planet.sea_level_m = level;
  }
  planet.land_vertices =
      uint64_t(std::count_if(planet.elevation_m.begin(), planet.elevation_m.end(),
                             [&](float e) { return e >= planet.sea_level_m; }));
  planet.initial_elevation_m = planet.elevation_m;
  planet.change_m.assign(planet.elevation_m.size(), 0.0f);
  timer.stop();
  return planet;
}

uint64_t dropletBudget(const Config& config, uint64_t land_vertices) {
  if (config.erosion.droplets > 0) return config.erosion.droplets;
  return uint64_t(std::llround(config.erosion.droplets_per_land_vertex * double(land_vertices)));
}

void erodePlanet(PlanetState& planet, const Config& config, StageTimer& timer,
                 const StageCallback& on_stage) {
  const uint64_t droplets = dropletBudget(config, planet.land_vertices);
  if (droplets == 0 || planet.land_vertices == 0) return;
  on_stage("erosion");
  timer.start("rain");
  const auto spawns = weather::uniformRain(planet.mesh, planet.elevation_m, planet.sea_level_m,
                                           droplets, config.planet.seed);
  timer.start("erosion");
  if (config.erosion.hardness) {
    planet.erodibility =
        erodibilityField(planet.mesh.positions, config.planet.seed, config.erosion.hardness_min,
                         config.erosion.hardness_scale);
  }
  erosion::ErosionInput input;
  input.mesh = &planet.mesh;
  input.radius_m = config.planet.radius_m;
  input.sea_level_m = planet.sea_level_m;
  input.erodibility = planet.erodibility;
  input.seed = config.planet.seed;
  planet.erosion_stats =
      erosion::erodeDroplets(input, spawns, config.erosion, planet.elevation_m, planet.change_m);
  timer.stop();
}

namespace {

Json summaryJson(const PlanetState& planet, const Config& config, const StageTimer& timer,
                 int threads) {
  Json s;
  s["generator"] = "planetgen";
  s["seed"] = config.planet.seed;
  s["frequency"] = config.planet.frequency;
  s["threads"] = threads;
  s["vertices"] = planet.mesh.vertexCount();
  s["faces"] = planet.mesh.faceCount();
  s["land_vertices"] = planet.land_vertices;
  s["sea_level_m"] = planet.sea_level_m;
  const auto [lo, hi] = std::minmax_element(planet.elevation_m.begin(), planet.elevation_m.end());
  s["elevation_min_m"] = *lo;
  s["elevation_max_m"] = *hi;
  s["elevation_hash"] = hashFloats(planet.elevation_m);
  s["initial_elevation_hash"] = hashFloats(planet.initial_elevation_m);
  Json timings = Json::object();
  double total = 0.0;
  for (const auto& [name, seconds] : timer.stages()) {
    timings[name + "_s"] = timings.value(name + "_s", 0.0) + seconds;
    total += seconds;
  }
  timings["total_s"] = total;
  s["timings"] = timings;
  s["peak_rss_bytes"] = peakRssBytes();
  const erosion::ErosionStats& e = planet.erosion_stats;
  s["erosion"] = {{"droplets", e.droplets},
                  {"eroded_volume_m3", e.eroded_volume_m3},
                  {"deposited_volume_m3", e.deposited_volume_m3},
                  {"mass_conservation_error", e.mass_error},
                  {"mean_steps_per_droplet", e.mean_steps},
                  {"ended",
                   {{"dried", e.ended_dried},
                    {"lifetime", e.ended_lifetime},
                    {"sea", e.ended_sea},
                    {"flat", e.ended_flat}}}};
  s["config"] = Json::parse(configToJson(config));
  return s;
}

// Equirectangular pictures: shaded relief before and after erosion, the erosion/deposition
// map, and a globe view of the result.
void writeMaps(const PlanetState& planet, const Config& config,
               const planet_export::PlanetSurface& surface, planet_export::OutputTransaction& out) {
  const int width = config.output.map_width;
  planet_export::ReliefOptions relief;
  relief.width = width;
  out.stage("relief.png",
            planet_export::encodePngRgb8(planet_export::renderShadedRelief(surface, relief)));
  if (planet.erosion_stats.droplets > 0) {
    planet_export::PlanetSurface before = surface;
    before.elevation_m = planet.initial_elevation_m;
    out.stage("relief_before.png",
              planet_export::encodePngRgb8(planet_export::renderShadedRelief(before, relief)));
    planet_export::FieldMapOptions change;
    change.width = width;
    change.title = "erosion (red) / deposition (blue)";
    change.units = "m";
    out.stage("erosion.png", planet_export::encodePngRgb8(planet_export::renderDivergingMap(
                                 surface, planet.change_m, change)));
  }
  planet_export::GlobeOptions globe;
  globe.size_px = std::max(64, width / 2);
  out.stage("globe.png", planet_export::encodePngRgb8(planet_export::renderGlobe(surface, globe)));
}

}  // namespace

void writePlanet(const PlanetState& planet, const Config& config,
                 const std::filesystem::path& out_dir, StageTimer& timer,
                 const StageCallback& on_stage, int threads) {
  on_stage("export");
  timer.start("export");
  std::filesystem::create_directories(out_dir);
  planet_export::OutputTransaction out(out_dir);

  planet_export::PlanetSurface surface;
  surface.mesh = &planet.mesh;
  surface.elevation_m = planet.elevation_m;
  surface.radius_m = config.planet.radius_m;
  surface.sea_level_m = planet.sea_level_m;
  if (planet.erosion_stats.droplets > 0)
    surface.attributes.push_back({"_EROSION", planet.change_m});
  Json extras;
  extras["generator"] = "planetgen";
  extras["seed"] = config.planet.seed;
  extras["frequency"] = config.planet.frequency;
  extras["radius_m"] = config.planet.radius_m;
  extras["sea_level_m"] = planet.sea_level_m;
  extras["config"] = Json::parse(configToJson(config));
  surface.extras_json = extras.dump();

  if (config.output.glb) planet_export::writeGlb(out.temporaryFor("planet.glb"), surface);
  if (config.output.obj) {
    const auto obj = out.temporaryFor("planet.obj");
    const auto mtl = out.temporaryFor("planet.mtl");
    planet_export::writeObj(obj, mtl, "planet.mtl", surface);
  }
  if (config.output.maps) writeMaps(planet, config, surface, out);
  timer.stop();
  // summary.json goes last so it can report the export time; it is staged like the rest.
  out.stage("summary.json", summaryJson(planet, config, timer, threads).dump(2) + "\n");
  const CommitGuard hold_signals;
  out.commit();
}

}  // namespace planet
